//! What a fio document is read into: the final document's jobs, their directions and
//! latency blocks, and `disk_util` ([`super::fio_typed`] reads a document into these,
//! [`super::fio`] finds the documents in a file).

use std::collections::BTreeMap;

use serde::Serialize;

/// One fio output file, reduced to its final document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FioOutput {
    pub fio_version: Option<String>,
    /// When fio wrote the document (`timestamp`, Unix seconds), when it says.
    pub timestamp: Option<i64>,
    /// How many complete fio documents the file held (`--status-interval` writes several).
    pub documents: usize,
    /// Line (1-based) where the final document starts.
    pub line: usize,
    /// Non-empty lines before the first document (warnings, `note:` lines, errors).
    pub text_before: Vec<String>,
    /// Whether text follows the last document (`normal,json`).
    pub text_after: bool,
    /// A cut-off document after the final complete one, if any.
    pub broken_tail: Option<String>,
    pub global_options: BTreeMap<String, String>,
    pub jobs: Vec<FioJob>,
    /// Whether the jobs came from `client_stats` (`fio --client`), the file having no
    /// `jobs` array.
    pub client_stats: bool,
    /// fio's `disk_util` section: the disks it saw moving data, in its order.
    pub disk_util: Vec<DiskUtil>,
    /// fio's own line saying it was stopped (`fio: terminating on signal 2`), wherever
    /// it sits in the file.
    pub signal: Option<String>,
    /// Earlier documents in the file that are not status reports of the final one
    /// (other job names or options, or a runtime that does not rise): separate runs
    /// pasted together, as (line, why).
    pub separate_runs: Vec<(usize, String)>,
}

/// One entry of fio's `disk_util`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiskUtil {
    pub name: String,
    /// An md (software RAID) entry: fio gives it `aggr_*` figures over its member disks,
    /// which it lists as entries of their own.
    pub aggregate: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FioJob {
    pub jobname: String,
    pub groupid: u64,
    /// errno of the job; 0 is success.
    pub error: i64,
    /// The I/O errors fio counted and went on past (`total_err`, written with
    /// `continue_on_error`); 0 when the file gives none.
    pub total_err: u64,
    /// Only this job's own options; see [`FioOutput::options_for`].
    pub job_options: BTreeMap<String, String>,
    pub read: DirStats,
    pub write: DirStats,
    pub trim: DirStats,
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    /// `job_runtime` in ms (fio's total_run_time, summed across clones by group_reporting).
    pub job_runtime_ms: u64,
}

/// One data direction of a job.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct DirStats {
    pub io_bytes: u64,
    pub bw_bytes: f64,
    pub iops: f64,
    pub runtime_ms: u64,
    pub total_ios: u64,
    /// fio's bandwidth samples: their mean and standard deviation, KiB/s (`bw_mean`,
    /// `bw_dev`), when fio logged any.
    pub bw_mean_kib: Option<f64>,
    pub bw_dev_kib: Option<f64>,
    /// How many bandwidth samples those are (`bw_samples`, fio 3.x).
    pub bw_samples: Option<u64>,
    /// Whether the file gives `bw_bytes` (fio 2.x gives only `bw`, in KiB/s).
    pub bw_bytes_given: bool,
    /// Whether the file gives a latency block in ns (`clat_ns` or `lat_ns`; fio 2.x
    /// gives `clat` and `lat` in µs).
    pub ns_latency: bool,
    pub slat: Latency,
    pub clat: Latency,
    pub lat: Latency,
}

/// A latency block (`clat_ns`, `lat_ns`, `slat_ns`), in nanoseconds.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Latency {
    pub n: u64,
    pub mean: f64,
    pub max: f64,
    /// `(percent, ns)`, e.g. `(99.0, 123904.0)`, as fio printed them.
    pub percentiles: Vec<(f64, f64)>,
    /// `json+` histogram: `(ns, count)`, ascending.
    pub bins: Option<Vec<(u64, u64)>>,
}

impl Latency {
    pub fn percentile(&self, pct: f64) -> Option<f64> {
        self.percentiles
            .iter()
            .find(|(p, _)| (p - pct).abs() < 1e-9)
            .map(|(_, v)| *v)
    }
}

impl FioOutput {
    /// Whether any job ran with this ioengine (`spdk_bdev` runs belong to the SPDK suite).
    pub fn uses_ioengine(&self, engine: &str) -> bool {
        self.jobs.iter().any(|j| {
            j.job_options
                .get("ioengine")
                .or_else(|| self.global_options.get("ioengine"))
                .is_some_and(|i| i == engine)
        })
    }

    /// Drops the `json+` histograms (`bins`) of every latency block: once the jobs are
    /// summed into their groups (whose percentiles are computed from the bins), nothing
    /// reads them, and they are most of a json+ file's size (thousands of bins per
    /// direction).
    pub fn drop_bins(&mut self) {
        for j in &mut self.jobs {
            for d in [&mut j.read, &mut j.write, &mut j.trim] {
                for l in [&mut d.slat, &mut d.clat, &mut d.lat] {
                    l.bins = None;
                }
            }
        }
    }

    /// A job's effective options: `global options` overridden by its `job options`.
    pub fn options_for(&self, job: &FioJob) -> BTreeMap<String, String> {
        let mut all = self.global_options.clone();
        all.extend(job.job_options.clone());
        all
    }
}
