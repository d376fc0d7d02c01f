//! Small host outputs: `uname -a`, `lscpu`, `free`, `/etc/os-release` and the DMI
//! product name.

use serde::Serialize;

use super::colon_value;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Uname {
    pub kernel: String,
    pub arch: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lscpu {
    pub model: Option<String>,
    pub sockets: Option<u32>,
    pub arch: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Free {
    /// Total memory in GiB, from the `Mem:` row and the unit `free` was asked for.
    pub total_gib: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OsRelease {
    pub pretty_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Product {
    pub name: String,
}

/// `Linux host 6.8.0-45-generic #45-Ubuntu SMP ... x86_64 x86_64 x86_64 GNU/Linux`.
pub fn looks_like_uname(head: &str) -> bool {
    let first = head.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.starts_with("Linux ")
        && first.split_whitespace().count() >= 3
        && head.lines().filter(|l| !l.trim().is_empty()).count() == 1
}

pub fn parse_uname(text: &str) -> Uname {
    let w: Vec<&str> = text.split_whitespace().collect();
    let arch = w
        .iter()
        .rev()
        .find(|x| ["x86_64", "aarch64", "ppc64le", "s390x"].contains(x))
        .map(|s| s.to_string());
    Uname {
        kernel: w.get(2).unwrap_or(&"").to_string(),
        arch,
    }
}

pub fn looks_like_lscpu(head: &str) -> bool {
    head.lines().any(|l| l.starts_with("Architecture:"))
        && head
            .lines()
            .any(|l| l.trim_start().starts_with("Model name:"))
}

pub fn parse_lscpu(text: &str) -> Lscpu {
    Lscpu {
        model: colon_value(text, "Model name").map(|(_, v)| v.to_string()),
        sockets: colon_value(text, "Socket(s)").and_then(|(_, v)| v.parse().ok()),
        arch: colon_value(text, "Architecture").map(|(_, v)| v.to_string()),
    }
}

pub fn looks_like_free(head: &str) -> bool {
    head.lines()
        .any(|l| l.trim_start().starts_with("total") || l.contains(" total "))
        && head.lines().any(|l| l.starts_with("Mem:"))
}

/// `free` prints bytes by default; `-k`, `-m`, `-g` are not in the output, so the unit is
/// read from the size of the number (the collector runs `free -g`): a total above 2^20
/// is kibibytes or bytes, and only `-g`'s small numbers are taken as GiB.
pub fn parse_free(text: &str) -> Free {
    let total = text
        .lines()
        .find(|l| l.starts_with("Mem:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .map(|v| (v.parse::<f64>().ok(), v));
    let total_gib = match total {
        // `free -h`: `503Gi`, `1.0Ti`.
        Some((None, v)) => {
            let (num, unit) =
                v.split_at(v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len()));
            num.parse::<f64>().ok().and_then(|n| match unit {
                "Gi" | "G" => Some(n),
                "Ti" | "T" => Some(n * 1024.0),
                "Mi" | "M" => Some(n / 1024.0),
                _ => None,
            })
        }
        Some((Some(n), _)) if n < 1_048_576.0 => Some(n),
        _ => None,
    };
    Free { total_gib }
}

pub fn looks_like_os_release(head: &str) -> bool {
    head.lines().any(|l| l.starts_with("PRETTY_NAME="))
        || (head.lines().any(|l| l.starts_with("ID="))
            && head.lines().any(|l| l.starts_with("VERSION_ID=")))
}

pub fn parse_os_release(text: &str) -> OsRelease {
    OsRelease {
        pretty_name: text
            .lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|v| v.trim().trim_matches('"').to_string()),
    }
}

pub fn parse_product(text: &str) -> Product {
    Product {
        name: text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_small_outputs() {
        let u = "Linux r750 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC x86_64 x86_64 x86_64 GNU/Linux\n";
        assert!(looks_like_uname(u));
        assert_eq!(parse_uname(u).kernel, "6.8.0-45-generic");
        let c = "Architecture:             x86_64\n  Model name:             Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz\n    Socket(s):            2\n";
        assert!(looks_like_lscpu(c));
        let c = parse_lscpu(c);
        assert_eq!(c.sockets, Some(2));
        assert_eq!(
            c.model.as_deref(),
            Some("Intel(R) Xeon(R) Gold 6346 CPU @ 3.10GHz")
        );
        let f = "               total        used        free      shared  buff/cache   available\nMem:             503          12         480           0          10         488\n";
        assert!(looks_like_free(f));
        assert_eq!(parse_free(f).total_gib, Some(503.0));
        let f = "       total used\nMem:   503Gi 12Gi\n";
        assert_eq!(parse_free(f).total_gib, Some(503.0));
        let f = "       total used\nMem:   527446016 12\n";
        assert_eq!(
            parse_free(f).total_gib,
            None,
            "kibibytes are not taken as GiB"
        );
        let o = "PRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nID=ubuntu\nVERSION_ID=\"24.04\"\n";
        assert!(looks_like_os_release(o));
        assert_eq!(
            parse_os_release(o).pretty_name.as_deref(),
            Some("Ubuntu 24.04.1 LTS")
        );
    }
}
