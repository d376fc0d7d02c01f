//! What the storage procedure's "Report the results" asks support to receive.

use crate::checklist::{files_where, system_outputs, Item, SystemOutput};
use crate::ingest::walk::Folder;
use crate::suites::SuiteReport;

const ST: &str = "Storage acceleration";

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

/// The collector's manifest of `array` (`manifests/storage-<array>.json`) when it
/// records the fio commands it ran with their device (`--filename=`).
fn recorded_commands(folder: &Folder, array: &str) -> Option<String> {
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
                            s["expanded"]
                                .as_str()
                                .is_some_and(|x| x.contains("fio ") && x.contains("--filename="))
                        })
                    })
                })
        })
        .map(|e| e.rel.clone())
}

/// The items, checked against the folder and the suite's report (the commands it rebuilt).
pub fn checklist(folder: &Folder, report: &SuiteReport) -> Vec<Item> {
    let mut out = Vec::new();
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
    let ran: Vec<&crate::suites::RanCommand> = report.commands_ran.iter().collect();
    let side = |array: &str| {
        let mine: Vec<_> = ran
            .iter()
            .filter(|c| c.subject.starts_with(&format!("{array}/")))
            .collect();
        !mine.is_empty() && mine.iter().all(|c| c.command.starts_with("fio "))
    };
    // Or as the collector recorded them: its manifest holds every step's commands.
    let recorded = |array: &str| recorded_commands(folder, array);
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
    out
}
