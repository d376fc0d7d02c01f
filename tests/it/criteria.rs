//! Every criterion sentence of the procedures is covered: the sentences are found in the
//! procedure texts by their own framing ("Pass criteria", lists of expectations,
//! principles or checks, prose that says check, verify or must), and each must match a
//! row of `docs/criteria.md` whose rules exist (verdict and observation ids that the
//! samples' analyses give, setup rows, titles and names the source holds).

use crate::common::{analyze_json, in_suites, root, skipped};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A criterion found in a procedure: its line and its text (a whole list item, or one
/// prose sentence).
#[derive(Debug, Clone)]
struct Unit {
    line: usize,
    text: String,
}

/// One row of docs/criteria.md.
#[derive(Debug)]
struct Row {
    line: usize,
    procedure: String,
    start: String,
    rules: Vec<String>,
}

const WORDS: [&str; 4] = ["check", "checks", "verify", "must"];

fn has_word(s: &str, words: &[&str]) -> bool {
    s.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| words.iter().any(|x| w.eq_ignore_ascii_case(x)))
}

/// The item of a list line (`• `, `- ` or `1. `), None for other lines.
fn list_item(s: &str) -> Option<&str> {
    if let Some(r) = s.strip_prefix('•').or_else(|| s.strip_prefix("- ")) {
        return Some(r.trim());
    }
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0 && s[digits..].starts_with(". ")).then(|| s[digits + 2..].trim())
}

/// Prose: starts (after a list marker) with a capital letter, has four words or more, and
/// is not aligned like code (no runs of spaces).
fn is_prose(s: &str) -> bool {
    let body = list_item(s).unwrap_or(s);
    body.chars().next().is_some_and(|c| c.is_uppercase())
        && body.split_whitespace().count() >= 4
        && !body.contains("  ")
}

/// Sentences of a line: split after `. ` where a capital letter follows.
fn sentences(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let b = s.as_bytes();
    for (i, _) in s.match_indices(". ") {
        let next = s[i + 2..].chars().next();
        if next.is_some_and(|c| c.is_uppercase()) && i > start {
            out.push(s[start..=i].trim().to_string());
            start = i + 2;
        }
    }
    if start < b.len() {
        out.push(s[start..].trim().to_string());
    }
    out.retain(|x| !x.is_empty());
    out
}

fn units(text: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut listing = false;
    for (i, raw) in text.lines().enumerate() {
        let s = raw.trim();
        let line = i + 1;
        if s.starts_with("Pass criteria")
            || (s.ends_with(':') && has_word(s, &["expectations", "principles", "checks"]))
        {
            listing = true;
            continue;
        }
        if listing {
            if let Some(item) = list_item(s) {
                out.push(Unit {
                    line,
                    text: item.to_string(),
                });
                continue;
            }
            // Blank lines and indented lines (code, notes) inside a list keep it open.
            if s.is_empty() || raw.starts_with([' ', '\t']) {
                continue;
            }
            listing = false;
        }
        if is_prose(s) && has_word(s, &WORDS) {
            let body = list_item(s).unwrap_or(s);
            for sentence in sentences(body) {
                if has_word(&sentence, &WORDS) {
                    out.push(Unit {
                        line,
                        text: sentence,
                    });
                }
            }
        }
    }
    out
}

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn rows(doc: &str) -> Vec<Row> {
    doc.lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("| ") && !l.starts_with("| Procedure"))
        .map(|(i, l)| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split(" | ").collect();
            assert_eq!(
                cells.len(),
                3,
                "docs/criteria.md:{}: three cells: {l}",
                i + 1
            );
            Row {
                line: i + 1,
                procedure: cells[0].trim().to_string(),
                start: cells[1].trim().to_string(),
                rules: split_rules(cells[2].trim()),
            }
        })
        .collect()
}

/// Rules are comma-separated, except inside quotes and after `non-goal:` (its reason).
fn split_rules(cell: &str) -> Vec<String> {
    if cell.starts_with("non-goal:") {
        return vec![cell.to_string()];
    }
    let mut out = Vec::new();
    let (mut cur, mut quoted) = (String::new(), false);
    for c in cell.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            ',' if !quoted => out.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    out
}

fn matches(row: &Row, procedure: &str, unit: &Unit) -> bool {
    row.procedure == procedure && norm(&unit.text).starts_with(&norm(&row.start))
}

/// The units of `procedure` no row covers.
fn uncovered<'a>(procedure: &str, units: &'a [Unit], rows: &[Row]) -> Vec<&'a Unit> {
    units
        .iter()
        .filter(|u| !rows.iter().any(|r| matches(r, procedure, u)))
        .collect()
}

fn glob(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !s.starts_with(first) || !s[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &s[first.len()..s.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

fn procedures_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("REPROBENCH_PROCEDURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/procedures"));
    dir.is_dir().then_some(dir)
}

/// Every `.rs` file under `dir`, read.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read src").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).expect("read source");
                out.push((p, text));
            }
        }
    }
    out
}

/// The ids the samples' analyses give, by kind ("verdict", "observation").
fn sample_ids() -> BTreeSet<(String, String)> {
    let mut ids = BTreeSet::new();
    for e in std::fs::read_dir(root().join("samples"))
        .expect("samples")
        .flatten()
    {
        if !e.path().is_dir() {
            continue;
        }
        let (_, a) = analyze_json(&e.path(), &[]);
        for (key, kind) in [("verdicts", "verdict"), ("observations", "observation")] {
            for id in in_suites(&a, key).filter_map(|x| x["id"].as_str()) {
                ids.insert((kind.to_string(), id.to_string()));
            }
        }
    }
    ids
}

fn setup_ids() -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for e in std::fs::read_dir(root().join("reports"))
        .expect("reports")
        .flatten()
    {
        if e.path().extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).expect("read toml");
        let mut in_row = false;
        for l in text.lines() {
            let l = l.trim();
            if l.starts_with('[') {
                in_row = l == "[[reference_setup.row]]";
            } else if let (true, Some(v)) = (in_row, l.strip_prefix("id = ")) {
                ids.insert(v.trim_matches('"').to_string());
            }
        }
    }
    ids
}

/// What is wrong with `rule`, None when it names something that exists.
fn check_rule(
    rule: &str,
    ids: &BTreeSet<(String, String)>,
    setup: &BTreeSet<String>,
    src: &[(PathBuf, String)],
) -> Option<String> {
    let Some((kind, what)) = rule.split_once(':') else {
        return Some("a rule is `kind:what` (verdict:, observation:, setup:, deviation:, table:, collect:, checklist:, non-goal:)".into());
    };
    let what = what.trim();
    let literal_in = |under: &str, name_has: &str| {
        let q = format!("\"{}\"", what.trim_matches('"'));
        src.iter().any(|(p, t)| {
            let p = p.to_string_lossy();
            p.contains(under) && p.contains(name_has) && t.contains(&q)
        })
    };
    let ok = match kind {
        "verdict" | "observation" => ids.iter().any(|(k, id)| k == kind && glob(what, id)),
        "setup" => setup.contains(what),
        "deviation" | "table" => what.starts_with('"') && literal_in("src/suites/", ""),
        // How any collection runs, or a suite's own collection.
        "collect" => {
            what.starts_with('"')
                && (literal_in("src/collect/", "") || literal_in("src/suites/", "collect.rs"))
        }
        "checklist" => what.starts_with('"') && literal_in("src/suites/", "checklist"),
        "non-goal" => what.split_whitespace().count() >= 5,
        _ => return Some(format!("unknown kind `{kind}`")),
    };
    (!ok).then(|| match kind {
        "verdict" | "observation" => format!("no sample's analysis gives a {kind} `{what}`"),
        "setup" => format!("no reports/*.toml has a setup row `{what}`"),
        "non-goal" => "a non-goal needs its reason (five words or more)".to_string(),
        _ => format!("no {what} string in the source where a {kind} would be"),
    })
}

#[test]
fn every_criterion_sentence_of_the_procedures_maps_to_a_rule_that_exists() {
    let Some(dir) = procedures_dir() else {
        skipped("the procedures are not beside the repository (../shared/procedures; REPROBENCH_PROCEDURES names another folder)");
        return;
    };
    let doc = std::fs::read_to_string(root().join("docs/criteria.md")).expect("docs/criteria.md");
    let rows = rows(&doc);
    let mut problems = Vec::new();
    let mut found = Vec::new();
    for name in ["adp-reproducing-the-benchmarks", "spdk-raid5f-vs-xinnor"] {
        let path = dir.join(format!("{name}.txt"));
        let text = std::fs::read_to_string(&path).expect("procedure text");
        let units = units(&text);
        assert!(
            units.len() >= 10,
            "{}: the framing found only {} criteria: {units:?}",
            path.display(),
            units.len()
        );
        for u in uncovered(name, &units, &rows) {
            problems.push(format!(
                "{}:{}: no row of docs/criteria.md covers: {}",
                path.display(),
                u.line,
                u.text
            ));
        }
        found.extend(units.into_iter().map(|u| (name, u)));
    }
    // Rows that match nothing: the procedure's text changed, or the row was mistyped.
    for r in &rows {
        if !found.iter().any(|(p, u)| matches(r, p, u)) {
            problems.push(format!(
                "docs/criteria.md:{}: matches no criterion sentence of {}: {}",
                r.line, r.procedure, r.start
            ));
        }
    }
    let (ids, setup, src) = (sample_ids(), setup_ids(), sources(&root().join("src")));
    for r in &rows {
        for rule in &r.rules {
            if let Some(p) = check_rule(rule, &ids, &setup, &src) {
                problems.push(format!("docs/criteria.md:{}: `{rule}`: {p}", r.line));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_criterion_added_to_a_procedure_or_a_rule_that_does_not_exist_is_caught() {
    let Some(dir) = procedures_dir() else {
        skipped("the procedures are not beside the repository");
        return;
    };
    let doc = std::fs::read_to_string(root().join("docs/criteria.md")).expect("docs/criteria.md");
    let rows = rows(&doc);
    let name = "adp-reproducing-the-benchmarks";
    let text = std::fs::read_to_string(dir.join(format!("{name}.txt"))).expect("procedure");
    assert!(uncovered(name, &units(&text), &rows).is_empty());
    // A new bullet under a "Pass criteria" line, and a new prose sentence that says
    // "must", each in the text as a procedure revision would put them.
    let revised = text
        .replacen(
            "Pass criteria.\n\n",
            "Pass criteria.\n\n• Every restore completes within one second.\n",
            1,
        )
        .replacen(
            "Start each variant once",
            "The gateway must run on the storage server. Start each variant once",
            1,
        );
    let units = units(&revised);
    let missing: Vec<&str> = uncovered(name, &units, &rows)
        .iter()
        .map(|u| u.text.as_str())
        .collect();
    assert_eq!(
        missing,
        [
            "The gateway must run on the storage server.",
            "Every restore completes within one second."
        ],
        "exactly the two new criteria are uncovered"
    );
    // A rule naming what does not exist is refused, kind by kind.
    let ids = BTreeSet::from([("verdict".to_string(), "storage.exit-status".to_string())]);
    let setup = BTreeSet::from(["drives".to_string()]);
    let src = vec![(
        PathBuf::from("src/suites/x/checklist.rs"),
        "\"system/mdstat.txt\"".to_string(),
    )];
    for (rule, ok) in [
        ("verdict:storage.exit-status", true),
        ("verdict:storage.*", true),
        ("observation:storage.exit-status", false),
        ("verdict:storage.nothing", false),
        ("setup:drives", true),
        ("setup:gpu", false),
        ("checklist:\"system/mdstat.txt\"", true),
        ("deviation:\"system/mdstat.txt\"", true),
        ("collect:\"system/mdstat.txt\"", false),
        ("checklist:\"system/lsblk.txt\"", false),
        ("non-goal: because", false),
        ("guess:anything", false),
        ("verdict storage.exit-status", false),
        ("", false),
    ] {
        assert_eq!(check_rule(rule, &ids, &setup, &src).is_none(), ok, "{rule}");
    }
}
