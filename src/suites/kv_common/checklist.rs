//! What the KV procedure's "Report the results" asks support to receive.

use crate::checklist::{fact_sources, files_where, item, system_outputs, Item, SystemOutput};
use crate::ingest::walk::Folder;
use crate::suites::kv_common::ladder::split_level;
use crate::suites::Fact;

const KV: &str = "AI Key-Value Caching";

const KV_SYSTEM: &[SystemOutput] = &[
    (
        "pliocli system get_status (storage server)",
        "get-status",
        None,
        "system/pliocli-system-get_status.txt",
    ),
    (
        "pliocli system get_disk_usage -x 0 (storage server)",
        "get-disk-usage",
        None,
        "system/pliocli-system-get_disk_usage.txt",
    ),
    (
        "nvme list-subsys (GPU server)",
        "list-subsys",
        None,
        "system/nvme-list-subsys.txt",
    ),
    (
        "ib_read_bw output (check the fabric)",
        "ib-read-bw",
        None,
        "system/ib_read_bw.txt",
    ),
];

/// The items, checked against the folder and the environment the analysis read.
pub fn checklist(folder: &Folder, environment: &[Fact]) -> Vec<Item> {
    let mut out = Vec::new();
    out.push(item(
        KV,
        "the results directory from test 2",
        files_where(folder, |rel, _| {
            rel.strip_suffix(".json").and_then(split_level).is_some()
        }),
        "results/<variant>-<run>-L<clients>.json/.log/.pre.prom/.post.prom",
    ));
    out.push(item(
        KV,
        "the output of test 1",
        files_where(folder, |rel, _| {
            rel.split('/').rev().skip(1).any(|c| c == "restore")
        }),
        "restore/adp.txt and restore/gpu-only.txt",
    ));
    let compose = files_where(folder, |_, n| {
        matches!(
            n,
            "compose.yaml" | "compose.yml" | "docker-compose.yaml" | "docker-compose.yml"
        )
    });
    let both =
        compose.iter().any(|c| c.contains("adp")) && compose.iter().any(|c| c.contains("gpu-only"));
    out.push(Item {
        procedure: KV,
        what: "both compose files",
        present: both,
        found: compose,
        hint: "compose/adp/compose.yaml and compose/gpu-only/compose.yaml",
    });
    let mut kv_lines = fact_sources(environment, "adp: GPU KV cache size line");
    let plain = fact_sources(environment, "gpu-only: GPU KV cache size line");
    let both_lines = !kv_lines.is_empty() && !plain.is_empty();
    kv_lines.extend(plain);
    out.push(Item {
        procedure: KV,
        what: "the GPU KV cache size startup line from both variants",
        present: both_lines,
        found: kv_lines,
        hint: "logs/adp-vllm.log and logs/gpu-only-vllm.log (docker compose logs vllm)",
    });
    out.push(item(
        KV,
        "the connector startup lines from the ADP variant",
        fact_sources(environment, "adp: connector startup line"),
        "logs/adp-vllm.log with `XKV: N cache tensors registered`",
    ));
    out.push(item(
        KV,
        "the gateway log from the ADP variant",
        fact_sources(environment, "gateway log"),
        "logs/adp-gateway.log (docker compose logs gateway)",
    ));
    out.extend(system_outputs(folder, KV, KV_SYSTEM));
    out
}
