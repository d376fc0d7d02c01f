//! The suite is the unit of extension: a suite registered beside the real ones is judged,
//! advised, checked against its reference setup, measured and rendered with no edit
//! outside it; and no module outside `src/suites/` names a suite or a verdict id.

use std::path::{Path, PathBuf};

use reprobench::analysis;
use reprobench::ingest::walk::Skipped;
use reprobench::ingest::Catalog;
use reprobench::model::measurement::{Better, Measurement, Unit};
use reprobench::model::verdict::{Status, Verdict};
use reprobench::suites::{self, Options, Suite, SuiteInfo, SuiteReport};
use reprobench::why::conformance::{unknown, Conformance, ReferenceSetup};
use reprobench::why::next_steps::{self, Rule};
use reprobench::why::setup::Setup;

use crate::common::root;

/// A toy suite: what a new procedure's suite is, in one place.
struct Toy;

const TOY_TOML: &str = r#"
[[check_next]]
id = "toy.answer"
when = "fail"
text = "Ask the question again."
source = "The toy procedure, step 2"

[reference_setup]
title = "Toy: reference setup"
source = "The toy procedure, Reference setup"

[[reference_setup.row]]
id = "oracle"
part = "Oracle"
reference = "Delphi"
predicts = "Another oracle answers otherwise."
would_give = "system/oracle.txt"
"#;

const INFO: SuiteInfo = SuiteInfo {
    name: "toy",
    title: "A toy suite",
    procedure: "The toy procedure",
    reads: &["manifests/toy.json  {\"answer\": <n>}"],
    reproduce: &["echo '{\"answer\": 41}' > manifests/toy.json"],
};

impl Suite for Toy {
    fn info(&self) -> &'static SuiteInfo {
        &INFO
    }

    fn check_next(&self) -> &'static [Rule] {
        static RULES: std::sync::OnceLock<Vec<Rule>> = std::sync::OnceLock::new();
        suites::rules_in(&RULES, TOY_TOML, INFO.name)
    }

    fn conformance(&self, setup: &Setup) -> Option<Conformance> {
        let table = ReferenceSetup::parse(TOY_TOML).ok()?;
        Some(table.judge(setup, |row, _| Some(unknown(row))))
    }

    fn detect(&self, catalog: &Catalog) -> bool {
        catalog.items.iter().any(|i| i.rel == "manifests/toy.json")
    }

    fn analyze(
        &self,
        catalog: &Catalog,
        _: &Options,
        _: &mut Vec<Skipped>,
        _: &mut Vec<reprobench::frames::Frame>,
    ) -> SuiteReport {
        let mut report = SuiteReport::for_suite(self);
        let item = catalog.items.iter().find(|i| i.rel == "manifests/toy.json");
        let answer = item
            .and_then(|i| i.json())
            .and_then(|j| j["answer"].as_f64());
        let mut v = Verdict::new("toy.answer", "the answer is 42", ">= 42", "42").with_numbers(
            answer,
            Some(42.0),
            Some(42.0),
            reprobench::model::phrase::UnitOf::default(),
        );
        v.status = match answer {
            Some(a) if a >= 42.0 => Status::Pass,
            Some(_) => Status::Fail,
            None => Status::NotMeasured,
        };
        v.files = vec!["manifests/toy.json".into()];
        report.verdicts.push(v);
        report.files_read = vec!["manifests/toy.json".into()];
        report.measurements.extend(Measurement::of(
            INFO.name,
            "oracle",
            "answer",
            answer,
            Unit::Ratio,
            Better::Higher,
            "manifests/toy.json",
        ));
        report
    }
}

#[test]
fn a_toy_suite_registered_beside_the_real_ones_is_judged_advised_and_rendered() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("manifests")).expect("mkdir");
    std::fs::write(dir.path().join("manifests/toy.json"), br#"{"answer": 41}"#).expect("write");
    let mut registry: Vec<&dyn Suite> = suites::SUITES.to_vec();
    registry.push(&Toy);
    let a = analysis::analyze_with(dir.path(), &Options::default(), &registry).expect("analyzed");
    assert_eq!(a.suites.len(), 1, "only the toy found its files");
    let v = &a.suites[0].verdicts[0];
    assert_eq!(v.status, Status::Fail);
    assert_eq!(v.check_next.len(), 1);
    assert_eq!(v.check_next[0].text, "Ask the question again.");
    assert_eq!(a.conformance.len(), 1);
    assert_eq!(a.conformance[0].title, "Toy: reference setup");
    assert_eq!(a.suites[0].measurements[0].value, 41.0);
    assert_eq!(a.exit_code(), 1);
    let md = reprobench::render::templates::render_markdown(&a).expect("renders");
    assert!(md.contains("the answer is 42") && md.contains("Ask the question again."));
    // Without the toy in the registry the folder is nobody's.
    assert!(analysis::analyze(dir.path(), &Options::default()).is_err());
    // The toy's rules are its own: a real suite's rules never match its ids.
    assert!(next_steps::parse(TOY_TOML, "storage.")
        .map(|r| r.is_empty())
        .unwrap_or(false));
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of a Rust file (plain `"..."` ones; enough for names and ids).
fn literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '/' && text[i..].starts_with("//") {
            // A comment: skip to the end of the line.
            for (_, c) in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
        } else if c == '\'' {
            // A char literal or a lifetime: skip a quoted char like '"'.
            if text[i..].starts_with("'\"'") {
                chars.next();
                chars.next();
            }
        } else if c == '"' {
            let mut s = String::new();
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            s.push(n);
                        }
                    }
                    '"' => break,
                    _ => s.push(c),
                }
            }
            out.push(s);
        }
    }
    out
}

#[test]
fn no_module_outside_the_suites_names_a_suite_or_a_verdict_id() {
    let names: Vec<&str> = suites::SUITES.iter().map(|s| s.name()).collect();
    // Every verdict id the samples produce.
    let mut ids = std::collections::BTreeSet::new();
    for sample in std::fs::read_dir(root().join("samples"))
        .expect("samples")
        .flatten()
    {
        if !sample.path().is_dir() {
            continue;
        }
        if let Ok(a) = analysis::analyze(&sample.path(), &Options::default()) {
            ids.extend(a.verdicts().map(|v| v.id.clone()));
        }
    }
    assert!(
        ids.len() > 20,
        "the samples give verdict ids: {}",
        ids.len()
    );
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let suites_dir = root().join("src").join("suites");
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(&suites_dir)) {
        let text = std::fs::read_to_string(f).expect("read");
        for lit in literals(&text) {
            let names_a_suite = names.iter().any(|n| {
                lit == *n
                    || lit.strip_prefix(n).is_some_and(|rest| {
                        rest.starts_with('.') && ![".sh", ".json", ".toml"].contains(&rest)
                    })
            });
            if names_a_suite || ids.contains(&lit) {
                found.push(format!("{}: \"{lit}\"", f.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "suite names or verdict ids outside src/suites/:\n{}",
        found.join("\n")
    );
}

/// The model's numbers are typed: a phrase's words are literals, names from the files
/// or prose from the data files, never a `format!` result passed off as text.
#[test]
fn no_phrase_is_made_of_formatted_text() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for call in ["Phrase::text(", "name("] {
            for (at, _) in flat.match_indices(call) {
                let arg = flat[at + call.len()..].trim_start_matches('&');
                if arg.starts_with("format!") || arg.starts_with("crate::model::units::") {
                    found.push(format!(
                        "{}: {}…",
                        f.display(),
                        &flat[at..(at + 60).min(flat.len())]
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "formatted text made into a phrase (build it with phrase! and typed numbers):\n{}",
        found.join("\n")
    );
}
