//! The `reprobench` program is linked as a fixed-address executable on Linux (`-no-pie`).
//!
//! Why: as a position-independent executable, the dynamic loader applies about 76,000
//! relocations at every start (one per pointer in the program's tables: the parsers' and
//! suites' static strings, vtables), touching 450 pages first; that was 2.8 ms of every
//! run, a tenth of `analyze` on the reference archive, before any file was read. Linked
//! at a fixed address, the same code starts in 1.8 ms and does the same thing.
//! What it costs: the program's own code and data are not placed at a random address
//! (libraries, heap and stack still are). The test binaries are left as they are.
//!
//! It also gives `--version` its commit (`REPROBENCH_COMMIT`: the short hash of the
//! checkout's HEAD; "unknown" outside a git checkout, as from a source tarball; changes
//! not yet committed are not marked).
//!
//! And it reads the reference documents built into the program (`reports/*.toml`) into
//! JSON twins (`OUT_DIR`), which the program reads instead of parsing the TOML at every
//! run (`src/parse/embedded_toml.rs`; a test holds each twin equal to its TOML).
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-env=REPROBENCH_COMMIT={}", commit());
    twins();
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}

/// The checkout's commit, for `--version`. Rebuilt when HEAD moves (the files that say
/// where it is, those that exist: a missing one would rebuild every time).
fn commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(dir) = git(&["rev-parse", "--git-dir"]) else {
        return "unknown".to_string();
    };
    let dir = std::path::PathBuf::from(dir);
    let mut watched = vec![dir.join("HEAD"), dir.join("packed-refs")];
    if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(dir.join(head));
    }
    for w in watched.iter().filter(|w| w.exists()) {
        println!("cargo::rerun-if-changed={}", w.display());
    }
    git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string())
}

/// `OUT_DIR/twins.rs`: `(TOML text, JSON text)` for each `reports/*.toml`.
fn twins() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let reports = std::path::PathBuf::from(
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    )
    .join("reports");
    println!("cargo::rerun-if-changed={}", reports.display());
    let mut names: Vec<std::path::PathBuf> = std::fs::read_dir(&reports)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    names.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    names.sort();
    let mut list = String::from("pub const TWINS: &[(&str, &str)] = &[\n");
    for toml_path in names {
        println!("cargo::rerun-if-changed={}", toml_path.display());
        let text = std::fs::read_to_string(&toml_path).expect("reports/*.toml is readable");
        // A document that does not parse gets no twin: the program parses it and says why.
        let Ok(value) = text.parse::<toml::Table>() else {
            continue;
        };
        let json_path = out.join(
            toml_path
                .with_extension("json")
                .file_name()
                .expect("a name"),
        );
        std::fs::write(
            &json_path,
            serde_json::to_string(&value).expect("TOML is JSON"),
        )
        .expect("OUT_DIR is writable");
        list.push_str(&format!(
            "    (include_str!({:?}), include_str!({:?})),\n",
            toml_path.display().to_string(),
            json_path.display().to_string()
        ));
    }
    list.push_str("];\n");
    std::fs::write(out.join("twins.rs"), list).expect("OUT_DIR is writable");
}
