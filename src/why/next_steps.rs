//! What to check next when a criterion is not met, as data: each rule names the verdicts
//! it applies to (an id pattern with `*`, the statuses, words the verdict's note must
//! hold), the advice, and the procedure's text it is drawn from.

use crate::suites::SuiteReport;
use crate::verdict::{Status, Verdict};

use super::NextStep;

pub struct Rule {
    /// Verdict id, with `*` matching any run of characters and `|` between alternatives.
    pub id: &'static str,
    pub statuses: &'static [Status],
    /// Words the verdict's note must contain; empty for any note.
    pub note: &'static str,
    /// Words that, in the note, mean the rule's premise does not hold (the evidence says
    /// something else happened); empty for none.
    pub unless: &'static str,
    pub text: &'static str,
    pub source: &'static str,
}

const FAIL: &[Status] = &[Status::Fail];
const NOT_MET: &[Status] = &[Status::Fail, Status::Inconclusive, Status::NotComparable];
const INCONCLUSIVE: &[Status] = &[Status::Inconclusive];
const NOT_COMPARABLE: &[Status] = &[Status::NotComparable];

const KV_TEST1: &str = "AI Key-Value Caching, Test 1: long-context restore";
const KV_TEST2: &str = "AI Key-Value Caching, Test 2: pass criteria";
const KV_LADDER: &str = "AI Key-Value Caching, Test 2: run the concurrency ladder";
const KV_STARTUP: &str =
    "AI Key-Value Caching, Build it (start each variant once and check the GPU KV cache size)";
const KV_REFERENCE: &str = "AI Key-Value Caching, Reference setup";
const KV_REPORT: &str = "AI Key-Value Caching, Report the results";
const KV_TEST3: &str = "AI Key-Value Caching, Test 3: against a DRAM tier";
const ST_REFERENCE: &str = "Storage acceleration, Reference setup";
const ST_PREPARE: &str = "Storage acceleration, 1. Prepare the drives";
const ST_SHOWS: &str = "Storage acceleration, What this comparison shows";
const SPDK_RAID5F: &str = "raid5f vs Xinnor SPDK RAID, raid5f features (full-stripe writes only)";
const SPDK_DEGRADED: &str = "raid5f vs Xinnor SPDK RAID, Degraded operation";
const SPDK_XINNOR: &str =
    "raid5f vs Xinnor SPDK RAID, Xinnor SPDK RAID principles (90-95% of theoretical maximum)";
const DEVIATIONS: &str =
    "this report's Deviations from the procedure (the parameters the procedure fixes)";

pub const RULES: &[Rule] = &[
    // Test 1.
    Rule { id: "kv-restore.cached", statuses: FAIL, note: " 0 of ", unless: "prompt_tokens is null",
        text: "Was the gateway restarted or the card wiped between the cold request and the restores? Restart only vLLM (`docker compose restart vllm`): the gateway and card keep the cache, so any hit comes from the card.",
        source: KV_TEST1 },
    Rule { id: "kv-restore.cached", statuses: FAIL, note: " 0 of ", unless: "prompt_tokens is null",
        text: "Check the gateway log says the card is open and the ADP vLLM log shows `XKV: <N> cache tensors registered for exchange`.",
        source: KV_STARTUP },
    Rule { id: "kv-restore.cached", statuses: FAIL, note: " 0 of ", unless: "prompt_tokens is null",
        text: "Zero cached tokens after a restart: follow Operations & troubleshooting and Measuring the effect.",
        source: KV_REPORT },
    Rule { id: "kv-restore.cached", statuses: NOT_MET, note: "missed the cache", unless: " 0 of ",
        text: "Part of the prompt was restored but not 99%: hits are whole chunks of the connector (chunk_size in --kv-transfer-config), so a short prompt loses up to a chunk; check the prompt's length (the procedure's is about 196,000 tokens) and that the restores ran right after the restart.",
        source: KV_TEST1 },
    Rule { id: "kv-restore.time", statuses: NOT_MET, note: "", unless: "",
        text: "If the first run after a fresh start was slower while kernels compiled, repeat it once and use the second measurement.",
        source: KV_TEST1 },
    Rule { id: "kv-restore.time", statuses: NOT_MET, note: "", unless: "",
        text: "Compare the restore time with the link-bound floor under Physical limits: long-prompt restores are bounded by the slower of the network link and the SSDs.",
        source: KV_REFERENCE },
    Rule { id: "kv-restore.kv-cache-size", statuses: NOT_MET, note: "", unless: "",
        text: "Start both variants with the same image and GPU memory options (--gpu-memory-utilization, --max-model-len, --kv-cache-dtype) and compare their `GPU KV cache size` lines: unequal sizes make the test measure GPU memory, not the card.",
        source: KV_STARTUP },
    Rule { id: "kv-restore.connector", statuses: NOT_MET, note: "", unless: "creates the KV connector",
        text: "No connector registration line: check the ADP compose file carries --kv-transfer-config with FusIOnXConnector and that the gateway started first.",
        source: KV_STARTUP },
    Rule { id: "kv-restore.*", statuses: NOT_MET, note: "prompt_tokens is null", unless: "",
        text: "The requests failed instead of answering (prompt_tokens is null): check prompt_tokens on the first run and adjust LINES so the prompt stays below --max-model-len (the collector's --lines), then run the test again.",
        source: KV_TEST1 },
    Rule { id: "kv-restore.connector", statuses: NOT_MET, note: "creates the KV connector", unless: "",
        text: "Another KV connector than the product's ran: its restores are real but say nothing about the card; run the ADP variant with FusIOnXConnector and its gateway to judge the card.",
        source: KV_STARTUP },
    Rule { id: "kv-restore.plain-recomputes", statuses: FAIL, note: "", unless: "",
        text: "Plain vLLM reported cached tokens after a restart: check the gpu-only compose file has no --kv-transfer-config and no gateway, and that vLLM was restarted between requests.",
        source: KV_TEST1 },
    // Test 2.
    Rule { id: "kv-ladder.*", statuses: NOT_MET, note: "failed", unless: "",
        text: "Rerun the level whose run failed: every level must finish with num_failures=0 before its numbers count.",
        source: KV_TEST2 },
    Rule { id: "kv-ladder.failures", statuses: FAIL, note: "Max active conversations", unless: "",
        text: "`Max active conversations ... must be equal or less than the total number of conversations`: level.json's num_conversations was not 3 × clients; the ladder sets it with jq before each level.",
        source: KV_LADDER },
    Rule { id: "kv-ladder.failures", statuses: FAIL, note: "", unless: "",
        text: "Read the failed level's client log (results/<variant>-<run>-L<clients>.log) and the vLLM log at that time for timeouts or errors, then rerun the level.",
        source: KV_TEST2 },
    Rule { id: "kv-ladder.connector-on", statuses: NOT_MET, note: "", unless: "",
        text: "`External KV cache turned off on this rank`: the connector fell back to plain vLLM. Check the gateway was running and reachable (XKV_GATEWAY_HOSTNAME, port 5557) and the card open, then rerun the ladder.",
        source: KV_TEST2 },
    Rule { id: "kv-ladder.L*-advantage", statuses: FAIL, note: "", unless: "",
        text: "With ADP, card hits must replace the lost GPU hits: check the card hit rate (vllm:external_prefix_cache_hits_total between .pre.prom and .post.prom) at this level.",
        source: KV_TEST2 },
    Rule { id: "kv-ladder.L*-advantage", statuses: FAIL, note: "", unless: "",
        text: "Check that active histories exceed the GPU KV cache at this level (on the reference setup they fill it at 8 clients): a larger GPU cache leaves nothing for the card to do.",
        source: KV_LADDER },
    Rule { id: "kv-ladder.L*-parity", statuses: FAIL, note: "", unless: "",
        text: "At 1-4 clients both variants should be within 10%: check both ran the same image and vLLM options, with only the connector and gateway different.",
        source: "AI Key-Value Caching, What you reproduce" },
    Rule { id: "kv-ladder.*", statuses: INCONCLUSIVE, note: "", unless: "",
        text: "The runs disagree more than the allowed spread: run each variant at least twice more, alternating between them on a freshly started server.",
        source: KV_LADDER },
    // Test 3.
    Rule { id: "kv-dram.*", statuses: NOT_MET, note: "failed", unless: "",
        text: "A run of this level failed: rerun it (LEVELS=\"8 16 32\" ladder lmcache <run>) until it finishes with num_failures=0.",
        source: KV_TEST3 },
    Rule { id: "kv-dram.L*-gen", statuses: FAIL, note: "", unless: "",
        text: "Check the LMCache variant: LMCacheMPConnector with LMC_L1_GB=400, LMC_XKV_HOST=gateway and LMC_XKV_FRAG=131072, against the same gateway and card.",
        source: KV_TEST3 },
    Rule { id: "kv-dram.restores-hit", statuses: NOT_MET, note: "", unless: "",
        text: "Resetting the GPU prefix cache needs VLLM_SERVER_DEV_MODE=1: check /reset_prefix_cache returned success before each ask.",
        source: KV_TEST3 },
    // Storage.
    Rule { id: "storage.*", statuses: NOT_COMPARABLE, note: "runtime", unless: "",
        text: "Rerun the jobs with the procedure's --runtime (60 s, time-based): shorter runs reach no steady state and are not compared.",
        source: DEVIATIONS },
    Rule { id: "storage.*", statuses: FAIL, note: "", unless: "",
        text: "Look at Physical limits: when the member drives were busy (mean %util 90 or more) they, not the card, were the ceiling; with four drives of the reference class, the ceiling is the drives rather than the card.",
        source: ST_REFERENCE },
    Rule { id: "storage.*", statuses: FAIL, note: "", unless: "",
        text: "Discard all blocks on the four drives (blkdiscard) before building each array so both start from the same clean state, and precondition as the procedure does.",
        source: ST_PREPARE },
    Rule { id: "storage.*write*|storage.randrw*", statuses: FAIL, note: "", unless: "",
        text: "Write and mixed gains come from the card's inline compression and write aggregation: check the ADP array is the block (FSA) bundle in RAID5 and the jobs use 67% compressible buffers (buffer_compress_percentage=67).",
        source: ST_SHOWS },
    Rule { id: "storage.exit-status", statuses: NOT_MET, note: "", unless: "",
        text: "A job ended with an error: read its fio output (the error and any text before the JSON) and rerun that job.",
        source: "fio's JSON results (error per job)" },
    // SPDK.
    Rule { id: "spdk-raid.*.full-stripe-write", statuses: NOT_MET, note: "", unless: "",
        text: "raid5f supports only full-stripe writes: check the block size equals the stripe (448k on 8 drives, 960k on 16); sub-stripe and random writes need FTL.",
        source: SPDK_RAID5F },
    Rule { id: "spdk-raid.raid5f*.degraded", statuses: FAIL, note: "", unless: "it is down, not degraded",
        text: "The article (2023) found that raid5f stops all I/O after one drive is detached; SPDK has changed since (v26.05 keeps raid5f online with one member gone). Check the SPDK version and the degraded runs' errors before taking it as the procedure's finding.",
        source: SPDK_DEGRADED },
    Rule { id: "spdk-raid.*.degraded", statuses: FAIL, note: "it is down, not degraded", unless: "",
        text: "The array was down, not degraded: more members were missing than its level survives (or its state was not online). Remove exactly one member (bdev_nvme_detach_controller), check bdev_raid_get_bdevs shows it online with one member fewer, then run the degraded jobs.",
        source: SPDK_DEGRADED },
    Rule { id: "spdk-raid.*", statuses: NOT_MET, note: "", unless: "",
        text: "Compare with the raw drives (spdk/raw-<drives>/) and the theoretical maximum in the tables: the procedure's arrays reach 90-95% of it; check the job count and queue depth are the procedure's.",
        source: SPDK_XINNOR },
];

/// Generic advice when no rule above matched a verdict, by status.
const FALLBACK: &[(Status, &str, &str)] = &[
    (Status::NotComparable, "Rerun with the procedure's parameters: the Deviations table lists each parameter that differs and the files that show it.", DEVIATIONS),
    (Status::Inconclusive, "Run more repetitions with the procedure's parameters: the files hold too little, or too scattered, evidence to judge.", DEVIATIONS),
    (Status::Fail, "Compare your setup with the reference setup (Conformance): each row that differs predicts how the numbers move.", "the procedures' Reference setup tables"),
];

/// Whether `pattern` (`*` matching any run, `|` between alternatives) matches `s`.
pub fn matches(pattern: &str, s: &str) -> bool {
    pattern.split('|').any(|p| matches_one(p, s))
}

fn matches_one(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let mut rest = s;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(p) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(p);
        } else {
            match rest.find(p) {
                Some(at) => rest = &rest[at + p.len()..],
                None => return false,
            }
        }
    }
    true
}

/// The advice for one verdict; empty for a pass or a criterion not measured.
pub fn for_verdict(v: &Verdict) -> Vec<NextStep> {
    if !matches!(
        v.status,
        Status::Fail | Status::Inconclusive | Status::NotComparable
    ) {
        return Vec::new();
    }
    let mut out: Vec<NextStep> = Vec::new();
    for r in RULES {
        if matches(r.id, &v.id)
            && r.statuses.contains(&v.status)
            && (r.note.is_empty() || v.note.contains(r.note))
            && (r.unless.is_empty() || !v.note.contains(r.unless))
        {
            let step = NextStep {
                text: r.text.to_string(),
                source: r.source.to_string(),
            };
            if !out.contains(&step) {
                out.push(step);
            }
        }
    }
    if out.is_empty() {
        if let Some((_, text, source)) = FALLBACK.iter().find(|(s, _, _)| *s == v.status) {
            out.push(NextStep {
                text: text.to_string(),
                source: source.to_string(),
            });
        }
    }
    out
}

/// Sets every verdict's `check_next`.
pub fn attach(reports: &mut [SuiteReport]) {
    for r in reports {
        for v in &mut r.verdicts {
            v.check_next = for_verdict(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_ids() {
        assert!(matches("kv-ladder.L*-advantage", "kv-ladder.L16-advantage"));
        assert!(!matches("kv-ladder.L*-advantage", "kv-ladder.L16-parity"));
        assert!(matches("storage.*write*", "storage.randwrite-8k-qd64"));
        assert!(matches(
            "spdk-raid.*.degraded",
            "spdk-raid.raid5f-8.degraded"
        ));
        assert!(matches("kv-restore.cached", "kv-restore.cached"));
        assert!(!matches("kv-restore.cached", "kv-restore.cached2"));
    }

    #[test]
    fn every_rule_names_its_source_and_passes_get_nothing() {
        for r in RULES {
            assert!(!r.source.is_empty() && !r.text.is_empty(), "{}", r.id);
        }
        let mut v = Verdict::new("kv-restore.cached", "c", "t", "p");
        v.status = Status::Pass;
        assert!(for_verdict(&v).is_empty());
        v.status = Status::Fail;
        // Nothing cached after a restart: the three rules about a lost cache.
        v.note = "restores that missed the cache: line 2: 0 of 196531 cached".into();
        assert_eq!(for_verdict(&v).len(), 3);
        // Most of it cached: whole-chunk rounding, not a lost cache.
        v.note = "restores that missed the cache: line 2: 5888 of 5985 cached".into();
        let partial = for_verdict(&v);
        assert_eq!(partial.len(), 1, "{partial:?}");
        assert!(partial[0].text.contains("whole chunks"));
        let mut other = Verdict::new("new-suite.x", "c", "t", "p");
        other.status = Status::Inconclusive;
        assert_eq!(
            for_verdict(&other).len(),
            1,
            "a fallback when no rule matches"
        );
    }
}
