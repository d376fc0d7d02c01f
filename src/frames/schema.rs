//! What every exported frame holds: its rows, its keys, and each column's unit and meaning.
//! `schema.md` is written from this table, and a test checks that every column a frame
//! can carry is described here.

use super::Frame;

pub struct FrameDoc {
    pub name: &'static str,
    /// One row per ...
    pub rows: &'static str,
    pub columns: &'static [(&'static str, &'static str, &'static str)],
}

const INPUT: (&str, &str, &str) = (
    "input",
    "",
    "the results folder or bundle the row came from",
);
const SUITE: (&str, &str, &str) = ("suite", "", "the suite whose layout the file is in");
const FILE: (&str, &str, &str) = ("file", "", "the file, relative to the input");

pub const FRAMES: &[FrameDoc] = &[
    FrameDoc {
        name: "fio_groups",
        rows: "reporting group of every fio result (its jobs summed as group_reporting would)",
        columns: &[
            INPUT,
            SUITE,
            ("array", "", "the array: the folder holding the file"),
            ("job", "", "the file name without .json: the job name the procedure's helper gives"),
            FILE,
            ("groupid", "", "fio's groupid"),
            ("jobname", "", "the group's first job name"),
            ("jobs_summed", "", "jobs[] entries summed into the group"),
            ("error", "errno", "the first non-zero job error, 0 when clean"),
            ("interrupted", "", "fio logged `terminating on signal`: the run was cut short"),
            ("rw", "", "readwrite as run (normalised)"),
            ("bs_bytes", "B", "block size"),
            ("numjobs", "", "jobs"),
            ("iodepth", "", "effective queue depth per job (1 for sync engines)"),
            ("rwmixread", "%", "read share of a mixed workload"),
            ("ioengine", "", "ioengine option"),
            ("runtime_s", "s", "how long the group ran, by fio's account"),
            ("read_io_bytes", "B", "bytes read"),
            ("write_io_bytes", "B", "bytes written"),
            ("read_bw_bytes", "B/s", "read bandwidth"),
            ("write_bw_bytes", "B/s", "write bandwidth"),
            ("read_bw_rel_sd", "fraction", "fio's own spread of the read bandwidth samples: bw_dev / bw_mean (jobs as independent)"),
            ("write_bw_rel_sd", "fraction", "fio's own spread of the write bandwidth samples: bw_dev / bw_mean"),
            ("read_iops", "IO/s", "read IOPS"),
            ("write_iops", "IO/s", "write IOPS"),
            ("read_p99_ns", "ns", "99th percentile read completion latency (total latency when only that was reported)"),
            ("write_p99_ns", "ns", "99th percentile write completion latency"),
            ("read_mean_lat_ns", "ns", "mean total read latency"),
            ("write_mean_lat_ns", "ns", "mean total write latency"),
            ("sys_cpu_pct", "%", "fio's system CPU"),
            ("usr_cpu_pct", "%", "fio's user CPU"),
            ("fio_version", "", "fio version that wrote the file"),
        ],
    },
    FrameDoc {
        name: "iostat_devices",
        rows: "iostat sample and device (the since-boot block left out)",
        columns: &[
            INPUT,
            SUITE,
            ("array", "", "the array folder the log belongs to"),
            ("job", "", "the job the log was taken beside"),
            FILE,
            ("sample", "", "1 for the first interval"),
            ("time", "", "iostat -t timestamp as printed, empty without -t"),
            ("device", "", "block device"),
            ("r_s", "IO/s", "reads per second"),
            ("w_s", "IO/s", "writes per second"),
            ("r_mib_s", "MiB/s", "read throughput (iostat's MB are MiB)"),
            ("w_mib_s", "MiB/s", "write throughput"),
            ("r_await_ms", "ms", "read wait"),
            ("w_await_ms", "ms", "write wait"),
            ("await_ms", "ms", "older sysstat's combined wait"),
            ("util_pct", "%", "device utilisation"),
        ],
    },
    FrameDoc {
        name: "iostat_cpu",
        rows: "iostat sample: the avg-cpu line",
        columns: &[
            INPUT,
            SUITE,
            ("array", "", "the array folder the log belongs to"),
            ("job", "", "the job the log was taken beside"),
            FILE,
            ("sample", "", "1 for the first interval"),
            ("time", "", "iostat -t timestamp as printed"),
            ("system_pct", "%", "%system"),
            ("iowait_pct", "%", "%iowait"),
        ],
    },
    FrameDoc {
        name: "ladder_requests",
        rows: "request the multi-turn client recorded (--stats-json-output)",
        columns: &[
            INPUT,
            ("variant", "", "adp, gpu-only, lmcache ... from the file name"),
            ("run", "", "the run number from the file name"),
            ("clients", "", "the level: concurrent clients"),
            FILE,
            ("request", "", "index in the file"),
            ("ttft_ms", "ms", "time to first token"),
            ("tpot_ms", "ms", "time per output token"),
            ("latency_ms", "ms", "whole request"),
            ("start_time_ms", "ms", "client's monotonic clock at the start"),
            ("output_tokens", "tokens", "generated tokens"),
            ("input_tokens", "tokens", "prompt tokens"),
            ("client_id", "", "client"),
            ("conversation_id", "", "conversation"),
        ],
    },
    FrameDoc {
        name: "prom_deltas",
        rows: "Prometheus sample of a level's .pre.prom and .post.prom",
        columns: &[
            INPUT,
            ("variant", "", "from the file name"),
            ("run", "", "from the file name"),
            ("clients", "", "the level"),
            ("metric", "", "metric name (vllm:...)"),
            ("labels", "", "label set, k=v joined by commas"),
            ("pre", "metric's", "value before the level"),
            ("post", "metric's", "value after the level"),
            ("delta", "metric's", "post - pre"),
        ],
    },
    FrameDoc {
        name: "restore_attempts",
        rows: "request of an `ask` transcript (tests 1 and 3)",
        columns: &[
            INPUT,
            SUITE,
            ("variant", "", "the transcript's name (adp, gpu-only, adp-warm ...)"),
            FILE,
            ("line", "", "line in the transcript"),
            ("seconds", "s", "curl's time_total: with max_tokens 1, time to first token"),
            ("prompt_tokens", "tokens", "usage.prompt_tokens"),
            ("cached_tokens", "tokens", "prompt_tokens_details.cached_tokens (empty when null)"),
            ("failed", "", "why the request failed, empty when it did not"),
        ],
    },
    FrameDoc {
        name: "server_facts",
        rows: "vLLM server log",
        columns: &[
            INPUT,
            ("variant", "", "from the log's name"),
            FILE,
            ("vllm_version", "", "vLLM API server version"),
            ("model", "", "model"),
            ("tensor_parallel_size", "", "from non-default args"),
            ("max_model_len", "tokens", "from non-default args"),
            ("kv_cache_tokens", "tokens", "GPU KV cache size"),
            ("max_concurrency", "x", "maximum concurrency at max_model_len"),
            ("connector_tensors", "", "XKV tensors registered"),
            ("turned_off_lines", "lines", "`External KV cache turned off on this rank` lines"),
            ("engine_stat_lines", "lines", "periodic engine statistics lines"),
        ],
    },
    FrameDoc {
        name: "ladder_levels",
        rows: "level of a ladder run, with the procedure script's arithmetic (kv-ladder)",
        columns: &[
            INPUT,
            ("variant", "", "from the file name"),
            ("run", "", "from the file name"),
            ("clients", "", "the level"),
            ("prefix", "", "path before -L: the script's sort key"),
            ("requests", "requests", "records in the .json"),
            ("output_tok_s", "tok/s", "output tokens over the level's span"),
            ("ttft_p50_s", "s", "median time to first token"),
            ("gen_tok_s", "tok/s", "1000 / median tpot_ms"),
            ("gpu_hit_pct", "%", "GPU prefix-cache hit rate between the snapshots"),
            ("card_hit_pct", "%", "external (card) prefix-cache hit rate"),
            ("card_hits", "tokens", "card hits during the level"),
            ("failures", "requests", "num_failures summed over the clients (.log)"),
            ("runtime_s", "s", "the client's runtime"),
            ("stopped_early", "", "the client stopped all clients when the first finished"),
            ("died", "", "the client's last traceback line, empty when it did not die"),
        ],
    },
    FrameDoc {
        name: "ladder_medians",
        rows: "variant and level: the medians over runs and their spread (computed with Polars)",
        columns: &[
            INPUT,
            ("variant", "", "variant"),
            ("clients", "", "the level"),
            ("runs", "", "runs of the level"),
            ("runs_in_median", "", "runs that feed the medians: neither failing, stopped early nor without records"),
            ("output_tok_s", "tok/s", "median over runs"),
            ("output_tok_s_spread", "fraction", "largest over smallest minus one"),
            ("gen_tok_s", "tok/s", "median over runs"),
            ("gen_tok_s_spread", "fraction", "largest over smallest minus one"),
            ("ttft_p50_s", "s", "median over runs"),
            ("ttft_p50_s_spread", "fraction", "largest over smallest minus one"),
            ("gpu_hit_pct", "%", "median over runs"),
            ("gpu_hit_pct_spread", "fraction", "largest over smallest minus one"),
        ],
    },
    FrameDoc {
        name: "spdk_runs",
        rows: "SPDK run (fio with spdk_bdev, or bdevperf) in an array folder (spdk-raid)",
        columns: &[
            INPUT,
            ("array_dir", "", "the array's folder"),
            ("array", "", "raw, raid5f, xinnor or the folder's name"),
            ("drives", "", "member drives"),
            ("degraded", "", "run with a member removed"),
            ("tool", "", "fio or bdevperf"),
            FILE,
            ("rw", "", "workload"),
            ("bs_bytes", "B", "block size"),
            ("numjobs", "", "jobs"),
            ("iodepth", "", "queue depth per job"),
            ("iops", "IO/s", "read + write IOPS"),
            ("gb_s", "GB/s", "read + write bandwidth (10^9 bytes)"),
            ("read_avg_lat_us", "µs", "mean read latency"),
            ("read_p999_us", "µs", "99.9th percentile read latency"),
            ("error", "errno", "job error"),
            ("failed_ios", "", "failed I/Os"),
            ("io_bytes", "B", "bytes moved"),
            ("runtime_s", "s", "by the tool's account"),
            ("interrupted", "", "the run was cut short"),
            ("clean", "", "no error, no failed I/O, data moved, not cut short"),
        ],
    },
    FrameDoc {
        name: "storage_pairs",
        rows: "job shape run on both compared arrays (storage; joined with Polars)",
        columns: &[
            INPUT,
            ("rw", "", "readwrite"),
            ("bs_bytes", "B", "block size"),
            ("numjobs", "", "jobs"),
            ("iodepth", "", "depth per job"),
            ("queue_depth", "", "jobs x depth"),
            ("rwmixread", "%", "read share of a mixed workload"),
            ("baseline", "", "the baseline array"),
            ("candidate", "", "the candidate array"),
            ("baseline_file", "", "baseline result"),
            ("candidate_file", "", "candidate result"),
            ("baseline_mb_s", "MB/s", "read + write, 10^6 bytes"),
            ("candidate_mb_s", "MB/s", "read + write, 10^6 bytes"),
            ("ratio", "x", "candidate over baseline"),
            ("baseline_p99_us", "µs", "p99 of writes where the run wrote, else of reads"),
            ("candidate_p99_us", "µs", "p99 of writes where the run wrote, else of reads"),
        ],
    },
    FrameDoc {
        name: "verdicts",
        rows: "criterion judged",
        columns: &[
            INPUT,
            ("suite", "", "suite"),
            ("id", "", "stable criterion id"),
            ("criterion", "", "as the procedure states it"),
            ("status", "", "pass, fail, not-measured, inconclusive, not-comparable"),
            ("measured_value", "unit", "the measured number"),
            ("threshold_value", "unit", "the threshold's number"),
            ("published_value", "unit", "the published number"),
            ("unit", "", "unit of the three numbers"),
            ("measured", "", "as displayed"),
            ("threshold", "", "as displayed"),
            ("published", "", "as displayed"),
            ("files", "", "files the verdict came from, ;-separated"),
            ("note", "", "why the status is what it is"),
        ],
    },
    FrameDoc {
        name: "deviations",
        rows: "way the runs depart from the procedure",
        columns: &[
            INPUT,
            ("suite", "", "suite"),
            ("parameter", "", "as the procedure names it"),
            ("procedure", "", "the procedure's value"),
            ("ran", "", "what the files show ran"),
            ("unit", "", "unit of both values"),
            ("changes_comparison", "", "whether the criteria it feeds are not comparable"),
            ("subjects", "", "runs or levels, ;-separated"),
            ("files", "", "files that show it, ;-separated"),
            ("evidence", "", "files its effect was judged from beyond those (a job's iostat series), ;-separated"),
            ("verdicts", "", "criteria it feeds, ;-separated"),
            ("effect", "", "what it does to the comparison"),
            ("source", "", "where the procedure sets the value"),
        ],
    },
    FrameDoc {
        name: "measurements",
        rows: "number the files give, as a suite measured it (what compare and --trend read)",
        columns: &[
            INPUT,
            ("suite", "", "suite"),
            ("subject", "", "what was measured: an array and job shape, a variant and level"),
            ("metric", "", "which number of the subject"),
            ("value", "unit", "the number"),
            ("unit", "", "MB/s (decimal), MiB/s, GB/s, IO/s, µs, ms, s, tok/s, tokens, %, x, KiB"),
            ("better", "", "higher or lower"),
            ("noise", "", "how much the value would move on a rerun, relative (0.05 = 5 %); empty when the files do not say"),
            ("noise_source", "", "what the noise figure is"),
            ("files", "", "files it came from, ;-separated"),
        ],
    },
    FrameDoc {
        name: "parameters",
        rows: "parameter a run or a server ran with, as its files record it",
        columns: &[
            INPUT,
            ("suite", "", "suite"),
            ("subject", "", "what ran with it: a run, a server's variant"),
            ("name", "", "the parameter (runtime, max_model_len, ...)"),
            ("number", "unit", "its value when it is a number"),
            ("text", "", "its value when it is text"),
            ("unit", "", "unit of the number; empty for text"),
            ("scope", "", "run or server"),
            ("file", "", "file it came from"),
        ],
    },
    FrameDoc {
        name: "trend",
        rows: "criterion and input of `analyze --trend` (written only with --trend)",
        columns: &[
            ("position", "", "the input's place in the trend (1 = first), as given or by start time"),
            INPUT,
            ("started", "", "when the run started, from a collector's manifest; empty when none says"),
            ("criterion", "", "the criterion's id"),
            ("unit", "", "unit of the value"),
            ("value", "", "the criterion's measured number for this input (the verdict's measured_value)"),
            ("status", "", "the criterion's status for this input; - when not judged"),
        ],
    },
];

pub fn doc(name: &str) -> Option<&'static FrameDoc> {
    FRAMES.iter().find(|f| f.name == name)
}

/// `schema.md`: each exported frame, its rows and its columns with units.
pub fn markdown(frames: &[Frame]) -> String {
    let mut s = String::from(
        "# Frames\n\nEvery frame is written as `<name>.parquet` and `<name>.csv`. Empty cells are missing values.\n",
    );
    for f in frames {
        s.push_str(&format!("\n## {}\n\n", f.name));
        let d = doc(&f.name);
        if let Some(d) = d {
            s.push_str(&format!(
                "One row per {}; {} rows here.\n\n",
                d.rows,
                f.df.height()
            ));
        }
        s.push_str("| column | type | unit | meaning |\n|---|---|---|---|\n");
        for c in f.df.columns() {
            let (unit, meaning) = d
                .and_then(|d| d.columns.iter().find(|(n, _, _)| *n == c.name().as_str()))
                .map_or(("", "(not described)"), |(_, u, m)| (*u, *m));
            s.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                c.name(),
                c.dtype(),
                unit,
                meaning
            ));
        }
    }
    s
}
