//! `reprobench suites`: every suite and the files it reads.

use crate::suites::SUITES;

pub fn run() -> anyhow::Result<i32> {
    for s in SUITES {
        println!("{}  {}", s.name(), s.title());
        println!("  procedure: {}", s.procedure());
        for r in s.reads() {
            println!("  reads: {r}");
        }
    }
    Ok(0)
}
