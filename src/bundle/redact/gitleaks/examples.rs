//! The rule set run on the true and false positives gitleaks' authors wrote for each
//! rule.

use super::*;
use std::collections::BTreeMap;

#[derive(Deserialize)]
struct Example {
    #[serde(default)]
    path: String,
    text: String,
}

#[derive(Deserialize)]
struct Examples {
    #[serde(rename = "match")]
    hit: Vec<Example>,
    not: Vec<Example>,
}

#[test]
fn every_rule_finds_its_true_positives_and_none_of_its_false_ones() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/bundle/redact/gitleaks/examples.json"
    );
    let text = std::fs::read_to_string(path).expect("examples.json");
    let all: BTreeMap<String, Examples> = serde_json::from_str(&text).expect("examples parse");
    let data: File = toml::from_str(CONFIG).expect("gitleaks.toml parses");
    let patterns = data.rules.iter().flat_map(|r| {
        let own = r
            .allowlists
            .iter()
            .flat_map(|a| a.regexes.iter().chain(&a.paths));
        r.regex.iter().chain(&r.path).chain(own)
    });
    for p in patterns.chain(&data.allowlist.regexes) {
        assert!(compile(p).is_some(), "does not compile here: {p}");
    }
    let set = rule_set();
    assert!(set.rules.len() >= 200, "{} rules", set.rules.len());
    let mut missed = Vec::new();
    let mut wrong = Vec::new();
    let mut without = Vec::new();
    let (mut hits, mut nots) = (0, 0);
    for rule in &set.rules {
        assert!(
            rule.regex().is_some(),
            "{}: the pattern does not compile",
            rule.id
        );
        let Some(ex) = all.get(&rule.id).filter(|e| !e.hit.is_empty()) else {
            without.push(rule.id.clone());
            continue;
        };
        for e in &ex.hit {
            hits += 1;
            if set.find_by(rule, &e.path, &e.text).is_empty() {
                missed.push(format!("{}: {:?}", rule.id, e.text));
            }
        }
        for e in &ex.not {
            nots += 1;
            let f = set.find_by(rule, &e.path, &e.text);
            if !f.is_empty() {
                wrong.push(format!("{}: {:?} -> {:?}", rule.id, e.text, f));
            }
        }
    }
    eprintln!(
        "{} rules, {hits} true and {nots} false positives checked; no true positive in the source for: {}",
        set.rules.len(),
        without.join(", ")
    );
    assert!(
        missed.is_empty(),
        "{} missed:\n{}",
        missed.len(),
        missed.join("\n")
    );
    assert!(
        wrong.is_empty(),
        "{} false:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(
        without.len() * 20 <= set.rules.len(),
        "too many rules without examples: {without:?}"
    );
}
