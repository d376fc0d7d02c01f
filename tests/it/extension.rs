//! The suite is the unit of extension: a suite registered beside the real ones is judged,
//! advised, checked against its reference setup, measured and rendered with no edit
//! outside it; and no module outside `src/suites/` names a suite or a verdict id.

use std::path::{Path, PathBuf};

use reprobench::analysis;
use reprobench::collect::outcome::Outcome;
use reprobench::collect::plugin::{Collector, Context};
use reprobench::collect::scripts::Scripts;
use reprobench::collect::steps::{Check, Origin, Step};
use reprobench::commands::command_line::{self, Asked};
use reprobench::error::Problem;
use reprobench::frames::FrameBuilder;
use reprobench::ingest::format::Format;
use reprobench::ingest::walk::{Folder, Skipped};
use reprobench::ingest::{By, Catalog, Kind, Parsed, Record};
use reprobench::model::measurement::{Better, Measurement, Unit};
use reprobench::model::verdict::{Status, Verdict};
use reprobench::process::System;
use reprobench::schema::frames::INPUT;
use reprobench::schema::{Column, Table, Type};
use reprobench::suites::{self, Options, Suite, SuiteInfo, SuiteReport};
use reprobench::why::conformance::{unknown, Conformance, ReferenceSetup};
use reprobench::why::next_steps::{self, Rule};
use reprobench::why::setup::Setup;

use crate::common::{self, root};

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
    reads: &["*.oracle  toy-oracle 1 / answer: <n>"],
    reproduce: &["printf 'toy-oracle 1\\nanswer: 41\\n' > asked.oracle"],
};

/// The toy's own file format: what the oracle said.
#[derive(Debug)]
struct Oracle {
    answer: f64,
}

const ORACLE: Kind = Kind::new("toy-oracle", "a toy oracle's answer");

/// Its registry entry: recognised by its first line, or by its name when the content
/// cannot say (an empty file), and read by its own parser.
static FORMATS: &[Format] = &[Format {
    kind: ORACLE,
    content: |h| h.line1 == b"toy-oracle 1",
    path: |p| p.name.ends_with(".oracle"),
    parse: |_, bytes| {
        let text = reprobench::ingest::format::text(bytes)?;
        for (i, line) in text.lines().enumerate() {
            if let Some(n) = line.strip_prefix("answer:") {
                let answer = n
                    .trim()
                    .parse()
                    .map_err(|_| Problem::at(i + 1, format!("`{}` is not a number", n.trim())))?;
                return Ok(Record::Other(Parsed::new(Oracle { answer })));
            }
        }
        Err(Problem::whole("no `answer:` line"))
    },
}];

/// The toy's own frame, as `--export` checks and describes it.
static ANSWERS: Table = Table {
    name: "toy_answers",
    rows: "answer an oracle gave (toy)",
    // Every exported frame starts with the input it came from.
    parts: &[
        &[INPUT],
        &[
            Column {
                name: "file",
                ty: Type::Str,
                unit: "",
                meaning: "the oracle's file",
            },
            Column {
                name: "answer",
                ty: Type::F64,
                unit: "",
                meaning: "what the oracle answered",
            },
        ],
    ],
};

/// The toy's collector script (`collectors/toy/` for a real suite): it asks the oracle
/// through `lib.sh`, so that a dry run prints the commands instead.
const TOY_SCRIPT: &str = r#"#!/usr/bin/env bash
# Asks the toy oracle and keeps its answer. Usage: toy-oracle.sh OUTFILE QUESTION
set -eu
. "$(dirname "$0")/lib.sh"
run mkdir -p "$(dirname "$1")"
run_to "$1" printf 'toy-oracle 1\nquestion: %s\nanswer: 41\n' "$2"
"#;

/// The toy's collection: `collect toy --question Q`.
struct ToyCollector;

impl Collector for ToyCollector {
    fn command(&self) -> clap::Command {
        clap::Command::new("toy")
            .about("Ask the toy oracle (the toy procedure, step 1)")
            .arg(
                clap::Arg::new("question")
                    .long("question")
                    .required(true)
                    .help("What to ask"),
            )
    }

    fn procedure(&self) -> &'static str {
        "The toy procedure, step 1"
    }

    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[("toy-oracle.sh", TOY_SCRIPT)]
    }

    fn steps(&self, args: &clap::ArgMatches, out: &Path, scripts: &Scripts) -> Vec<Step> {
        let file = out.join("asked.oracle");
        let question = args
            .get_one::<String>("question")
            .cloned()
            .unwrap_or_default();
        let read_back = file.clone();
        vec![Step::new(
            "ask",
            Origin::procedure("Step 1", "ask the oracle"),
            scripts.call("toy-oracle.sh").arg(&file).arg(question),
            // Only an answer that reads back as the toy's format counts.
            Check::Custom(std::sync::Arc::new(move |exit| match exit {
                Err(e) => Outcome::Failed(e.to_string()),
                Ok(_) => match std::fs::read(&read_back).map(|b| (FORMATS[0].parse)("", &b)) {
                    Ok(Ok(_)) => Outcome::Ok,
                    Ok(Err(p)) => Outcome::Failed(p.reason),
                    Err(e) => Outcome::Failed(e.to_string()),
                },
            })),
        )]
    }
}

static TOY_COLLECTOR: ToyCollector = ToyCollector;

impl Suite for Toy {
    fn info(&self) -> &'static SuiteInfo {
        &INFO
    }

    fn formats(&self) -> &'static [Format] {
        FORMATS
    }

    fn collector(&self) -> Option<&'static dyn Collector> {
        Some(&TOY_COLLECTOR)
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
        catalog.of(ORACLE).next().is_some()
    }

    fn analyze(
        &self,
        catalog: &Catalog,
        opts: &Options,
        skipped: &mut Vec<Skipped>,
        frames: &mut Vec<reprobench::frames::Frame>,
    ) -> SuiteReport {
        let mut report = SuiteReport::for_suite(self);
        let mut answer = None;
        let mut file = None;
        for item in catalog.of(ORACLE) {
            match (&item.record, item.parsed::<Oracle>()) {
                (Err(problem), _) => skipped.push(item.skipped(problem)),
                (_, Some(o)) if answer.is_none() => {
                    answer = Some(o.answer);
                    file = Some(item.rel.clone());
                }
                _ => {}
            }
        }
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
        v.files = file.iter().cloned().collect();
        report.verdicts.push(v);
        report.files_read = file.iter().cloned().collect();
        if opts.frames {
            // Its own frame, documented by its own table: nothing outside it names it.
            let frame = FrameBuilder::of(&ANSWERS)
                .str("file", file.iter())
                .f64("answer", [answer].into_iter().filter(Option::is_some))
                .build();
            frames.extend(frame);
        }
        report.measurements.extend(Measurement::of(
            INFO.name,
            "oracle",
            "answer",
            answer,
            Unit::Ratio,
            Better::Higher,
            file.as_deref().unwrap_or_default(),
        ));
        report
    }
}

#[test]
fn a_toy_suite_registered_beside_the_real_ones_is_judged_advised_and_rendered() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Its own format, recognised by content under a name that says nothing ...
    std::fs::write(dir.path().join("asked.out"), "toy-oracle 1\nanswer: 41\n").expect("write");
    // ... and by its path when the content cannot say, then refused by its own parser
    // with the line.
    std::fs::write(dir.path().join("again.oracle"), "answer: forty-one\n").expect("write");
    let mut registry: Vec<&dyn Suite> = suites::SUITES.to_vec();
    registry.push(&Toy);
    let a = analysis::analyze_with(dir.path(), &Options::default(), &registry).expect("analyzed");
    assert_eq!(a.suites.len(), 1, "only the toy found its files");
    let v = &a.suites[0].verdicts[0];
    assert_eq!(v.status, Status::Fail);
    assert_eq!(v.files, vec!["asked.out".to_string()]);
    assert_eq!(v.check_next.len(), 1);
    assert_eq!(v.check_next[0].text, "Ask the question again.");
    assert_eq!(a.conformance.len(), 1);
    assert_eq!(a.conformance[0].title, "Toy: reference setup");
    assert_eq!(a.suites[0].measurements[0].value, 41.0);
    assert!(
        a.skipped.iter().any(|s| s.file == "again.oracle"
            && s.line == Some(1)
            && s.reason.contains("`forty-one` is not a number")),
        "the broken answer is skipped with its line: {:?}",
        a.skipped
    );
    assert_eq!(a.exit_code(), 1);
    let md = reprobench::render::templates::render_markdown(&a).expect("renders");
    assert!(md.contains("the answer is 42") && md.contains("Ask the question again."));
    // The catalog knows the format by its registry entry: its kind, label and how.
    let folder = Folder::scan(dir.path()).expect("scan");
    let catalog = Catalog::ingest_with(folder, &FORMATS.iter().collect::<Vec<_>>());
    let kinds: Vec<(&str, Kind, By)> = catalog
        .items
        .iter()
        .map(|i| (i.rel.as_str(), i.kind, i.by))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("again.oracle", ORACLE, By::Path),
            ("asked.out", ORACLE, By::Content)
        ]
    );
    assert_eq!(catalog.census().by_kind["a toy oracle's answer"], 2);
    // Without the toy in the registry its files are text, and the folder is nobody's.
    assert_eq!(
        Catalog::scan(dir.path()).expect("scan").items[1].kind,
        Kind::Text
    );
    assert!(analysis::analyze(dir.path(), &Options::default()).is_err());
    // The toy's rules are its own: a real suite's rules never match its ids.
    assert!(next_steps::parse(TOY_TOML, "storage.")
        .map(|r| r.is_empty())
        .unwrap_or(false));
}

/// A suite's own frame is documented where the suite is: `--export` writes it, checked
/// against the suite's table, and `schema.md` describes it, with no catalog entry
/// outside the suite.
#[test]
fn a_toy_suites_own_frame_is_exported_and_described_from_its_own_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("asked.out"), "toy-oracle 1\nanswer: 41\n").expect("write");
    let mut registry: Vec<&dyn Suite> = suites::SUITES.to_vec();
    registry.push(&Toy);
    let opts = Options {
        frames: true,
        ..Options::default()
    };
    let run = analysis::run_with(dir.path(), &opts, &registry).expect("analyzed");
    let toy: Vec<_> = run
        .frames
        .iter()
        .filter(|f| f.name == "toy_answers")
        .collect();
    assert_eq!(toy.len(), 1, "the toy built its frame");
    let mut frames =
        reprobench::frames::join_inputs(&[("in".into(), run.frames.clone())]).expect("joined");
    let out = tempfile::tempdir().expect("tempdir");
    let written = reprobench::frames::export(&mut frames, out.path()).expect("exported");
    assert!(
        written.iter().any(|w| w.ends_with("toy_answers.parquet")),
        "{written:?}"
    );
    let md = std::fs::read_to_string(out.path().join("schema.md")).expect("schema.md");
    assert!(
        md.contains("## toy_answers\n\nOne row per answer an oracle gave (toy); 1 rows here."),
        "{md}"
    );
    assert!(
        md.contains("| `answer` | f64 |  | what the oracle answered |"),
        "{md}"
    );
    // A frame that no table documents is still refused, and nothing is written.
    let bare = FrameBuilder::new("toy_undocumented")
        .f64("answer", [Some(41.0)])
        .build()
        .expect("frame");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let err = reprobench::frames::export(&mut [bare], &elsewhere.path().join("x"))
        .expect_err("an undocumented frame is refused");
    assert!(
        err.to_string().contains("no entry in the catalog"),
        "{err:#}"
    );
    assert!(!elsewhere
        .path()
        .join("x")
        .join("toy_undocumented.parquet")
        .exists());
}

/// The toy's collection, registered by the same one line: `collect toy` is on the command
/// line, its dry run writes nothing, its run writes the toy's format and a manifest with
/// its script's checksum, and analyze reads what it wrote.
#[test]
fn a_toy_suite_collects_through_its_own_collect_subcommand_and_script() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("results");
    let mut registry: Vec<&dyn Suite> = suites::SUITES.to_vec();
    registry.push(&Toy);
    let line = |extra: &[&str]| {
        let mut args = vec!["reprobench", "collect", "toy", "--question", "life", "-o"];
        args.push(out.to_str().expect("utf-8 path"));
        args.extend(extra);
        command_line::parse(&registry, args)
    };
    // Only a registry with the toy has the subcommand.
    let mut help = Vec::new();
    command_line::command(&registry)
        .find_subcommand_mut("collect")
        .expect("collect")
        .write_long_help(&mut help)
        .expect("help");
    let help = String::from_utf8_lossy(&help);
    assert!(
        help.contains("toy") && help.contains("Ask the toy oracle"),
        "{help}"
    );
    assert!(command_line::command(suites::SUITES)
        .find_subcommand("collect")
        .and_then(|c| c.find_subcommand("toy"))
        .is_none());
    assert!(command_line::parse(suites::SUITES, ["reprobench", "collect", "toy"]).is_err());
    // What every collection takes is there without the toy asking for it; its own
    // arguments are checked by clap.
    match command_line::parse(
        &registry,
        [
            "reprobench",
            "collect",
            "toy",
            "--question",
            "q",
            "-o",
            "x",
            "--confirm-device",
            "/dev/loop9",
        ],
    ) {
        Ok(Asked::Collect { args, .. }) => {
            assert_eq!(args.get_one::<PathBuf>("out"), Some(&PathBuf::from("x")));
            let confirmed: Vec<&PathBuf> = args
                .get_many::<PathBuf>("confirm_device")
                .into_iter()
                .flatten()
                .collect();
            assert_eq!(confirmed, [&PathBuf::from("/dev/loop9")]);
            assert!(!args.get_flag("dry_run"));
        }
        _ => panic!("`-o` and `--confirm-device` are what every collection takes"),
    }
    assert!(command_line::parse(&registry, ["reprobench", "collect", "toy", "-o", "x"]).is_err());
    assert!(command_line::parse(
        &registry,
        ["reprobench", "collect", "toy", "--question", "q", "--bogus"]
    )
    .is_err());
    // A script that does not go through lib.sh would act in a dry run: refused.
    let acts = "#!/usr/bin/env bash\nrm -f \"$1\"\n. \"$(dirname \"$0\")/lib.sh\"\n";
    let refused = Scripts::write_with(&[("acts.sh", acts)])
        .err()
        .map(|e| e.to_string());
    assert!(
        refused
            .as_deref()
            .is_some_and(|e| e.contains("does not source lib.sh")),
        "{refused:?}"
    );
    assert!(Scripts::write_with(&[("toy-oracle.sh", TOY_SCRIPT)]).is_ok());
    let run = |parsed: Result<Asked, clap::Error>| match parsed.expect("parses") {
        Asked::Collect {
            collector, args, ..
        } => {
            let cx = Context {
                runner: &System,
                judge: |_| Err("not judged here".into()),
            };
            collector.run(&args, &cx).expect("runs")
        }
        Asked::Cli(_) => panic!("the toy's subcommand is the toy's"),
    };
    assert_eq!(run(line(&["--dry-run"])), 0);
    assert!(!out.exists(), "a dry run writes nothing");
    if !common::need("bash") {
        return;
    }
    assert_eq!(run(line(&[])), 0);
    let written = std::fs::read_to_string(out.join("asked.oracle")).expect("the answer");
    assert!(
        written.starts_with("toy-oracle 1\nquestion: life\n"),
        "{written}"
    );
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("manifests/toy.json")).expect("the manifest"),
    )
    .expect("json");
    assert_eq!(manifest["procedure"], "The toy procedure, step 1");
    assert_eq!(manifest["parameters"]["question"], "life");
    assert_eq!(manifest["steps"][0]["name"], "ask");
    assert_eq!(manifest["steps"][0]["result"], "ok");
    assert_eq!(
        manifest["collectors"]["toy-oracle.sh"]
            .as_str()
            .map(str::len),
        Some(64),
        "the script's sha256: {}",
        manifest["collectors"]
    );
    // The scripts it wrote, and no other suite's.
    let scripts: Vec<&String> = manifest["collectors"]
        .as_object()
        .expect("collectors")
        .keys()
        .collect();
    assert_eq!(scripts, ["capture.sh", "lib.sh", "toy-oracle.sh"]);
    let a = analysis::analyze_with(&out, &Options::default(), &registry).expect("analyzed");
    let v = &a.suites[0].verdicts[0];
    assert_eq!(
        (v.status, v.files.clone()),
        (Status::Fail, vec!["asked.oracle".to_string()])
    );
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
            // A char literal (`'"'`, `'\"'`) is skipped whole; a lifetime is left alone.
            let mut cs = text[i + 1..].chars();
            match (cs.next(), cs.next(), cs.next()) {
                (Some('\\'), Some(_), Some('\'')) => {
                    chars.next();
                    chars.next();
                    chars.next();
                }
                (Some(_), Some('\''), _) => {
                    chars.next();
                    chars.next();
                }
                _ => {}
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

/// A decimal is chosen where a number is shown, not where it is judged: no string in a
/// suite carries a format with a precision (`{:.2}`, `{x:8.1}`); numbers go into the model
/// as typed phrase arguments (`fixed(x, 2)`), formatted by one formatter. The exception
/// is a `script*.rs` module, which reproduces a procedure script's printed table byte
/// for byte, with the script's own widths and decimals.
#[test]
fn no_suite_formats_a_decimal_outside_a_script_module() {
    let mut files = Vec::new();
    rust_files(&root().join("src").join("suites"), &mut files);
    assert!(files.len() > 50, "the suites' files: {}", files.len());
    let precision = |lit: &str| {
        let mut found = Vec::new();
        let mut rest = lit;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            if let Some(stripped) = after.strip_prefix('{') {
                rest = stripped;
                continue;
            }
            let Some(close) = after.find('}') else { break };
            let spec = &after[..close];
            // `{arg:spec}`: the argument a name or position; the spec may start with a fill
            // character (a blank too) before its alignment, and holds no other blank nor a
            // quote (a JSON example in a string is no format).
            let format = spec.split_once(':').and_then(|(arg, format)| {
                let mut cs = format.chars();
                let unfilled = match (cs.next(), cs.next()) {
                    (Some(_), Some('<' | '^' | '>')) => cs.as_str(),
                    _ => format,
                };
                (arg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !unfilled.contains(|c: char| c.is_whitespace() || c == '"'))
                .then_some(unfilled)
            });
            if let Some(format) = format {
                // A precision: digits, `*`, or a named or numbered argument with `$`.
                let precision = format.split_once('.').is_some_and(|(_, p)| {
                    let name: String = p
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    p.starts_with(|c: char| c.is_ascii_digit() || c == '*')
                        || (!name.is_empty() && p[name.len()..].starts_with('$'))
                });
                if precision {
                    found.push(format!("{{{spec}}}"));
                }
            }
            rest = &after[close + 1..];
        }
        found
    };
    assert_eq!(
        precision("{:.2}, {x:8.1}, {:+.0} not {{:.3}}, {y} nor {\"model\": \"glm-5.3\"}"),
        ["{:.2}", "{x:8.1}", "{:+.0}"]
    );
    assert_eq!(
        precision("{:.*} {x:.prec$} {: >8.1} {:_<6.2} {0:08.3e} but not {:>8} nor {a:b c.1}"),
        ["{:.*}", "{x:.prec$}", "{: >8.1}", "{:_<6.2}", "{0:08.3e}"]
    );
    assert_eq!(
        literals("fn e() -> char { '\\\"' } let s = format!(\"ran {x:.1} s\");"),
        ["ran {x:.1} s"],
        "a quote in a char literal does not hide the strings after it"
    );
    let mut found = Vec::new();
    for f in &files {
        let script = f
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("script"));
        if script {
            continue;
        }
        let text = std::fs::read_to_string(f).expect("read");
        for lit in literals(&text) {
            for spec in precision(&lit) {
                found.push(format!("{}: {spec} in \"{lit}\"", f.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "decimals chosen in a suite (give the number to phrase! as fixed(x, n)):\n{}",
        found.join("\n")
    );
}

/// The procedures' collections are the suites' (and the KV procedure's three-test run):
/// `collect`'s subcommands other than the built-in `sysinfo` and `replay` all come from
/// the registry, each once.
#[test]
fn every_collect_subcommand_but_the_built_in_ones_comes_from_the_registry() {
    use clap::CommandFactory;
    let builtin: Vec<String> = reprobench::cli::Cli::command()
        .find_subcommand("collect")
        .expect("collect")
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    assert_eq!(builtin, ["sysinfo", "replay"]);
    let line = command_line::command(suites::SUITES);
    let all: Vec<&str> = line
        .find_subcommand("collect")
        .expect("collect")
        .get_subcommands()
        .map(|c| c.get_name())
        .collect();
    let mut from_suites: Vec<String> = suites::SUITES
        .iter()
        .filter_map(|s| s.collector())
        .map(|c| c.command().get_name().to_string())
        .collect();
    assert_eq!(
        from_suites.len(),
        suites::SUITES.len(),
        "every suite collects"
    );
    from_suites.push("kv".into());
    from_suites.extend(builtin);
    let mut all_sorted: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    all_sorted.sort();
    from_suites.sort();
    assert_eq!(all_sorted, from_suites);
}

/// A collector script sources lib.sh before it does anything, in the forms the project
/// writes; one that acts first, in any shape, is refused (a dry run runs it).
#[test]
fn a_collector_script_that_acts_before_sourcing_lib_sh_is_refused() {
    let ok = |t: &str| Scripts::write_with(&[("x.sh", t)]).is_ok();
    // Other ways of sourcing lib.sh: accepted.
    assert!(ok(
        "#!/bin/bash\nset -euo pipefail\nsource \"$(dirname \"$0\")/lib.sh\"\nrun fio\n"
    ));
    assert!(ok(
        "#!/bin/bash\n\n  # note\nlib=$(dirname \"$0\")/lib.sh\n. \"$lib\"\nrun dd\n"
    ));
    // Acting before sourcing, in other shapes: refused.
    assert!(!ok("#!/bin/bash\ncd /tmp && . ./lib.sh\n"));
    assert!(!ok(
        "#!/bin/bash\nexport X=1\n. \"$(dirname \"$0\")/lib.sh\"\n"
    ));
    assert!(!ok("#!/bin/bash\nrun fio\n"));
    assert!(!ok(
        "#!/bin/bash\nlib=/tmp/lib.sh; wipefs -a /dev/sdz\n. \"$lib\"\n"
    ));
    // A name that climbs out, or clashes with a built-in: refused.
    assert!(Scripts::write_with(&[("../x.sh", "")]).is_err());
    assert!(Scripts::write_with(&[("lib.sh", "")]).is_err());
}
