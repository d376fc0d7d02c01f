//! What a fio run actually did, read from its own JSON: the options in effect (global
//! options overridden by the job's), whether the file records them at all, and the command
//! line that would run it again.

use std::collections::BTreeMap;

use crate::parse::fio::{FioJob, FioOutput};

/// Options fio treats as one under two names.
const ALIASES: &[(&str, &str)] = &[("rw", "readwrite"), ("bs", "blocksize")];

/// fio's own line saying the run was cut short (`fio: terminating on signal 2`): it still
/// writes a whole-looking JSON, with the numbers of the part that ran.
pub fn interrupted(out: &FioOutput) -> Option<&str> {
    out.signal.as_deref().or_else(|| {
        out.text_before
            .iter()
            .map(|l| l.trim())
            .find(|l| l.starts_with("fio: terminating on signal"))
    })
}

/// The first error fio logged before its JSON (`fio: io_u error on file /dev/nvme4n1:
/// Input/output error: ...`): a run that logged one is not a clean result, whatever
/// its JSON's `error` says.
pub fn logged_error(out: &FioOutput) -> Option<&str> {
    out.text_before
        .iter()
        .map(|l| l.trim())
        .find(|l| l.starts_with("fio: ") && l.contains("error"))
}

/// The option `key` (or its alias) in `opts`.
pub fn get<'a>(opts: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    if let Some(v) = opts.get(key) {
        return Some(v.as_str());
    }
    ALIASES
        .iter()
        .find_map(|(a, b)| {
            if *a == key {
                opts.get(*b)
            } else if *b == key {
                opts.get(*a)
            } else {
                None
            }
        })
        .map(String::as_str)
}

/// Whether the file says how the job ran: a `global options` object, or job options
/// beyond its name. Without either, every option is unknown (fio 2.x files, hand-made
/// files), not fio's default.
pub fn recorded(out: &FioOutput, job: &FioJob) -> bool {
    !out.global_options.is_empty()
        || job
            .job_options
            .keys()
            .any(|k| k != "name" && k != "filename")
}

/// Engines that complete each I/O before issuing the next: `iodepth` above 1 has no effect.
pub fn is_sync_engine(engine: &str) -> bool {
    matches!(
        engine.trim(),
        "sync" | "psync" | "vsync" | "pvsync" | "pvsync2" | "mmap" | "splice"
    )
}

/// The queue depth each job really had: 1 with a synchronous engine, else `iodepth`
/// (fio's default is 1).
pub fn effective_iodepth(opts: &BTreeMap<String, String>) -> u64 {
    let depth = get(opts, "iodepth")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1);
    match get(opts, "ioengine") {
        Some(e) if is_sync_engine(e) => 1,
        _ => depth,
    }
}

/// A fio time value in seconds: `60`, `60s`, `1m`, `1h`, `500ms`, `2000us` (a bare number
/// is seconds, as for `runtime`).
pub fn parse_seconds(v: &str) -> Option<f64> {
    let v = v.trim().to_ascii_lowercase();
    let end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(end);
    let n: f64 = num.parse().ok()?;
    let scale = match unit.trim() {
        "" | "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        "ms" | "msec" => 1e-3,
        "us" | "usec" => 1e-6,
        _ => return None,
    };
    Some(n * scale).filter(|s| s.is_finite())
}

/// The order the procedure's helper writes its options in; others follow by name.
const HELPER_ORDER: &[&str] = &[
    "random_generator",
    "per_job_logs",
    "buffer_compress_chunk",
    "buffer_compress_percentage",
    "refill_buffers",
    "direct",
    "group_reporting",
    "randrepeat",
    "norandommap",
    "ioengine",
    "rw",
    "readwrite",
    "bs",
    "numjobs",
    "iodepth",
    "rwmixread",
    "size",
    "runtime",
    "time_based",
    "filename",
];

fn quote(v: &str) -> std::borrow::Cow<'_, str> {
    let plain = !v.is_empty()
        && v.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '/' | ':' | '.' | '_' | '-' | ',' | '%' | '=')
        });
    if plain {
        v.into()
    } else {
        format!("'{}'", v.replace('\'', "'\\''")).into()
    }
}

/// `fio --k=v ... --name=<job> --output-format=json`, from the options the file records.
pub fn command_line(jobname: &str, opts: &BTreeMap<String, String>) -> String {
    use std::fmt::Write;
    let rank = |k: &str| {
        HELPER_ORDER
            .iter()
            .position(|h| *h == k)
            .unwrap_or(HELPER_ORDER.len())
    };
    let mut keys: Vec<(usize, &str)> = opts
        .keys()
        .filter(|k| *k != "name")
        .map(|k| (rank(k), k.as_str()))
        .collect();
    keys.sort_unstable();
    let mut s = String::with_capacity(32 * (keys.len() + 2));
    s.push_str("fio");
    for (_, k) in keys {
        let _ = write!(s, " --{k}={}", quote(&opts[k]));
    }
    let _ = write!(s, " --name={} --output-format=json", quote(jobname));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn aliases_and_sync_engines() {
        let o = opts(&[
            ("readwrite", "randrw"),
            ("iodepth", "32"),
            ("ioengine", "psync"),
        ]);
        assert_eq!(get(&o, "rw"), Some("randrw"));
        assert_eq!(effective_iodepth(&o), 1, "psync ignores iodepth");
        let o = opts(&[("iodepth", "32"), ("ioengine", "libaio")]);
        assert_eq!(effective_iodepth(&o), 32);
        assert_eq!(effective_iodepth(&BTreeMap::new()), 1);
    }

    #[test]
    fn reads_fio_times() {
        assert_eq!(parse_seconds("60"), Some(60.0));
        assert_eq!(parse_seconds("1m"), Some(60.0));
        assert_eq!(parse_seconds("500ms"), Some(0.5));
        assert_eq!(parse_seconds("soon"), None);
    }

    #[test]
    fn rebuilds_the_command_in_the_helpers_order() {
        let o = opts(&[
            ("filename", "/dev/md126"),
            ("rw", "randread"),
            ("direct", "1"),
            ("zonemode", "none"),
            ("bs", "8k"),
        ]);
        assert_eq!(
            command_line("randread-8k-j32-d32", &o),
            "fio --direct=1 --rw=randread --bs=8k --filename=/dev/md126 --zonemode=none --name=randread-8k-j32-d32 --output-format=json"
        );
        let o = opts(&[("filename", "/tmp/a file")]);
        assert!(command_line("x", &o).contains("--filename='/tmp/a file'"));
    }
}
