//! A `/metrics` time series, as the ladder collector keeps it beside each level
//! (`<variant>-<run>-L<clients>.series.prom`): blocks of Prometheus text, each after a
//! `# scrape <unix seconds>` line. A block with no samples (the server did not answer)
//! is a gap, not an error.

use serde::Serialize;

use crate::error::Problem;
use crate::parse::prom::Snapshot;
use crate::parse::text::TextCheck;

pub const MARKER: &str = "# scrape ";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scrape {
    /// When the scrape began, Unix seconds.
    pub at_s: f64,
    /// The marker's line.
    pub line: usize,
    pub snapshot: Snapshot,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct PromSeries {
    pub scrapes: Vec<Scrape>,
}

pub fn parse_bytes(bytes: &[u8]) -> Result<PromSeries, Problem> {
    TextCheck::of(bytes)?;
    let text = crate::parse::text::lossy(bytes);
    let mut scrapes: Vec<Scrape> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(at) = line.strip_prefix(MARKER.trim_end()).map(str::trim) {
            let at_s: f64 = at
                .parse()
                .ok()
                .filter(|t: &f64| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| {
                    Problem::at(
                        i + 1,
                        format!("`{line}`: the scrape time is not Unix seconds"),
                    )
                })?;
            if scrapes.last().is_some_and(|s| s.at_s > at_s) {
                return Err(Problem::at(
                    i + 1,
                    "scrape times go backwards: not one series".to_string(),
                ));
            }
            scrapes.push(Scrape {
                at_s,
                line: i + 1,
                snapshot: Snapshot::default(),
            });
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(current) = scrapes.last_mut() else {
            return Err(Problem::at(
                i + 1,
                "a sample before the first `# scrape <time>` line".to_string(),
            ));
        };
        current
            .snapshot
            .push_line(line)
            .map_err(|why| Problem::at(i + 1, why))?;
    }
    if scrapes.is_empty() {
        return Err(Problem::whole("no `# scrape <time>` lines"));
    }
    Ok(PromSeries { scrapes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_scrapes_and_gaps() {
        let text = "# scrape 100.5\n# HELP vllm:kv_cache_usage_perc x\nvllm:kv_cache_usage_perc{engine=\"0\"} 0.25\n# scrape 105.5\n# scrape 110.5\nvllm:kv_cache_usage_perc{engine=\"0\"} 0.5\n";
        let s = parse_bytes(text.as_bytes()).expect("series");
        assert_eq!(s.scrapes.len(), 3);
        assert_eq!(
            s.scrapes[0].snapshot.sum("vllm:kv_cache_usage_perc"),
            Some(0.25)
        );
        assert!(s.scrapes[1].snapshot.is_empty(), "a gap");
        assert_eq!(s.scrapes[2].line, 5);
    }

    #[test]
    fn refuses_what_is_not_a_series() {
        let e = |t: &str| parse_bytes(t.as_bytes()).err();
        assert_eq!(e("vllm:x 1\n").and_then(|p| p.line), Some(1));
        assert_eq!(e("# scrape soon\n").and_then(|p| p.line), Some(1));
        assert!(e("# scrape 5\n# scrape 4\n").is_some_and(|p| p.reason.contains("backwards")));
        assert!(e("").is_some());
        assert_eq!(e("# scrape 5\nvllm:x{ 1\n").and_then(|p| p.line), Some(2));
    }
}
