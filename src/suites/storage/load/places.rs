//! Where a file sits: which fio results are this suite's, and the array folder and
//! array name of a file.

use crate::ingest::{layout, Catalog, Item};

/// The fio results this suite reads: fio JSON outside the SPDK article's layout that did
/// not run through SPDK's bdev engine (those are the spdk-raid suite's, wherever they are).
pub(super) fn storage_fio(item: &Item) -> bool {
    !layout::in_spdk_tree(&item.rel)
        && !layout::is_manifest(&item.rel)
        && !item.fio().is_some_and(|o| o.uses_ioengine("spdk_bdev"))
}

/// An array's name from its folder: files at the top of the input belong to the input
/// folder itself, as the procedure's script (`f.split("/")[-2]`) names them.
pub(super) fn array_name(catalog: &Catalog, dir: &str) -> String {
    if dir.is_empty() {
        catalog.root_name.clone()
    } else {
        layout::name_of(dir).to_string()
    }
}

/// The array folder of a file in it or in its `iostat/` subfolder.
pub(super) fn iostat_dir(rel: &str) -> String {
    let dir = layout::dir_of(rel);
    if layout::name_of(dir) == "iostat" {
        layout::dir_of(dir).to_string()
    } else {
        dir.to_string()
    }
}
