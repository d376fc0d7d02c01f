//! Where each file of the suite belongs: the article's `<array>-<drives>/` folders, the
//! folders of spdk_bdev runs found elsewhere, and whether the input holds the suite at all.

use std::collections::BTreeMap;

use crate::ingest::{layout, Catalog, Item, Kind};

/// The kinds of file an array folder holds.
fn spdk_kind(k: Kind) -> bool {
    matches!(
        k,
        Kind::Fio | Kind::Bdevperf | Kind::SpdkConfig | Kind::RaidState | Kind::OtherJson
    )
}

/// fio results that ran through SPDK's bdev layer: this suite's wherever they sit.
fn spdk_bdev_run(item: &Item) -> bool {
    item.fio().is_some_and(|o| o.uses_ioengine("spdk_bdev"))
}

/// The array folder of a file outside the article's layout (`results/raid5f/x.json`):
/// its folder, the one above a `degraded/` folder, or the array a `raid5f_degraded/`
/// folder is named for (its degraded runs, never an array of its own).
fn folder_of(rel: &str) -> (String, bool) {
    let dir = layout::dir_of(rel);
    if layout::name_of(dir) == "degraded" && !dir.is_empty() && dir != "degraded" {
        return (layout::dir_of(dir).to_string(), true);
    }
    if let Some(array) = layout::degraded_of(layout::name_of(dir)) {
        let parent = layout::dir_of(dir);
        let at = if parent.is_empty() {
            array.to_string()
        } else {
            format!("{parent}/{array}")
        };
        return (at, true);
    }
    (dir.to_string(), false)
}

pub fn detect(catalog: &Catalog) -> bool {
    catalog.items.iter().any(|i| {
        spdk_bdev_run(i)
            || (spdk_kind(i.kind)
                && i.kind != Kind::OtherJson
                && layout::spdk_array_of(&i.rel).is_some()
                && (layout::in_spdk_tree(&i.rel)
                    || matches!(i.kind, Kind::Bdevperf | Kind::SpdkConfig)))
    })
}

/// Where each file of this suite belongs: the article's `<array>-<drives>/` folders, and
/// the folders of spdk_bdev runs found elsewhere.
pub(super) fn placement(catalog: &Catalog) -> BTreeMap<String, (String, bool)> {
    let mut out: BTreeMap<String, (String, bool)> = BTreeMap::new();
    let mut elsewhere: BTreeMap<String, ()> = BTreeMap::new();
    for i in &catalog.items {
        if !i.rel.ends_with(".json") && !spdk_bdev_run(i) {
            continue;
        }
        if let Some(at) = layout::spdk_array_of(&i.rel) {
            if spdk_kind(i.kind) {
                out.insert(i.rel.clone(), at);
            }
        } else if spdk_bdev_run(i) {
            let (dir, degraded) = folder_of(&i.rel);
            elsewhere.insert(dir.clone(), ());
            out.insert(i.rel.clone(), (dir, degraded));
        }
    }
    // The configs and raid states beside runs found elsewhere belong to them too.
    for i in catalog
        .items
        .iter()
        .filter(|i| matches!(i.kind, Kind::SpdkConfig | Kind::RaidState | Kind::Bdevperf))
    {
        let (dir, degraded) = folder_of(&i.rel);
        if elsewhere.contains_key(&dir) {
            out.entry(i.rel.clone()).or_insert((dir, degraded));
        }
    }
    out
}
