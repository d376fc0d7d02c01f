//! `reprobench dataset add|list|compact`: campaigns into a Parquet dataset, what it
//! holds, and its files merged.

use crate::cli::{DatasetAddArgs, DatasetCommand, DatasetCompactArgs, DatasetListArgs, Format};
use crate::dataset::{self, AddOptions, Outcome};

use super::{options, UNUSABLE};

pub fn run(cmd: &DatasetCommand) -> anyhow::Result<i32> {
    match cmd {
        DatasetCommand::Add(a) => add(a),
        DatasetCommand::List(a) => list(a),
        DatasetCommand::Compact(a) => compact(a),
    }
}

fn compact(args: &DatasetCompactArgs) -> anyhow::Result<i32> {
    let c = match dataset::compact::compact(&args.dataset) {
        Ok(c) => c,
        Err(e) => {
            crate::errln!("error: {e:#}");
            crate::errln!("note: `{}` is as it was", args.dataset.display());
            return Ok(UNUSABLE);
        }
    };
    let shown = args.dataset.display();
    if c.unchanged {
        crate::outln!(
            "{shown}: already compact ({} campaigns in {} files): unchanged",
            c.campaigns,
            c.files_before
        );
    } else {
        let from = if c.from_major == crate::schema::dataset::MAJOR {
            String::new()
        } else {
            format!(
                ", rewritten from schema {} to {}",
                c.from_major,
                crate::schema::dataset::VERSION
            )
        };
        crate::outln!(
            "{shown}: {} campaigns compacted from {} files to {}{from}",
            c.campaigns,
            c.files_before,
            c.files_after
        );
    }
    Ok(0)
}

fn add(args: &DatasetAddArgs) -> anyhow::Result<i32> {
    for input in &args.inputs {
        if let Err(why) = super::outside_input(input, &args.dataset) {
            crate::errln!("error: {why}");
            return Ok(UNUSABLE);
        }
    }
    let opts = AddOptions {
        judging: options(&args.judging),
        pseudonymize: args.pseudonymize,
        hosts: args.hosts.clone(),
        name: args.name.clone(),
    };
    let added = match dataset::add(&args.dataset, &args.inputs, &opts) {
        Ok(a) => a,
        Err(e) => {
            // Nothing was changed: the add is one atomic change.
            crate::errln!("error: {e:#}");
            crate::errln!(
                "note: `{}` is as it was before this add",
                args.dataset.display()
            );
            return Ok(UNUSABLE);
        }
    };
    for a in &added {
        let what = match &a.outcome {
            Outcome::Added => "added".to_string(),
            Outcome::Unchanged => "unchanged (already in the dataset)".to_string(),
            Outcome::Replaced(old) => format!("replaced campaign {}", short(old)),
        };
        crate::outln!(
            "{}: campaign {} `{}` ({}): {what}",
            a.input.display(),
            short(&a.id),
            a.name,
            a.suites.join(", ")
        );
    }
    Ok(0)
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

fn list(args: &DatasetListArgs) -> anyhow::Result<i32> {
    let Some((root, sel)) = dataset::read::parse(&args.dataset) else {
        crate::errln!(
            "error: `{}` is not a dataset (no _schema.json)",
            args.dataset.display()
        );
        return Ok(UNUSABLE);
    };
    let rows = match dataset::read::select(&root, &sel) {
        Ok(r) => r,
        Err(e) => {
            crate::errln!("error: {e:#}");
            return Ok(UNUSABLE);
        }
    };
    if args.format == Format::Json {
        // The whole id (the table shortens it), and `started` as null when no manifest
        // gave one.
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(id, e)| {
                serde_json::json!({
                    "id": id,
                    "name": e.name,
                    "started": e.started,
                    "suites": e.suites,
                })
            })
            .collect();
        crate::outln!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(0);
    }
    let columns: Vec<String> = ["campaign", "name", "started", "suites"]
        .map(String::from)
        .to_vec();
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|(id, e)| {
            vec![
                short(id).to_string(),
                e.name.clone(),
                e.started.clone().unwrap_or_else(|| "-".into()),
                e.suites.join(", "),
            ]
        })
        .collect();
    crate::out!("{}", crate::render::terminal::aligned(&columns, &table));
    Ok(0)
}
