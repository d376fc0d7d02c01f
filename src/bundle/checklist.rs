//! What the procedures' "Report the results" sections ask support to receive, checked
//! against a folder: present or missing, and where.

use serde::Serialize;

use crate::analysis::Analysis;
use crate::ingest::walk::Folder;
use crate::suites::kv_common::ladder::split_level;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub procedure: &'static str,
    pub what: &'static str,
    pub present: bool,
    pub found: Vec<String>,
    /// Where to put it when missing.
    pub hint: &'static str,
}

fn norm(s: &str) -> String {
    s.to_ascii_lowercase().replace(['_', ' '], "-")
}

fn files_where(folder: &Folder, f: impl Fn(&str, &str) -> bool) -> Vec<String> {
    folder
        .files
        .iter()
        .filter(|e| f(&e.rel, &norm(e.file_name())))
        .map(|e| e.rel.clone())
        .collect()
}

fn fact_sources(a: &Analysis, name: &str) -> Vec<String> {
    a.environment
        .iter()
        .filter(|f| f.name == name)
        .map(|f| f.source.clone())
        .collect()
}

fn item(
    procedure: &'static str,
    what: &'static str,
    found: Vec<String>,
    hint: &'static str,
) -> Item {
    Item {
        procedure,
        what,
        present: !found.is_empty(),
        found,
        hint,
    }
}

/// A system command's saved output: what it is, a key its file name contains (after
/// lowercasing and `_` -> `-`), a key it must not contain, and where to save it.
type SystemOutput = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
);

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

const STORAGE_SYSTEM: &[SystemOutput] = &[
    (
        "nvme list",
        "nvme-list",
        Some("subsys"),
        "system/nvme-list.txt",
    ),
    (
        "cat /proc/mdstat (RAID10)",
        "mdstat",
        None,
        "system/mdstat.txt",
    ),
    (
        "pliocli system get_status (ADP)",
        "get-status",
        None,
        "system/pliocli-system-get_status.txt",
    ),
    (
        "pliocli raid get_raid_info -x 1 (ADP)",
        "get-raid-info",
        None,
        "system/pliocli-raid-get_raid_info.txt",
    ),
];

fn system_outputs(folder: &Folder, procedure: &'static str, list: &[SystemOutput]) -> Vec<Item> {
    list.iter()
        .map(|&(what, key, not, hint)| {
            let found = files_where(folder, |_, n| {
                n.contains(key) && not.is_none_or(|x| !n.contains(x))
            });
            item(procedure, what, found, hint)
        })
        .collect()
}

const KV: &str = "AI Key-Value Caching";
const ST: &str = "Storage acceleration";

pub fn checklist(folder: &Folder, a: &Analysis) -> Vec<Item> {
    let suites: Vec<&str> = a.suites.iter().map(|s| s.name).collect();
    let kv = suites.iter().any(|s| s.starts_with("kv-"));
    let storage = suites.contains(&"storage");
    let mut out = Vec::new();
    if kv {
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
        let both = compose.iter().any(|c| c.contains("adp"))
            && compose.iter().any(|c| c.contains("gpu-only"));
        out.push(Item {
            procedure: KV,
            what: "both compose files",
            present: both,
            found: compose,
            hint: "compose/adp/compose.yaml and compose/gpu-only/compose.yaml",
        });
        let mut kv_lines = fact_sources(a, "adp: GPU KV cache size line");
        let plain = fact_sources(a, "gpu-only: GPU KV cache size line");
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
            fact_sources(a, "adp: connector startup line"),
            "logs/adp-vllm.log with `XKV: N cache tensors registered`",
        ));
        out.push(item(
            KV,
            "the gateway log from the ADP variant",
            fact_sources(a, "gateway log"),
            "logs/adp-gateway.log (docker compose logs gateway)",
        ));
        out.extend(system_outputs(folder, KV, KV_SYSTEM));
    }
    if storage {
        for (what, array, hint) in [
            (
                "results/raid10 with JSON and iostat files",
                "raid10",
                "results/raid10/<job>.json and results/raid10/iostat/<job>.iostat",
            ),
            (
                "results/adp with JSON and iostat files",
                "adp",
                "results/adp/<job>.json and results/adp/iostat/<job>.iostat",
            ),
        ] {
            let json = files_where(folder, |rel, _| {
                rel.ends_with(".json") && rel.rsplit('/').nth(1) == Some(array)
            });
            let iostat = files_where(folder, |rel, _| {
                rel.ends_with(".iostat") && rel.rsplit('/').nth(2) == Some(array)
            });
            let present = !json.is_empty() && !iostat.is_empty();
            let mut found = json;
            found.extend(iostat);
            out.push(Item {
                procedure: ST,
                what,
                present,
                found,
                hint,
            });
        }
        // The commands as they ran, rebuilt from what each fio JSON records: present
        // only when every run of both arrays records its options.
        let ran: Vec<&crate::suites::RanCommand> = a
            .suites
            .iter()
            .filter(|s| s.name == "storage")
            .flat_map(|s| &s.commands_ran)
            .collect();
        let side = |array: &str| {
            let mine: Vec<_> = ran
                .iter()
                .filter(|c| c.subject.starts_with(&format!("{array}/")))
                .collect();
            !mine.is_empty() && mine.iter().all(|c| c.command.starts_with("fio "))
        };
        // Or as the collector recorded them: its manifest holds every step's commands.
        let recorded = |array: &str| -> Option<String> {
            let name = format!("storage-{array}.json");
            folder
                .files
                .iter()
                .filter(|e| e.rel.ends_with(&format!("manifests/{name}")))
                .find(|e| {
                    std::fs::read(&e.path)
                        .ok()
                        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                        .is_some_and(|m| {
                            m["steps"].as_array().is_some_and(|steps| {
                                steps.iter().any(|s| {
                                    s["expanded"].as_str().is_some_and(|x| {
                                        x.contains("fio ") && x.contains("--filename=")
                                    })
                                })
                            })
                        })
                })
                .map(|e| e.rel.clone())
        };
        let mut found: Vec<String> = ran.iter().take(2).map(|c| c.source.clone()).collect();
        let by_manifest: Vec<String> = ["raid10", "adp"]
            .iter()
            .filter_map(|a| recorded(a))
            .collect();
        let present = ["raid10", "adp"]
            .iter()
            .all(|a| side(a) || recorded(a).is_some());
        found.extend(by_manifest);
        out.push(Item {
            procedure: ST,
            what: "the run commands and DEV paths (each collector manifest's recorded commands, or rebuilt from the options each fio JSON records)",
            present,
            found,
            hint: "fio JSON written with the procedure's helper records every option and the DEV path; files without `global options` do not",
        });
        out.extend(system_outputs(folder, ST, STORAGE_SYSTEM));
    }
    out
}

/// The checklist as Markdown, for CHECKLIST.md and the terminal.
pub fn markdown(items: &[Item]) -> String {
    let mut s = String::from("# What support asked for\n\nFrom the procedures' \"Report the results\" sections.\n\n| | procedure | item | found |\n|---|---|---|---|\n");
    for i in items {
        let found = if i.present {
            i.found
                .iter()
                .take(3)
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ")
                + if i.found.len() > 3 { " …" } else { "" }
        } else {
            format!("missing: add {}", i.hint)
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            if i.present { "present" } else { "MISSING" },
            i.procedure,
            i.what,
            found
        ));
    }
    s
}
