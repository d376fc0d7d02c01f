//! What the snapshots say, added to a verdict: its note, its files, and a status not
//! comparable where the GPU prefix cache served a restore.

use super::{Checked, Source};
use crate::model::verdict::{Status, Verdict};

/// Adds what the snapshots say to a verdict that reads the restores: a restore the GPU
/// prefix cache served makes it not comparable (the prompt was still in GPU memory: the
/// card was not tested); without snapshots it says the origin was not checked.
/// `store` names what the connector restores from ("the card"; LMCache's connector
/// serves its DRAM tier and the card alike).
pub fn apply(v: &mut Verdict, checked: &[Checked], store: &str) {
    if checked.is_empty() {
        return;
    }
    let several = checked
        .iter()
        .any(|c| c.transcript != checked[0].transcript);
    let Sources {
        gpu,
        unaccounted,
        not_checked,
        card,
        unchecked,
    } = sources(checked, several);
    let lines_word = |n: usize| if several || n != 1 { "s" } else { "" };
    let mut note = Vec::new();
    if !gpu.is_empty() {
        note.push(format!(
            "hits came from the GPU prefix cache, not {store} ({}): the prompt was still in GPU memory, so the restore did not test {store}",
            gpu.join("; ")
        ));
        if matches!(v.status, Status::Pass | Status::Fail) {
            v.status = Status::NotComparable;
        }
    }
    if !unaccounted.is_empty() {
        note.push(format!(
            "where the hits came from is unknown ({})",
            unaccounted.join("; ")
        ));
    }
    if !card.is_empty() {
        note.push(format!(
            "restored from {store} at {}{} {}: the connector's hits equal the cached tokens and the GPU prefix cache hit nothing between the ask's /metrics snapshots",
            if several { "" } else { "line" },
            if several { "".to_string() } else { lines_word(card.len()).to_string() },
            card.join(", ")
        ));
    }
    if !not_checked.is_empty() {
        note.push(format!(
            "where the hits came from was not checked ({})",
            not_checked.join("; ")
        ));
    }
    let none_at_all = checked
        .iter()
        .all(|c| c.source == Source::NotChecked("no snapshots".into()));
    if !unchecked.is_empty() {
        note.push(if none_at_all {
            "where the hits came from was not checked: no /metrics snapshots around the asks (`<transcript>.ask<k>.pre.prom` and `.post.prom`; the procedure takes none, `collect kv-restore` does)".to_string()
        } else {
            format!(
                "where the hits came from was not checked at {}{} {} (no snapshots)",
                if several { "" } else { "line" },
                if several { "".to_string() } else { lines_word(unchecked.len()).to_string() },
                unchecked.join(", ")
            )
        });
    }
    for c in checked {
        v.files.extend(c.files.iter().cloned());
    }
    v.note = crate::model::phrase::Phrase::joined(
        [
            v.note.clone(),
            crate::model::phrase::Phrase::words(note.join("; ")),
        ],
        "; ",
    );
}

/// The restores by where their hits came from, each named by its line (and transcript,
/// with `several`).
struct Sources {
    gpu: Vec<String>,
    unaccounted: Vec<String>,
    not_checked: Vec<String>,
    card: Vec<String>,
    unchecked: Vec<String>,
}

fn sources(checked: &[Checked], several: bool) -> Sources {
    let at = |c: &Checked| {
        if several {
            format!("`{}` line {}", c.transcript, c.line)
        } else {
            format!("line {}", c.line)
        }
    };
    let listed = |f: &dyn Fn(&Source) -> bool| -> Vec<String> {
        checked
            .iter()
            .filter(|c| f(&c.source))
            .map(|c| if several { at(c) } else { c.line.to_string() })
            .collect()
    };
    let gpu: Vec<String> = checked
        .iter()
        .filter_map(|c| match c.source {
            Source::Gpu { local, external } => Some(
                crate::phrase!(
                    "{}: {} tokens from the GPU prefix cache, {} from the connector",
                    crate::model::phrase::name(at(c)),
                    crate::model::phrase::printed(local, 0),
                    crate::model::phrase::printed(external, 0)
                )
                .to_string(),
            ),
            _ => None,
        })
        .collect();
    let unaccounted: Vec<String> = checked
        .iter()
        .filter_map(|c| match &c.source {
            Source::Unaccounted(why) => Some(format!("{}: {why}", at(c))),
            _ => None,
        })
        .collect();
    let not_checked: Vec<String> = checked
        .iter()
        .filter_map(|c| match &c.source {
            Source::NotChecked(why) if why != "no snapshots" => Some(format!("{}: {why}", at(c))),
            _ => None,
        })
        .collect();
    let card = listed(&|s| matches!(s, Source::Card { .. }));
    let unchecked = listed(&|s| *s == Source::NotChecked("no snapshots".into()));
    Sources {
        gpu,
        unaccounted,
        not_checked,
        card,
        unchecked,
    }
}

/// For the restore time: only restores the GPU prefix cache served change it (their time
/// is not the card's).
pub fn apply_to_time(v: &mut Verdict, checked: &[Checked], store: &str) {
    let gpu: Vec<Checked> = checked
        .iter()
        .filter(|c| matches!(c.source, Source::Gpu { .. }))
        .cloned()
        .collect();
    apply(v, &gpu, store);
}
