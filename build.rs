//! The `reprobench` program is linked as a fixed-address executable on Linux (`-no-pie`).
//!
//! Why: as a position-independent executable, the dynamic loader applies about 76,000
//! relocations at every start (one per pointer in the program's tables: the parsers' and
//! suites' static strings, vtables), touching 450 pages first; that was 2.8 ms of every
//! run, a tenth of `analyze` on the reference archive, before any file was read. Linked
//! at a fixed address, the same code starts in 1.8 ms and does the same thing.
//! What it costs: the program's own code and data are not placed at a random address
//! (libraries, heap and stack still are). The test binaries are left as they are.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
