//! The procedures' layouts, in one place: which folder names an array, how a ladder
//! level's files are named, where transcripts live. Suites ask here instead of knowing
//! each other's layouts.

/// The last path component.
pub fn file_name(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// The file name without its last extension.
pub fn stem(rel: &str) -> &str {
    let name = file_name(rel);
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

/// The folder holding `rel`, relative to the input ("" at the top).
pub fn dir_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The last component of a folder path.
pub fn name_of(dir: &str) -> &str {
    dir.rsplit('/').next().unwrap_or(dir)
}

/// A collector's manifest (`manifest.json`, `*.manifest.json`, `manifests/*.json`).
pub fn is_manifest(rel: &str) -> bool {
    let name = file_name(rel);
    name == "manifest.json"
        || name.ends_with(".manifest.json")
        || (rel.split('/').next() == Some("manifests") && name.ends_with(".json"))
}

/// The folder a collector moves the runs it sets aside into (`OUT/.reprobench/`).
pub const SET_ASIDE_DIR: &str = ".reprobench";

/// Why a collector set this file aside, if it did: a run it marked failed or interrupted
/// (`NAME.json.failed`, `NAME.json.interrupted`, or anything under `.reprobench/`). Such
/// a file is evidence of what happened, never a measurement.
pub fn set_aside(rel: &str) -> Option<&'static str> {
    let name = file_name(rel);
    let dirs: Vec<&str> = rel.split('/').collect();
    let dirs = &dirs[..dirs.len() - 1];
    let under = dirs.iter().position(|c| *c == SET_ASIDE_DIR);
    let below = |what: &str| under.is_some_and(|at| dirs[at..].contains(&what));
    if name.ends_with(".interrupted") || below("interrupted") {
        Some("interrupted")
    } else if name.ends_with(".failed") || below("failed") {
        Some("failed")
    } else if under.is_some() {
        Some("set aside")
    } else {
        None
    }
}

/// The four files of a ladder level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LadderPart {
    Records,
    Log,
    Pre,
    Post,
    /// The collector's `/metrics` time series during the level.
    Series,
    /// The collector's `nvidia-smi` series during the level.
    Gpus,
}

/// `name-L8` -> (`name`, 8)
pub fn split_level(stem: &str) -> Option<(&str, u32)> {
    let (name, lvl) = stem.rsplit_once("-L")?;
    let n = lvl.parse().ok()?;
    (!name.is_empty()).then_some((name, n))
}

/// `adp-1` -> (`adp`, `1`); `gpu-only-2` -> (`gpu-only`, `2`).
pub fn split_run(name: &str) -> (String, String) {
    let base = name.rsplit('/').next().unwrap_or(name);
    match base.rsplit_once('-') {
        Some((v, r)) if !v.is_empty() => (v.to_string(), r.to_string()),
        _ => (base.to_string(), "1".to_string()),
    }
}

/// A ladder level's file, `<prefix>-L<clients>.{json,log,pre.prom,post.prom}`: the
/// prefix (path before `-L`, the procedure script's sort key), the clients and the part.
pub fn ladder_file(rel: &str) -> Option<(&str, u32, LadderPart)> {
    for (suffix, part) in [
        (".pre.prom", LadderPart::Pre),
        (".series.prom", LadderPart::Series),
        (".gpu.csv", LadderPart::Gpus),
        (".post.prom", LadderPart::Post),
        (".json", LadderPart::Records),
        (".log", LadderPart::Log),
    ] {
        let Some(base) = rel.strip_suffix(suffix) else {
            continue;
        };
        if part == LadderPart::Records
            && (base.ends_with(".pre") || base.ends_with(".post") || base.ends_with(".series"))
        {
            return None;
        }
        return split_level(base).map(|(prefix, n)| (prefix, n, part));
    }
    None
}

/// The KV procedure's transcript folder a file sits in: `restore` (test 1) or `dram`
/// (test 3).
pub fn transcript_dir(rel: &str) -> Option<&'static str> {
    let dirs: Vec<&str> = rel.split('/').rev().skip(1).collect();
    ["restore", "dram"]
        .into_iter()
        .find(|want| dirs.iter().any(|d| d == want))
}

/// The variant a server log is named for: `adp-vllm.log` -> `adp`,
/// `gpu-only_server.log` -> `gpu-only`.
pub fn server_log_variant(stem: &str) -> String {
    let stem = stem.to_ascii_lowercase();
    let mut v = stem.as_str();
    for cut in [
        "-vllm", "_vllm", ".vllm", "-server", "_server", "vllm-", "vllm_",
    ] {
        v = v.trim_end_matches(cut);
        if let Some(rest) = v.strip_prefix(cut) {
            v = rest;
        }
    }
    v.to_string()
}

/// The variant a server log belongs to, from its path: the one answer every part of a
/// suite uses. Its name says it (`logs/adp-vllm.log` -> `adp`); a log whose name names no
/// variant (`vllm.log`, `server.log`) takes the nearest folder that does, as the
/// procedure's `~/bench/<variant>/` folders leave it (`adp/vllm.log` -> `adp`,
/// `bench/gpu-only/logs/server.log` -> `gpu-only`); folders that only hold things
/// (`logs`, `results`, `load`, `bench`, ...) name none.
pub fn server_log_variant_at(rel: &str) -> String {
    // Words that say what a file or folder is, not which variant: a name made of them
    // only (`vllm.log`, `server-output.log`, `logs/`) names none.
    const GENERIC: [&str; 16] = [
        "vllm",
        "server",
        "log",
        "logs",
        "docker",
        "compose",
        "output",
        "out",
        "results",
        "load",
        "bench",
        "console",
        "container",
        "stdout",
        "stderr",
        "engine",
    ];
    // `GPU_Only` and `gpu-only` are one variant: lower case, `-` between words.
    let variant = |name: &str| server_log_variant(name).replace('_', "-");
    let names_none = |v: &str| {
        v.split(['-', '.'])
            .all(|w| w.is_empty() || GENERIC.contains(&w))
    };
    let own = variant(stem(rel));
    if !names_none(&own) {
        return own;
    }
    dir_of(rel)
        .rsplit('/')
        .map(variant)
        .find(|v| !names_none(v))
        .unwrap_or(own)
}

/// `raid5f-8` -> (`raid5f`, 8)
pub fn split_array(name: &str) -> Option<(&str, u32)> {
    let (a, n) = name.rsplit_once('-')?;
    let n: u32 = n.parse().ok()?;
    (!a.is_empty() && n > 0).then_some((a, n))
}

/// The SPDK article's array folder (`<array>-<drives>/`, or its `degraded/` subfolder)
/// a file sits in: the folder and whether the run is degraded.
pub fn spdk_array_of(rel: &str) -> Option<(String, bool)> {
    let parts: Vec<&str> = rel.split('/').collect();
    let n = parts.len();
    if n >= 2 && split_array(parts[n - 2]).is_some() {
        return Some((parts[..n - 1].join("/"), false));
    }
    // `raid5f-8_degraded/`: the degraded runs of `raid5f-8/`, beside it.
    if n >= 2 {
        if let Some(array) = degraded_of(parts[n - 2]).filter(|a| split_array(a).is_some()) {
            let mut dir: Vec<&str> = parts[..n - 2].to_vec();
            dir.push(array);
            return Some((dir.join("/"), true));
        }
    }
    if n >= 3 && parts[n - 2] == "degraded" && split_array(parts[n - 3]).is_some() {
        return Some((parts[..n - 2].join("/"), true));
    }
    None
}

/// The array a folder of degraded runs is named for: `raid5f_degraded` -> `raid5f`,
/// `raid5f-8-degraded` -> `raid5f-8` (`_`, `-` or `.` before `degraded`, any case).
pub fn degraded_of(folder: &str) -> Option<&str> {
    let n = folder.len();
    if n <= "degraded".len() + 1 {
        return None;
    }
    let (head, tail) = folder.split_at(n - "degraded".len());
    if !tail.eq_ignore_ascii_case("degraded") {
        return None;
    }
    head.strip_suffix(['_', '-', '.']).filter(|a| !a.is_empty())
}

/// Whether a file sits in the SPDK article's layout (`spdk/...`).
pub fn in_spdk_tree(rel: &str) -> bool {
    rel.starts_with("spdk/") || rel.contains("/spdk/")
}

#[cfg(test)]
mod tests {
    use super::{degraded_of, server_log_variant_at, spdk_array_of};

    #[test]
    fn a_folder_named_for_degraded_runs_belongs_to_its_array() {
        assert_eq!(degraded_of("raid5f_degraded"), Some("raid5f"));
        assert_eq!(degraded_of("raid5f-8-Degraded"), Some("raid5f-8"));
        assert_eq!(degraded_of("degraded"), None);
        assert_eq!(degraded_of("_degraded"), None);
        assert_eq!(degraded_of("nondegraded"), None);
        assert_eq!(
            spdk_array_of("spdk/raid5f-8_degraded/randread.json"),
            Some(("spdk/raid5f-8".to_string(), true))
        );
        assert_eq!(
            spdk_array_of("spdk/raid5f-8/degraded/randread.json"),
            Some(("spdk/raid5f-8".to_string(), true))
        );
    }

    #[test]
    fn a_server_log_s_variant_comes_from_its_name_else_its_nearest_variant_folder() {
        for (rel, want) in [
            ("logs/adp-vllm.log", "adp"),
            ("logs/gpu-only-vllm.log", "gpu-only"),
            ("adp/vllm.log", "adp"),
            ("gpu-only/vllm.log", "gpu-only"),
            ("bench/lmcache/logs/server.log", "lmcache"),
            ("home/u/bench/adp/docker.log", "adp"),
            ("adp/logs/gpu-only-vllm.log", "gpu-only"),
            ("adp/logs/server-output.log", "adp"),
            ("bench/GPU_Only/vllm.log", "gpu-only"),
            ("logs/gpu_only_vllm.log", "gpu-only"),
            ("logs/vllm.log", "vllm"),
            ("vllm.log", "vllm"),
        ] {
            assert_eq!(server_log_variant_at(rel), want, "{rel}");
        }
    }

    use super::*;

    #[test]
    fn names_and_levels() {
        assert_eq!(
            ladder_file("results/adp-1-L8.pre.prom"),
            Some(("results/adp-1", 8, LadderPart::Pre))
        );
        assert_eq!(
            ladder_file("results/adp-1-L16.json"),
            Some(("results/adp-1", 16, LadderPart::Records))
        );
        assert_eq!(ladder_file("results/adp-1-L8.pre.json"), None);
        assert_eq!(ladder_file("results/raid10/x.json"), None);
        assert_eq!(
            split_run("results/gpu-only-2"),
            ("gpu-only".into(), "2".into())
        );
        assert_eq!(transcript_dir("restore/adp.txt"), Some("restore"));
        assert_eq!(transcript_dir("x/dram/adp-warm.txt"), Some("dram"));
        assert_eq!(transcript_dir("adp.txt"), None);
        assert_eq!(
            spdk_array_of("spdk/raid5f-8/degraded/r.json"),
            Some(("spdk/raid5f-8".into(), true))
        );
        assert_eq!(spdk_array_of("results/raid5f/r.json"), None);
        assert!(is_manifest("manifests/storage-adp.json"));
        assert!(is_manifest("adp-1.manifest.json"));
        assert!(!is_manifest("results/adp-1-L8.json"));
    }
}
