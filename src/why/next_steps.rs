//! What to check next when a criterion is not met, as data: each suite's rules sit in its
//! `reports/<suite>.toml` (`[[check_next]]`), each naming the verdicts it applies to (an id
//! pattern with `*`, the statuses, words the verdict's note must hold), the advice, and the
//! procedure's text it is drawn from. This module only matches them.

use serde::Deserialize;

use crate::model::verdict::{Status, Verdict};

use crate::model::verdict::NextStep;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Verdict id, with `*` matching any run of characters and `|` between alternatives.
    pub id: String,
    pub when: When,
    /// Words the verdict's note must contain; empty for any note.
    #[serde(default)]
    pub note: String,
    /// Words that, in the note, mean the rule's premise does not hold (the evidence says
    /// something else happened); empty for none.
    #[serde(default)]
    pub unless: String,
    pub text: String,
    pub source: String,
}

/// The statuses a rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum When {
    Fail,
    Inconclusive,
    NotComparable,
    /// Fail, inconclusive or not comparable.
    NotMet,
}

impl When {
    pub fn covers(self, s: Status) -> bool {
        match self {
            When::Fail => s == Status::Fail,
            When::Inconclusive => s == Status::Inconclusive,
            When::NotComparable => s == Status::NotComparable,
            When::NotMet => matches!(
                s,
                Status::Fail | Status::Inconclusive | Status::NotComparable
            ),
        }
    }
}

#[derive(Deserialize)]
struct RulesFile {
    #[serde(default)]
    check_next: Vec<Rule>,
}

/// The `[[check_next]]` rules of a suite's TOML whose id pattern starts with `prefix`
/// (the suite's name and a dot): one TOML may hold the rules of several suites.
pub fn parse(toml_text: &'static str, prefix: &str) -> Result<Vec<Rule>, toml::de::Error> {
    let file: RulesFile = crate::parse::embedded_toml::read(toml_text)?;
    Ok(file
        .check_next
        .into_iter()
        .filter(|r| r.id.split('|').all(|alt| alt.starts_with(prefix)))
        .collect())
}

const DEVIATIONS: &str =
    "this report's Deviations from the procedure (the parameters the procedure fixes)";

/// Generic advice when no rule above matched a verdict, by status.
const FALLBACK: &[(Status, &str, &str)] = &[
    (Status::NotComparable, "Rerun with the procedure's parameters: the Deviations table lists each parameter that differs and the files that show it.", DEVIATIONS),
    (Status::Inconclusive, "Run more repetitions with the procedure's parameters: the files hold too little, or too scattered, evidence to judge.", DEVIATIONS),
    (Status::Fail, "Compare your setup with the reference setup (Conformance): each row that differs predicts how the numbers move.", "the procedures' Reference setup tables"),
];

/// Whether `pattern` (`*` matching any run, `|` between alternatives) matches `s`.
pub fn matches(pattern: &str, s: &str) -> bool {
    pattern.split('|').any(|p| matches_one(p, s))
}

fn matches_one(pattern: &str, s: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == s;
    }
    let mut rest = s;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(p) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(p);
        } else {
            match rest.find(p) {
                Some(at) => rest = &rest[at + p.len()..],
                None => return false,
            }
        }
    }
    true
}

/// The advice for one verdict; empty for a pass or a criterion not measured.
pub fn for_verdict(v: &Verdict, rules: &[Rule]) -> Vec<NextStep> {
    if !matches!(
        v.status,
        Status::Fail | Status::Inconclusive | Status::NotComparable
    ) {
        return Vec::new();
    }
    let mut out: Vec<NextStep> = Vec::new();
    // The note as it reads, written once for every rule's words.
    let note = v.note.to_string();
    for r in rules {
        if matches(&r.id, &v.id)
            && r.when.covers(v.status)
            && (r.note.is_empty() || note.contains(r.note.as_str()))
            && (r.unless.is_empty() || !note.contains(r.unless.as_str()))
        {
            let step = NextStep {
                text: r.text.clone(),
                source: r.source.clone(),
            };
            if !out.contains(&step) {
                out.push(step);
            }
        }
    }
    if out.is_empty() {
        if let Some((_, text, source)) = FALLBACK.iter().find(|(s, _, _)| *s == v.status) {
            out.push(NextStep {
                text: text.to_string(),
                source: source.to_string(),
            });
        }
    }
    out
}

/// Sets every verdict's `check_next` from its suite's rules.
pub fn attach(verdicts: &mut [Verdict], rules: &[Rule]) {
    for v in verdicts {
        v.check_next = for_verdict(v, rules);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_ids() {
        assert!(matches("toy.L*-advantage", "toy.L16-advantage"));
        assert!(!matches("toy.L*-advantage", "toy.L16-parity"));
        assert!(matches("toy.*write*", "toy.randwrite-8k-qd64"));
        assert!(matches("toy.*.degraded", "toy.raid5f-8.degraded"));
        assert!(matches("toy.cached", "toy.cached"));
        assert!(!matches("toy.cached", "toy.cached2"));
    }

    #[test]
    fn rules_parse_by_prefix_and_passes_get_nothing() {
        let toml = r#"
[[check_next]]
id = "toy.a*"
when = "not-met"
unless = "fine"
text = "look at a"
source = "toy procedure"

[[check_next]]
id = "other.b"
when = "fail"
text = "look at b"
source = "other procedure"
"#;
        let rules = parse(toml, "toy.").expect("parses");
        assert_eq!(rules.len(), 1);
        let mut v = Verdict::new("toy.ab", "c", "t", "p");
        v.status = Status::Pass;
        assert!(for_verdict(&v, &rules).is_empty());
        v.status = Status::Inconclusive;
        assert_eq!(for_verdict(&v, &rules)[0].text, "look at a");
        v.note = "it was fine".into();
        let fallback = for_verdict(&v, &rules);
        assert_eq!(fallback.len(), 1, "a fallback when no rule matches");
        assert_ne!(fallback[0].text, "look at a");
        assert!(parse("[[check_next]]\nid = 1\n", "toy.").is_err());
    }
}
