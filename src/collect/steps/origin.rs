//! Where each step's command comes from: a line of the procedure, quoted as the procedure
//! writes it (so a reader finds it there), or reprobench itself, with why. Every step has
//! one (`Step::new` takes it), and a dry run prints it above the command, with each way
//! the command differs from the procedure's line and what that changes.

/// The procedure's own command, or the tool's.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// A line of the procedure: the section it stands in and the line as written.
    Procedure {
        section: &'static str,
        line: &'static str,
    },
    /// reprobench's own step, and why it takes it.
    Tool(String),
}

impl Origin {
    pub fn procedure(section: &'static str, line: &'static str) -> Origin {
        Origin::Procedure { section, line }
    }

    pub fn tool(why: impl Into<String>) -> Origin {
        Origin::Tool(why.into())
    }

    /// The comment line a dry run prints for it.
    pub fn describe(&self) -> String {
        match self {
            Origin::Procedure { section, line } => {
                let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
                if section.ends_with(line.as_str()) {
                    format!("the procedure's: {section}")
                } else {
                    format!("the procedure's ({section}): {line}")
                }
            }
            Origin::Tool(why) => format!("reprobench's own: {why}"),
        }
    }
}

/// The procedures' sections and lines the collectors quote. Each line is as the procedure
/// writes it (runs of spaces aside); a test finds every quoted line in the procedure texts.
pub mod lines {
    pub const STORAGE_PREPARE: &str = "Storage acceleration, 1. Prepare the drives";
    pub const STORAGE_RAID10: &str = "Storage acceleration, 2. Test Linux software RAID10";
    pub const STORAGE_SWITCH: &str = "Storage acceleration, 3. Switch to the ADP block bundle";
    pub const STORAGE_RUN: &str = "Storage acceleration, 4. Run fio";
    pub const STORAGE_REPORT: &str = "Storage acceleration, Report the storage results";
    pub const KV_BUILD: &str = "AI Key-Value Caching, Build it";
    pub const KV_TEST1: &str = "AI Key-Value Caching, Test 1: long-context restore";
    pub const KV_TEST2: &str = "AI Key-Value Caching, Test 2: multi-turn agent load";
    pub const KV_TEST3: &str = "AI Key-Value Caching, Test 3: against a DRAM tier (optional)";
    pub const KV_REPORT: &str = "AI Key-Value Caching, Report the results";
    pub const SPDK_SMALL: &str = "raid5f vs Xinnor SPDK RAID, Small IO fio config file";
    pub const SPDK_FULL: &str = "raid5f vs Xinnor SPDK RAID, Full stripe IO fio config file";
    pub const SPDK_DEGRADED: &str = "raid5f vs Xinnor SPDK RAID, Degraded operation";
    pub const SPDK_TABLES: &str = "raid5f vs Xinnor SPDK RAID, SPDK performance";

    pub const BLKDISCARD: &str = "sudo blkdiscard /dev/nvme0n1";
    pub const MDADM_CREATE: &str =
        "sudo mdadm --create --verbose /dev/md126 --level=10 --raid-devices=4";
    pub const MDSTAT: &str = "cat /proc/mdstat";
    pub const SYSTEMCTL: &str = "systemctl is-active pliostore@1";
    pub const GET_STATUS: &str =
        "pliocli system get_status            # Aggregated status is OK; RAID reports RAID5";
    pub const RAID_INFO: &str = "pliocli raid get_raid_info -x 1";
    pub const MDADM_STOP: &str = "sudo mdadm --stop /dev/md126";
    pub const MDADM_ZERO: &str =
        "sudo mdadm --zero-superblock /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1";
    pub const STORAGE_SENT: &str = "nvme list, cat /proc/mdstat (for RAID10), and pliocli system get_status plus pliocli raid get_raid_info -x 1 (for ADP).";
    pub const KV_SENT: &str = "from the storage server: pliocli system get_status and pliocli system get_disk_usage -x 0; from the GPU server: nvme list-subsys and ib_read_bw output (check the fabric).";
    pub const KV_LOGS: &str = "the GPU KV cache size startup line from both variants, plus the connector startup lines and gateway log from the ADP variant;";
    pub const KV_COMPOSE: &str = "both compose files;";
    pub const SWEEP: &str = "The rest of the 63-run suite sweeps block sizes (8k, 16k, 1m) and queue depths (numjobs × iodepth from 1 to 1024; single-job QD 1 runs use --ioengine=sync).";
    /// The procedure's `run` lines: the precondition and the five headline runs.
    pub const RUNS: [&str; 6] = [
        "run precondition --readwrite=write --bs=128k --numjobs=8 --iodepth=8 --size=1g --runtime=60",
        "run randread-8k-j32-d32  --readwrite=randread  --bs=8k  --numjobs=32  --iodepth=32 --size=3800000000000 --runtime=60",
        "run randrw-8k-j128-d8    --readwrite=randrw    --bs=8k  --numjobs=128 --iodepth=8  --rwmixread=70 --size=3800000000000 --runtime=60",
        "run randwrite-8k-j8-d8   --readwrite=randwrite --bs=8k  --numjobs=8   --iodepth=8  --size=3800000000000 --runtime=60",
        "run read-1m-j8-d4        --readwrite=read      --bs=1m  --numjobs=8   --iodepth=4  --size=3800000000000 --runtime=60",
        "run write-1m-j8-d4       --readwrite=write     --bs=1m  --numjobs=8   --iodepth=4  --size=3800000000000 --runtime=60",
    ];
    pub const UP_PLAIN: &str = "cd ~/bench/gpu-only && docker compose up -d && ready";
    pub const UP_ADP: &str = "cd ~/bench/adp && docker compose up -d && ready";
    pub const READY: &str =
        "ready() {                # waits for health check, then sends one short warmup request";
    pub const NEW_PROMPT: &str =
        "new_prompt() {           # generates a fresh prompt with a unique run tag";
    pub const ASK: &str =
        "ask() {                  # prints response time, prompt length, and cached tokens";
    pub const RESTART: &str = "docker compose restart vllm && ready";
    pub const REPEAT_SLOW_FIRST: &str = "If the first run after a fresh start is slower while kernels compile and tune, repeat it once and use the second measurement.";
    pub const DOWN: &str = "docker compose down";
    pub const RESET: &str = "until [ \"$(curl -s -X POST \"$URL/reset_prefix_cache\" | jq .success)\" = true ]; do sleep 1; done";
    pub const LADDER: &str =
        "ladder() {               # usage: ladder <variant> <run>, e.g. ladder adp 1";
    pub const SMALL_IO: &str = "Small IO fio config file";
    pub const FULL_STRIPE: &str = "Full stripe IO fio config file";
    pub const QD1_ROW: &str = "| 8k Rand Read, 1 Job QD1 |";
    pub const DETACH: &str = "\"method\": \"bdev_nvme_detach_controller\",";
}

/// The `--key=value` options of `ours` that differ from `procedure`'s, each with what the
/// difference changes: another value, an option added, an option left out.
pub fn option_differences(ours: &[String], procedure: &[&str]) -> Vec<String> {
    let key = |o: &str| {
        o.split_once('=')
            .map_or(o.to_string(), |(k, _)| k.to_string())
    };
    let mut out = Vec::new();
    for o in ours {
        if procedure.contains(&o.as_str()) {
            continue;
        }
        let k = key(o);
        match procedure.iter().find(|p| key(p) == k) {
            Some(p) => out.push(format!("{o} instead of {p}: {}", effect(&k))),
            None => out.push(format!("{o} added: {}", effect(&k))),
        }
    }
    for p in procedure {
        let k = key(p);
        if !ours.iter().any(|o| key(o) == k) {
            out.push(format!("{p} left out: {}", effect(&k)));
        }
    }
    out
}

/// What another value of a fio option changes in the comparison.
fn effect(key: &str) -> &'static str {
    match key {
        "--size" => "fio works over another span of the device; over a smaller one, caches and fresh blocks weigh more than over the procedure's (the analysis lists the run's size)",
        "--runtime" => "another run length; a shorter run may not reach the steady state the published numbers come from (the analysis says so for the run)",
        "--time_based" => "fio keeps going over the span until the runtime ends, where it would stop at the span's end on a small device",
        "--ioengine" => "another I/O engine submits I/O another way: latency and queue depth differ",
        _ => "the job measures another workload than the procedure's line",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_name_the_option_the_value_and_the_effect() {
        let ours: Vec<String> = ["--bs=8k", "--size=8m", "--time_based=1"]
            .map(String::from)
            .to_vec();
        let d = option_differences(&ours, &["--bs=8k", "--size=3800000000000", "--runtime=60"]);
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(d[0].starts_with("--size=8m instead of --size=3800000000000: fio works"));
        assert!(d[1].starts_with("--time_based=1 added: "));
        assert!(d[2].starts_with("--runtime=60 left out: "));
        assert!(option_differences(&["--bs=8k".into()], &["--bs=8k"]).is_empty());
    }

    #[test]
    fn a_quoted_line_is_printed_with_single_spaces() {
        let o = Origin::procedure(lines::STORAGE_RUN, lines::RUNS[1]);
        assert_eq!(
            o.describe(),
            "the procedure's (Storage acceleration, 4. Run fio): run randread-8k-j32-d32 --readwrite=randread --bs=8k --numjobs=32 --iodepth=32 --size=3800000000000 --runtime=60"
        );
    }
}
