//! How a run departs from the procedure it claims to follow: each parameter the procedure
//! fixes, the value the files show, and what the difference does to the comparison. A
//! deviation that changes the comparison turns the verdicts it feeds into `not comparable`.

use serde::Serialize;

use crate::model::phrase::{Phrase, UnitOf};
use crate::model::verdict::{Observation, Status, Verdict};

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Deviation {
    /// The parameter, as the procedure names it (`runtime`, `numjobs`, `--no-early-stop`).
    pub parameter: String,
    /// The procedure's value.
    pub procedure: Phrase,
    /// What the files show ran; `unknown` when they do not say.
    pub ran: Phrase,
    /// Unit of both values, empty when they have none.
    pub unit: UnitOf,
    /// The runs, levels or variants that ran this way.
    pub subjects: Vec<String>,
    /// The files that show it.
    pub files: Vec<String>,
    /// Files its effect was judged from beyond those (a short job's iostat series): the
    /// verdicts it feeds stand on them too, and name them.
    pub evidence: Vec<String>,
    /// What the difference does to the comparison.
    pub effect: String,
    /// Whether the difference changes the comparison (then the criteria it feeds are not
    /// comparable); otherwise it is listed and the verdicts stand.
    pub changes_comparison: bool,
    /// Where the procedure sets the value.
    pub source: String,
    /// Ids of the verdicts this deviation feeds.
    pub verdicts: Vec<String>,
}

impl Deviation {
    pub fn new(
        parameter: impl Into<String>,
        procedure: impl Into<Phrase>,
        ran: impl Into<Phrase>,
    ) -> Deviation {
        Deviation {
            parameter: parameter.into(),
            procedure: procedure.into(),
            ran: ran.into(),
            unit: UnitOf::default(),
            subjects: Vec::new(),
            files: Vec::new(),
            evidence: Vec::new(),
            effect: String::new(),
            changes_comparison: false,
            source: String::new(),
            verdicts: Vec::new(),
        }
    }

    pub fn unit(mut self, unit: crate::model::measurement::Unit) -> Self {
        self.unit = UnitOf::of(unit);
        self
    }

    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subjects.push(subject.into());
        self
    }

    pub fn file(mut self, file: impl Into<String>) -> Self {
        self.files.push(file.into());
        self
    }

    pub fn evidence(mut self, file: impl Into<String>) -> Self {
        self.evidence.push(file.into());
        self
    }

    pub fn effect(mut self, effect: impl Into<String>, changes_comparison: bool) -> Self {
        self.effect = effect.into();
        self.changes_comparison = changes_comparison;
        self
    }

    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = source.into();
        self
    }

    pub fn verdict(mut self, id: impl Into<String>) -> Self {
        let id = id.into();
        if !self.verdicts.contains(&id) {
            self.verdicts.push(id);
        }
        self
    }

    /// `runtime 3 s (procedure: 60 s)`, for verdict notes.
    pub fn short(&self) -> String {
        let unit = |v: &Phrase| {
            if self.unit.is_empty() || v.is("unknown") || v.is("not set") {
                v.to_string()
            } else {
                format!("{v} {}", self.unit)
            }
        };
        format!(
            "{} {} (procedure: {})",
            self.parameter,
            unit(&self.ran),
            unit(&self.procedure)
        )
    }
}

/// Folds deviations that differ only in their subjects into one row each, in the order
/// they were first seen: fourteen runs with the same short runtime are one line.
pub fn merge(devs: Vec<Deviation>) -> Vec<Deviation> {
    let mut out: Vec<Deviation> = Vec::new();
    for d in devs {
        let same = out.iter_mut().find(|o| {
            o.parameter == d.parameter
                && o.procedure == d.procedure
                && o.ran == d.ran
                && o.unit == d.unit
                && o.effect == d.effect
                && o.changes_comparison == d.changes_comparison
        });
        match same {
            Some(o) => {
                for s in d.subjects {
                    if !o.subjects.contains(&s) {
                        o.subjects.push(s);
                    }
                }
                for f in d.files {
                    if !o.files.contains(&f) {
                        o.files.push(f);
                    }
                }
                for f in d.evidence {
                    if !o.evidence.contains(&f) {
                        o.evidence.push(f);
                    }
                }
                for v in d.verdicts {
                    if !o.verdicts.contains(&v) {
                        o.verdicts.push(v);
                    }
                }
            }
            None => out.push(d),
        }
    }
    // Those that change the comparison first: they decide verdicts.
    out.sort_by_key(|d| !d.changes_comparison);
    out
}

/// Makes every judged verdict fed by a deviation that changes the comparison `not
/// comparable`, saying why; other statuses keep their own reason and gain this one. Call
/// it with the deviations before [`merge`], so each verdict names only its own runs.
pub fn apply(verdicts: &mut [Verdict], devs: &[Deviation]) {
    for v in verdicts.iter_mut() {
        // Whatever a deviation was judged from, the verdicts it feeds stand on it.
        for f in devs
            .iter()
            .filter(|d| d.verdicts.contains(&v.id))
            .flat_map(|d| &d.evidence)
        {
            if !v.files.contains(f) {
                v.files.push(f.clone());
            }
        }
        let mine: Vec<&Deviation> = devs
            .iter()
            .filter(|d| d.changes_comparison && d.verdicts.contains(&v.id))
            .collect();
        if mine.is_empty() {
            continue;
        }
        // One clause per effect: `runtime 3 s (procedure: 60 s) in a, b: no steady state`.
        let mut clauses: Vec<Clause> = Vec::new();
        for d in mine {
            let i = match clauses.iter().position(|c| c.effect == d.effect) {
                Some(i) => i,
                None => {
                    clauses.push(Clause {
                        effect: &d.effect,
                        items: Vec::new(),
                    });
                    clauses.len() - 1
                }
            };
            clauses[i].add(d.short(), &d.subjects);
        }
        let by_effect: Vec<(&str, Vec<String>)> = clauses.into_iter().map(Clause::render).collect();
        let reason = by_effect
            .iter()
            .map(|(effect, whats)| format!("{}: {effect}", whats.join("; ")))
            .collect::<Vec<_>>()
            .join(" · ");
        match v.status {
            Status::Pass | Status::Fail => {
                let was = v.status.label();
                v.status = Status::NotComparable;
                v.note = Phrase::joined(
                    [
                        Phrase::words(format!("not comparable (would have been {was}): {reason}")),
                        v.note.clone(),
                    ],
                    "; ",
                );
            }
            _ => {
                v.note = Phrase::joined(
                    [
                        v.note.clone(),
                        Phrase::words(format!("also deviates from the procedure: {reason}")),
                    ],
                    "; ",
                )
            }
        }
    }
}

/// Deviations of one effect in a verdict's note: each short form with its subjects.
struct Clause<'a> {
    effect: &'a str,
    items: Vec<(String, Vec<&'a str>)>,
}

impl<'a> Clause<'a> {
    fn add(&mut self, short: String, subjects: &'a [String]) {
        let i = match self.items.iter().position(|(s, _)| *s == short) {
            Some(i) => i,
            None => {
                self.items.push((short, Vec::new()));
                self.items.len() - 1
            }
        };
        for s in subjects {
            if !self.items[i].1.contains(&s.as_str()) {
                self.items[i].1.push(s);
            }
        }
    }

    fn render(self) -> (&'a str, Vec<String>) {
        let items = self
            .items
            .into_iter()
            .map(|(short, who)| {
                if who.is_empty() {
                    short
                } else {
                    format!("{short} in {}", who.join(", "))
                }
            })
            .collect();
        (self.effect, items)
    }
}

/// The comparison-changing deviations of the runs in `files`, each once.
fn reasons(files: &[String], devs: &[Deviation]) -> Vec<String> {
    let mut why: Vec<String> = Vec::new();
    for d in devs
        .iter()
        .filter(|d| d.changes_comparison && d.files.iter().any(|f| files.contains(f)))
    {
        let s = d.short();
        if !why.contains(&s) {
            why.push(s);
        }
    }
    why
}

/// Says beside every observation read from a deviating run that it does not compare with
/// the published value, and why.
pub fn annotate(observations: &mut [Observation], devs: &[Deviation]) {
    for o in observations.iter_mut() {
        let why = reasons(&o.files, devs);
        if !why.is_empty() {
            o.note = join(
                &format!(
                    "not comparable with the published value: {}",
                    why.join("; ")
                ),
                &o.note,
            );
        }
    }
}

/// Says beside every physical limit read from a deviating run how the run deviates: the
/// same rules as for verdicts and observations.
pub fn annotate_limits(limits: &mut [crate::model::limit::Limit], devs: &[Deviation]) {
    for l in limits.iter_mut() {
        let why = reasons(&l.files, devs);
        if !why.is_empty() {
            l.deviates = why.join("; ");
        }
    }
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}; {b}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(id: &str, status: Status) -> Verdict {
        let mut v = Verdict::new(id, "c", "t", "p");
        v.status = status;
        v
    }

    #[test]
    fn merges_rows_that_differ_only_in_subjects() {
        let a = Deviation::new("runtime", "60", "3")
            .unit(crate::model::measurement::Unit::Seconds)
            .subject("raid10/a")
            .file("raid10/a.json")
            .effect("short", true)
            .verdict("x");
        let b = Deviation::new("runtime", "60", "3")
            .unit(crate::model::measurement::Unit::Seconds)
            .subject("adp/a")
            .file("adp/a.json")
            .effect("short", true)
            .verdict("x");
        let c = Deviation::new("ioengine", "libaio", "io_uring").effect("fine", false);
        let merged = merge(vec![c, a, b]);
        assert_eq!(merged.len(), 2);
        assert_eq!(
            merged[0].parameter, "runtime",
            "comparison-changing rows first"
        );
        assert_eq!(merged[0].subjects, ["raid10/a", "adp/a"]);
        assert_eq!(merged[0].short(), "runtime 3 s (procedure: 60 s)");
    }

    #[test]
    fn only_judged_verdicts_fed_by_a_changing_deviation_become_not_comparable() {
        let mut vs = vec![
            judged("pass", Status::Pass),
            judged("fail", Status::Fail),
            judged("unmeasured", Status::NotMeasured),
            judged("other", Status::Pass),
        ];
        let devs = vec![
            Deviation::new("numjobs", "128", "8")
                .subject("adp/randrw")
                .effect("another shape", true)
                .verdict("pass")
                .verdict("fail")
                .verdict("unmeasured"),
            Deviation::new("ioengine", "libaio", "io_uring")
                .effect("listed only", false)
                .verdict("other"),
        ];
        apply(&mut vs, &devs);
        assert_eq!(vs[0].status, Status::NotComparable);
        assert!(
            vs[0].note.contains("would have been pass"),
            "{}",
            vs[0].note
        );
        assert!(vs[0].note.contains("numjobs 8 (procedure: 128)"));
        assert_eq!(vs[1].status, Status::NotComparable);
        assert_eq!(vs[2].status, Status::NotMeasured);
        assert!(vs[2].note.contains("also deviates"));
        assert_eq!(
            vs[3].status,
            Status::Pass,
            "a listed-only deviation keeps the verdict"
        );
    }
}
