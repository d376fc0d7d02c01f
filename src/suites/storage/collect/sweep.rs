//! The sweep the storage procedure runs (`reports/storage-sweep.toml`): the precondition
//! and the 63 configurations, or the headline runs for a quick pass, each a fio run.

use serde::{Deserialize, Serialize};

use super::SWEEP_TOML;

#[derive(Debug, Clone, Deserialize)]
pub struct Sweep {
    pub source: String,
    pub block_sizes: Vec<String>,
    pub random: Vec<String>,
    pub sequential: Vec<String>,
    pub rwmixread: u32,
    pub size: String,
    pub runtime_s: u32,
    pub precondition: Precondition,
    pub depth: Vec<Depth>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Precondition {
    pub name: String,
    pub options: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Depth {
    pub qd: u32,
    pub numjobs: u32,
    pub iodepth: u32,
    #[serde(default)]
    pub ioengine: Option<String>,
    #[serde(default)]
    pub writes_numjobs: Option<u32>,
    #[serde(default)]
    pub writes_iodepth: Option<u32>,
}

impl Sweep {
    pub fn load() -> Result<Sweep, toml::de::Error> {
        toml::from_str(SWEEP_TOML)
    }
}

/// One run of the procedure's helper: its name and fio options.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Run {
    pub name: String,
    pub options: Vec<String>,
}

fn split(opts: &str) -> Vec<String> {
    opts.split_whitespace().map(String::from).collect()
}

/// The precondition and the 63 runs, with the span and time asked.
pub fn sweep_runs(sweep: &Sweep, size: &str, runtime: u32) -> Vec<Run> {
    let mut runs = vec![Run {
        name: sweep.precondition.name.clone(),
        options: split(&format!(
            "{} --runtime={runtime}",
            sweep.precondition.options
        )),
    }];
    for bs in &sweep.block_sizes {
        let kinds = if bs.ends_with('m') {
            &sweep.sequential
        } else {
            &sweep.random
        };
        for rw in kinds {
            for d in &sweep.depth {
                let reads = rw == "randread" || rw == "read";
                let (nj, io) = match (reads, d.writes_numjobs, d.writes_iodepth) {
                    (false, Some(n), Some(i)) => (n, i),
                    _ => (d.numjobs, d.iodepth),
                };
                let mut o = format!("--readwrite={rw} --bs={bs} --numjobs={nj} --iodepth={io}");
                if rw == "randrw" || rw == "rw" {
                    o.push_str(&format!(" --rwmixread={}", sweep.rwmixread));
                }
                o.push_str(&format!(" --size={size} --runtime={runtime}"));
                if let Some(e) = &d.ioengine {
                    o.push_str(&format!(" --ioengine={e}"));
                }
                runs.push(Run {
                    name: format!("{rw}-{bs}-j{nj}-d{io}"),
                    options: split(&o),
                });
            }
        }
    }
    runs
}

/// The procedure's precondition, five headline runs and QD 1 read, for a quick pass.
pub fn headline_runs(sweep: &Sweep, size: &str, runtime: u32) -> Vec<Run> {
    let keep = [
        "precondition",
        "randread-8k-j32-d32",
        "randrw-8k-j128-d8",
        "randwrite-8k-j8-d8",
        "read-1m-j8-d4",
        "write-1m-j8-d4",
        "randread-8k-j1-d1",
    ];
    let all = sweep_runs(sweep, size, runtime);
    keep.iter()
        .filter_map(|k| all.iter().find(|r| r.name == *k).cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_is_63_runs_holding_the_headline_and_observed_shapes() {
        let s = Sweep::load().expect("storage-sweep.toml parses");
        let runs = sweep_runs(&s, "3800000000000", 60);
        assert_eq!(runs.len(), 64, "the precondition and 63 runs");
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        for want in [
            "randread-8k-j32-d32",
            "randrw-8k-j128-d8",
            "randwrite-8k-j8-d8",
            "read-1m-j8-d4",
            "write-1m-j8-d4",
            "randread-8k-j1-d1",
            "randrw-8k-j32-d8",
        ] {
            assert!(names.contains(&want), "{want}");
        }
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "names are unique");
        let qd1 = runs
            .iter()
            .find(|r| r.name == "randwrite-16k-j1-d1")
            .expect("qd1");
        assert!(qd1.options.contains(&"--ioengine=sync".to_string()));
        let mixed = runs
            .iter()
            .find(|r| r.name == "randrw-8k-j128-d8")
            .expect("mixed");
        assert!(mixed.options.contains(&"--rwmixread=70".to_string()));
        assert_eq!(headline_runs(&s, "1g", 4).len(), 7);
    }
}
