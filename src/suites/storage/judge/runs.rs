//! Which runs stand for the procedure's workload: by the job's name or its shape, in
//! which result tree, and which of them are pooled as repeats.

use crate::fio::signature::{parse_size, Signature};
use crate::suites::storage::load::RunGroup;
use crate::suites::storage::reference::Workload;

use super::notes::join;
use super::Sides;

/// The run of `array` that is the procedure's `w` (the first of [`find_runs`]), and a
/// note when the choice needs saying.
pub fn find_workload<'a>(
    groups: &'a [RunGroup<'a>],
    array: &str,
    w: &Workload,
) -> (Option<&'a RunGroup<'a>>, String) {
    let (runs, note) = find_runs(groups, array, w, None);
    (runs.first().copied(), note)
}

/// The result tree a run stands in: the folder above its array's folder.
fn tree_of(g: &RunGroup) -> String {
    let dir = crate::ingest::layout::dir_of(&g.run.file);
    crate::ingest::layout::dir_of(dir).to_string()
}

/// The result tree both sides are judged from: the first that holds runs of `w` for both
/// arrays, else the first that holds any (None when neither side has a run).
pub(super) fn common_tree(groups: &[RunGroup], sides: &Sides, w: &Workload) -> Option<String> {
    let trees = |array: &str| -> Vec<String> {
        let (runs, _) = candidates(groups, array, w);
        let mut t: Vec<String> = runs.iter().map(|g| tree_of(g)).collect();
        t.sort();
        t.dedup();
        t
    };
    let (b, c) = (trees(&sides.baseline), trees(&sides.candidate));
    b.iter()
        .find(|t| c.contains(t))
        .or(b.first())
        .or(c.first())
        .cloned()
}

/// The runs of `array` that may be the procedure's `w`, in every tree: by the job's
/// name (its own file and its numbered repeats; of a file with several groups, the one
/// named for the job, else its first), else by shape; and the note on how they matched.
fn candidates<'a>(
    groups: &'a [RunGroup<'a>],
    array: &str,
    w: &Workload,
) -> (Vec<&'a RunGroup<'a>>, String) {
    let want = workload_signature(w);
    let in_array: Vec<&RunGroup> = groups
        .iter()
        .filter(|g| g.run.array.eq_ignore_ascii_case(array))
        .collect();
    let mut by_name: Vec<&RunGroup> = Vec::new();
    for g in in_array.iter().copied().filter(|g| {
        g.group.jobname == w.name || g.run.stem == w.name || repeat_of(&g.run.stem, &w.name)
    }) {
        match by_name.iter_mut().find(|x| x.run.file == g.run.file) {
            Some(x) if x.group.jobname != w.name && g.group.jobname == w.name => *x = g,
            Some(_) => {}
            None => by_name.push(g),
        }
    }
    if !by_name.is_empty() {
        return (by_name, String::new());
    }
    let by_shape: Vec<&RunGroup> = in_array
        .iter()
        .copied()
        .filter(|g| g.signature == want)
        .collect();
    let note = match by_shape.as_slice() {
        [] => String::new(),
        [one] => format!("matched `{}` by its options ({want})", one.run.file),
        many => format!(
            "matched {} by their options ({want})",
            many.iter()
                .map(|g| format!("`{}`", g.run.file))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    (by_shape, note)
}

/// Every run of `array` that is the procedure's `w`, in `tree` (else the first tree that
/// has one): the job's own file first, then its numbered repeats
/// (`randwrite-8k-j8-d8-run2.json`), pooled when they ran what the first ran. Runs of one
/// array folder are repeats of one campaign; the same array in another result tree
/// (`results/adp`, `results-newfio/adp`) is another campaign: not pooled, and the note
/// says which tree is judged and how to judge the other.
pub(super) fn find_runs<'a>(
    groups: &'a [RunGroup<'a>],
    array: &str,
    w: &Workload,
    tree: Option<&str>,
) -> (Vec<&'a RunGroup<'a>>, String) {
    let want = workload_signature(w);
    let (mut found, mut note) = candidates(groups, array, w);
    found.sort_by_key(|g| (g.run.stem != w.name, g.run.file.clone()));
    let Some(chosen) = tree
        .map(str::to_string)
        .or_else(|| found.first().map(|g| tree_of(g)))
    else {
        return (found, note);
    };
    let mut others: Vec<String> = found
        .iter()
        .map(|g| tree_of(g))
        .filter(|t| *t != chosen)
        .collect();
    others.sort();
    others.dedup();
    found.retain(|g| tree_of(g) == chosen);
    if let Some(first) = found.first().copied() {
        if first.signature != want {
            note = join(
                &note,
                &format!(
                    "`{}` ran {} where the procedure runs {want}",
                    first.run.file, first.signature
                ),
            );
        }
        let apart: Vec<String> = found
            .iter()
            .filter(|g| g.signature != first.signature)
            .map(|g| format!("`{}` ran {}", g.run.file, g.signature))
            .collect();
        if !apart.is_empty() {
            note = join(
                &note,
                &format!(
                    "not pooled with `{}` ({}): {}",
                    first.run.file,
                    first.signature,
                    apart.join(", ")
                ),
            );
        }
        found.retain(|g| g.signature == first.signature);
    }
    if !others.is_empty() {
        let shown = |t: &str| {
            if t.is_empty() {
                "the top folder".to_string()
            } else {
                format!("`{t}`")
            }
        };
        note = join(
            &note,
            &format!(
                "`{array}` also stands in {}: another result tree is another campaign, not a repeat; this verdict judges {}; analyze the other tree on its own to judge it",
                others.iter().map(|t| shown(t)).collect::<Vec<_>>().join(", "),
                shown(&chosen)
            ),
        );
    }
    (found, note)
}

/// Whether a file's stem is a numbered repeat of the job `name` (`NAME-run2`,
/// `NAME_run3`, `NAME.2`, `NAME-rep2`).
fn repeat_of(stem: &str, name: &str) -> bool {
    super::load::repeat_number(stem, name).is_some()
}

pub fn workload_signature(w: &Workload) -> Signature {
    Signature {
        rw: w.rw.clone(),
        bs: parse_size(&w.bs),
        numjobs: w.numjobs,
        iodepth: w.iodepth,
        rwmixread: w.rwmixread,
    }
}
