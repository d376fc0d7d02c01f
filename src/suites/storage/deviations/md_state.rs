//! An md array that ran with a member missing: the kernel's member map in `/proc/mdstat`
//! (`[4/3] [UU_U]`) shows it. The procedure measures a whole array.

use crate::model::deviation::Deviation;
use crate::model::phrase::{count, name};
use crate::suites::storage::drives::is_aggregate;
use crate::suites::storage::evidence::base;
use crate::suites::storage::load::{Loaded, RunGroup};
use crate::suites::storage::members::md_array;

/// The deviation of a run whose fio `filename` is an md array that the nearest
/// `mdstat` shows with a member missing (a `_` in its member map), or None.
pub(super) fn degraded(loaded: &Loaded, g: &RunGroup) -> Option<Deviation> {
    let filename = g.group.options.get("filename")?;
    let md = filename
        .split(':')
        .map(|t| base(t.trim()))
        .find(|d| is_aggregate(d))?;
    let (file, a) = md_array(&loaded.evidence, &g.run.file, md)?;
    let map = a.map.as_deref().filter(|m| m.contains('_'))?;
    let up = map.chars().filter(|c| *c == 'U').count();
    let slots = map.chars().filter(|c| matches!(c, 'U' | '_')).count();
    Some(
        Deviation::new(
            "array members",
            "all up",
            crate::phrase!(
                "{} {}, {} of {} up ({}, line {})",
                name(md),
                name(map),
                count(up),
                count(slots),
                name(file),
                count(a.line)
            ),
        )
        .effect(
            "an array with a member missing reads from fewer drives and writes without that member: it is not the array the procedure measures",
            true,
        )
        .source("Storage acceleration, 1. Prepare the drives (both arrays on the same four drives)")
        .file(file.to_string()),
    )
}
