//! The ADP gateway's log (`logs/adp-gateway.log`): its release, from the line it starts
//! with (`INFO gateway 6.1.1 starting`).

use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GatewayLog {
    /// The release the gateway names itself with, and the line (1-based).
    pub version: Option<(String, usize)>,
}

/// Reads the first `gateway <version>` in the file, where the version starts with a digit
/// and holds a dot.
pub fn parse_text(text: &str) -> GatewayLog {
    for (i, line) in text.lines().enumerate().take(10_000) {
        let mut words = line.split_whitespace();
        while let Some(w) = words.next() {
            if !w.eq_ignore_ascii_case("gateway") {
                continue;
            }
            if let Some(v) = words.next() {
                let v = v.trim_start_matches('v').trim_end_matches([',', ':', ';']);
                if v.starts_with(|c: char| c.is_ascii_digit())
                    && v.contains('.')
                    && v.chars()
                        .all(|c| c.is_ascii_alphanumeric() || ".-+".contains(c))
                {
                    return GatewayLog {
                        version: Some((v.to_string(), i + 1)),
                    };
                }
            }
        }
    }
    GatewayLog::default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_release_it_starts_with() {
        let g = parse_text("INFO boot\nINFO gateway 6.1.1 starting\nINFO gateway 7.0 later\n");
        assert_eq!(g.version, Some(("6.1.1".into(), 2)));
        assert_eq!(parse_text("gateway listening on 5557\n").version, None);
        assert_eq!(parse_text("").version, None);
    }
}
