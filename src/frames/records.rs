//! The catalog's records as tidy frames, one per record kind, keyed by suite, array or
//! variant, run and level or job (the `input` column is added when inputs are joined).

mod ladder;
mod serving;
mod storage;

use crate::ingest::{Catalog, Item};

use super::Frame;

use ladder::{ladder_requests, prom_deltas};
use serving::{restore_attempts, server_facts};
use storage::{fio_groups, iostat_cpu, iostat_devices};

/// The suite whose layout a file is in (`""` for none): the registry's answer, handed
/// in by the analysis (frames sit below the suites and do not ask them).
pub type SuiteOf<'a> = &'a dyn Fn(&Item) -> &'static str;

/// Every frame the catalog gives; a frame that cannot be built is reported, not fatal.
pub fn frames(catalog: &Catalog, suite_of: SuiteOf) -> (Vec<Frame>, Vec<String>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for built in [
        fio_groups(catalog, suite_of),
        iostat_devices(catalog, suite_of),
        iostat_cpu(catalog, suite_of),
        ladder_requests(catalog),
        prom_deltas(catalog),
        restore_attempts(catalog, suite_of),
        server_facts(catalog),
    ] {
        match built {
            Ok(Some(f)) => out.push(f),
            Ok(None) => {}
            Err(e) => problems.push(format!("{e:#}")),
        }
    }
    (out, problems)
}
