//! Physical limits as every view shows them: a reading, formula or source that several
//! limits share is said once, with the list of limits it applies to, not once per row
//! (a storage folder's twelve jobs share one formula, one member-drive source per array
//! and usually one reading).

use serde::Serialize;

use crate::model::limit::Limit;

/// One limit's row: its own texts, with the shared ones left empty.
#[derive(Debug, Serialize)]
pub struct Row<'a> {
    pub suite: &'a str,
    pub subject: &'a str,
    pub measured: String,
    pub bound: String,
    pub reading: &'a str,
    pub formula: &'a str,
    pub source: &'a str,
    pub deviates: &'a str,
    /// The reading, source and deviation that are the limit's own, as one text.
    pub own: String,
}

/// A text several limits share, said once.
#[derive(Debug, Serialize)]
pub struct Shared<'a> {
    /// `reading`, `how`, `from` or `deviates`.
    pub what: &'static str,
    pub text: &'a str,
    pub subjects: Vec<&'a str>,
    /// The text as a line says it on its own ([`said`]).
    pub said: String,
    /// The subjects, shortened for a line (`a, b, c and 9 more`), or `all N` when the
    /// text applies to every limit shown: what the terminal says.
    pub applies_to: String,
    /// Every subject, or `all N`: what the reports say.
    pub applies_to_all: String,
}

/// A limit's text as a line says it on its own: a formula and a deviation say what they
/// are; a reading and a source (`member drives: ...`) say it themselves.
pub fn said(what: &str, text: &str) -> String {
    match what {
        "deviates" => format!("from a run that deviates from the procedure: {text}"),
        "how" => format!("computed as: {text}"),
        _ => text.to_string(),
    }
}

/// The rows and the shared texts of a list of limits.
pub fn said_once<'a>(limits: &[&'a Limit]) -> (Vec<Row<'a>>, Vec<Shared<'a>>) {
    type Field = fn(&Limit) -> &str;
    let fields: [(&'static str, Field); 4] = [
        ("reading", |l| &l.reading),
        ("how", |l| &l.formula),
        ("from", |l| &l.source),
        ("deviates", |l| &l.deviates),
    ];
    let mut shared: Vec<Shared<'a>> = Vec::new();
    for (what, field) in fields {
        for l in limits {
            let text = field(l);
            if text.is_empty() || shared.iter().any(|s| s.what == what && s.text == text) {
                continue;
            }
            let subjects: Vec<&str> = limits
                .iter()
                .filter(|o| field(o) == text)
                .map(|o| o.subject.as_str())
                .collect();
            if subjects.len() > 1 {
                let applies_to = if subjects.len() == limits.len() {
                    format!("all {}", subjects.len())
                } else {
                    let owned: Vec<String> = subjects.iter().map(|s| s.to_string()).collect();
                    crate::model::phrase::few(&owned)
                };
                let applies_to_all = if subjects.len() == limits.len() {
                    format!("all {}", subjects.len())
                } else {
                    subjects.join(", ")
                };
                shared.push(Shared {
                    what,
                    text,
                    said: said(what, text),
                    applies_to_all,
                    subjects,
                    applies_to,
                });
            }
        }
    }
    let is_shared =
        |what: &str, text: &str| shared.iter().any(|s| s.what == what && s.text == text);
    let rows = limits
        .iter()
        .map(|l| {
            let own = |what: &str, text: &'a str| if is_shared(what, text) { "" } else { text };
            let (reading, source, deviates) = (
                own("reading", &l.reading),
                own("from", &l.source),
                own("deviates", &l.deviates),
            );
            let joined: Vec<String> = [
                ("reading", reading),
                ("from", source),
                ("deviates", deviates),
            ]
            .into_iter()
            .filter(|(_, t)| !t.is_empty())
            .map(|(w, t)| said(w, t))
            .collect();
            Row {
                suite: &l.suite,
                subject: &l.subject,
                measured: l.measured.to_string(),
                bound: l.bound.to_string(),
                reading,
                formula: own("how", &l.formula),
                source,
                deviates,
                own: joined.join("; "),
            }
        })
        .collect();
    (rows, shared)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::phrase::{Phrase, UnitOf};

    fn limit(subject: &str, reading: &str, source: &str) -> Limit {
        Limit {
            suite: "toy".into(),
            subject: subject.into(),
            measured: Phrase::from("m"),
            measured_value: None,
            bound: Phrase::from("b"),
            bound_value: None,
            unit: UnitOf::count("x"),
            formula: "one formula".into(),
            source: source.into(),
            deviates: String::new(),
            reading: reading.into(),
            files: Vec::new(),
        }
    }

    #[test]
    fn a_text_several_limits_share_is_said_once_with_what_it_applies_to() {
        let ls = [
            limit("adp/a", "ceiling", "mdstat"),
            limit("adp/b", "ceiling", "mdstat"),
            limit("raid10/a", "headroom", "filename"),
        ];
        let refs: Vec<&Limit> = ls.iter().collect();
        let (rows, shared) = said_once(&refs);
        let said: Vec<(&str, &str, &str)> = shared
            .iter()
            .map(|s| (s.what, s.text, s.applies_to.as_str()))
            .collect();
        assert_eq!(
            said,
            vec![
                ("reading", "ceiling", "adp/a, adp/b"),
                ("how", "one formula", "all 3"),
                ("from", "mdstat", "adp/a, adp/b"),
            ]
        );
        // Each row keeps only what is its own.
        assert_eq!(
            (rows[0].reading, rows[0].formula, rows[0].source),
            ("", "", "")
        );
        assert_eq!(
            (rows[2].reading, rows[2].formula, rows[2].source),
            ("headroom", "", "filename")
        );
    }
}
