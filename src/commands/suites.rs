//! `reprobench suites`: every suite and the files it reads.

use crate::suites::SUITES;

pub fn run() -> anyhow::Result<i32> {
    for s in SUITES {
        crate::outln!("{}  {}", s.name(), s.title());
        crate::outln!("  procedure: {}", s.procedure());
        for r in s.reads() {
            crate::outln!("  reads: {r}");
        }
    }
    Ok(0)
}
