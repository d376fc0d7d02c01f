//! fio job files for the article's runs with `ioengine=spdk_bdev`: small random I/O
//! (8k, QD32, 1-64 jobs) and full-stripe sequential I/O (strip x data drives, QD16, 1-4
//! jobs), one file per run. raid5f write jobs smaller than a full stripe are refused.

use crate::fio::signature::parse_size;
use crate::model::units::format_size;

use super::{stripe_bytes, Raid};

/// One fio run.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub rw: String,
    pub bs: u64,
    pub numjobs: u32,
    pub iodepth: u32,
    pub rwmixread: Option<u32>,
    pub runtime_s: u32,
    /// Sequential jobs spread their clones over the device (`offset_increment=15%`).
    pub spread: bool,
}

impl Job {
    /// `randread-8k-j16-d32`, the file name (and fio job name) of the run.
    pub fn name(&self) -> String {
        let mix = match (self.rw.as_str(), self.rwmixread) {
            ("randrw", Some(m)) => format!("{m}"),
            _ => String::new(),
        };
        format!(
            "{}{mix}-{}-j{}-d{}",
            self.rw,
            format_size(self.bs),
            self.numjobs,
            self.iodepth
        )
    }

    fn writes(&self) -> bool {
        matches!(
            self.rw.as_str(),
            "write" | "randwrite" | "randrw" | "rw" | "readwrite" | "trimwrite"
        ) && self.rwmixread != Some(100)
    }
}

/// Where the jobs run.
#[derive(Debug, Clone)]
pub struct Target {
    pub raid: Raid,
    pub drives: u32,
    pub strip_kb: u32,
    /// The SPDK JSON config fio loads (`spdk_json_conf`).
    pub spdk_conf: String,
    /// fio's `filename`: the raid bdev's name, or `nvme0n1:nvme1n1:...` for raw drives.
    pub filename: String,
}

/// Why a job cannot run on the target, with the bs that would.
pub fn check(job: &Job, t: &Target) -> Result<(), String> {
    if !t.raid.full_stripe_writes_only() || !job.writes() {
        return Ok(());
    }
    let Some(stripe) = stripe_bytes(&t.raid, t.drives, t.strip_kb) else {
        return Ok(());
    };
    if job.bs.is_multiple_of(stripe) {
        return Ok(());
    }
    Err(format!(
        "refused `{}`: raid5f accepts only full-stripe writes (no read-modify-write), and bs={} is not a multiple of its {} stripe ({} data strips x {} KiB); use bs={} or put FTL in front",
        job.name(),
        format_size(job.bs),
        format_size(stripe),
        t.drives - 1,
        t.strip_kb,
        format_size(stripe)
    ))
}

/// The fio job file, in the article's layout.
pub fn render(job: &Job, t: &Target) -> Result<String, String> {
    check(job, t)?;
    let mut s = String::from("[global]\n");
    s.push_str("ioengine=spdk_bdev\n");
    s.push_str(&format!("spdk_json_conf={}\n", t.spdk_conf));
    s.push_str("thread=1\ngroup_reporting=1\ndirect=1\nverify=0\ntime_based=1\nramp_time=0\n");
    s.push_str(&format!("runtime={}\n", job.runtime_s));
    s.push_str(&format!("iodepth={}\n", job.iodepth));
    s.push_str(&format!("rw={}\n", job.rw));
    if let Some(m) = job.rwmixread {
        s.push_str(&format!("rwmixread={m}\n"));
    }
    s.push_str(&format!("bs={}\n", format_size(job.bs)));
    if job.spread {
        s.push_str("offset_increment=15%\n");
    }
    s.push_str("norandommap\nrandom_generator=tausworthe64\n");
    s.push_str(&format!("numjobs={}\n", job.numjobs));
    s.push_str(&format!("[{}]\nfilename={}\n", job.name(), t.filename));
    Ok(s)
}

/// The article's runs for a target, so every published number has a run to compare with.
/// Arrays: 8k random read at 1 job QD1 (the published line) and 1, 16, 32, 64 jobs at
/// QD32 (the job file), random write and 70/30 mixed at 1, 16, 32, 64 jobs QD32, and
/// full-stripe reads and writes at QD16 with 1-4 jobs. Raw drives (the baseline): 8k
/// random read at 1 job QD1 and 1-4 jobs QD32 (published), random write at 1-4 jobs QD32,
/// and 64k (one strip) reads (published) and writes at QD16 with 1-4 jobs; the writes
/// give the theoretical maxima of random and full-stripe writes. Jobs the target refuses
/// are returned apart, with the reason.
pub fn article_suite(t: &Target, small_runtime: u32, seq_runtime: u32) -> (Vec<Job>, Vec<String>) {
    let raw = t.raid == Raid::None;
    let small = |rw: &str, numjobs: u32, iodepth: u32, mix: Option<u32>| Job {
        rw: rw.into(),
        bs: 8 * 1024,
        numjobs,
        iodepth,
        rwmixread: mix,
        runtime_s: small_runtime,
        spread: false,
    };
    let counts: &[u32] = if raw { &[1, 2, 3, 4] } else { &[1, 16, 32, 64] };
    let mut jobs = vec![small("randread", 1, 1, None)];
    for (rw, mix) in [
        ("randread", None),
        ("randwrite", None),
        ("randrw", Some(70)),
    ] {
        if raw && rw == "randrw" {
            continue;
        }
        for &n in counts {
            jobs.push(small(rw, n, 32, mix));
        }
    }
    let seq_bs = stripe_bytes(&t.raid, t.drives, t.strip_kb).unwrap_or(t.strip_kb as u64 * 1024);
    for rw in ["read", "write"] {
        for numjobs in 1..=4 {
            jobs.push(Job {
                rw: rw.into(),
                bs: seq_bs,
                numjobs,
                iodepth: 16,
                rwmixread: None,
                runtime_s: seq_runtime,
                spread: true,
            });
        }
    }
    let mut refused = Vec::new();
    jobs.retain(|j| match check(j, t) {
        Ok(()) => true,
        Err(why) => {
            refused.push(why);
            false
        }
    });
    (jobs, refused)
}

/// A job from the command line's `--rw --bs --numjobs --iodepth`.
pub fn single(
    rw: &str,
    bs: &str,
    numjobs: u32,
    iodepth: u32,
    rwmixread: Option<u32>,
    runtime_s: u32,
) -> Result<Job, String> {
    let bs = parse_size(bs).ok_or_else(|| format!("`{bs}` is not a block size like 8k or 448k"))?;
    Ok(Job {
        rw: rw.to_string(),
        bs,
        numjobs,
        iodepth,
        rwmixread,
        runtime_s,
        spread: matches!(rw, "read" | "write"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(raid: Raid, drives: u32) -> Target {
        Target {
            raid,
            drives,
            strip_kb: 64,
            spdk_conf: "/etc/spdk/raid5f-8.json".into(),
            filename: "raid5".into(),
        }
    }

    #[test]
    fn refuses_sub_stripe_raid5f_writes_with_the_right_bs() {
        let t = target(Raid::Spdk("raid5f".into()), 8);
        let job = single("randwrite", "8k", 16, 32, None, 60).expect("job");
        let err = render(&job, &t).expect_err("refused");
        assert!(err.contains("use bs=448k"), "{err}");
        assert!(err.contains("7 data strips x 64 KiB"), "{err}");
        let ok = single("write", "448k", 2, 16, None, 60).expect("job");
        assert!(render(&ok, &t).is_ok());
        let two = single("write", "896k", 1, 16, None, 60).expect("job");
        assert!(
            render(&two, &t).is_ok(),
            "two whole stripes are whole stripes"
        );
        let read = single("randread", "8k", 16, 32, None, 60).expect("job");
        assert!(render(&read, &t).is_ok(), "reads of any size are fine");
        let x = target(Raid::Xinnor(5), 8);
        assert!(render(&job, &x).is_ok(), "Xinnor does read-modify-write");
    }

    #[test]
    fn the_article_suite_leaves_out_what_raid5f_refuses() {
        let (jobs, refused) = article_suite(&target(Raid::Spdk("raid5f".into()), 16), 900, 60);
        assert!(jobs.iter().all(|j| !j.writes() || j.bs == 960 * 1024));
        assert_eq!(refused.len(), 8, "randwrite and randrw at 4 job counts");
        assert!(jobs.iter().any(|j| j.name() == "write-960k-j4-d16"));
        let (jobs, refused) = article_suite(&target(Raid::Xinnor(5), 8), 900, 60);
        assert!(refused.is_empty());
        assert_eq!(jobs.len(), 21);
        for name in [
            "randrw70-8k-j64-d32",
            "randread-8k-j1-d1",
            "randread-8k-j1-d32",
        ] {
            assert!(jobs.iter().any(|j| j.name() == name), "{name}");
        }
        // Every shape the article publishes for the raw drives has a run.
        let mut raw = target(Raid::None, 8);
        raw.filename = "nvme0n1:nvme1n1".into();
        let (jobs, refused) = article_suite(&raw, 900, 60);
        assert!(refused.is_empty());
        for name in [
            "randread-8k-j1-d1",
            "randread-8k-j1-d32",
            "randread-8k-j2-d32",
            "randread-8k-j3-d32",
            "randread-8k-j4-d32",
            "read-64k-j1-d16",
            "read-64k-j4-d16",
            "randwrite-8k-j4-d32",
            "write-64k-j2-d16",
        ] {
            assert!(jobs.iter().any(|j| j.name() == name), "raw {name}");
        }
    }
}
