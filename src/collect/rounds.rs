//! Rounds of a collection's measured runs: `--repeat N` (N rounds in all) and
//! `--until-settled [MAX]` (after each round the criteria are judged on the results
//! folder; the runs of those still unsettled run again, until none is or MAX rounds are
//! done).
//!
//! A criterion is settled when its status is pass or fail *by a 95% interval over
//! repeated runs*: a point from one run a side, or an interval from within one run a side
//! (batch means), is not settled, however far it sits from the threshold (one run says
//! nothing of how runs differ). It is blocked when no number of rounds of this
//! collection can settle it: nothing measured (the other side has no run), a run that is
//! not a result, a comparison that is not comparable. Rounds stop when nothing left can
//! be settled by running again, and say why.

use crate::model::phrase::UnitOf;
use crate::model::verdict::{Status, Verdict};

/// How many rounds of the measured runs a collection does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounds {
    /// Exactly this many (1: the procedure's one run of each job).
    Fixed(u32),
    /// Until every watched criterion is settled, at most this many.
    UntilSettled(u32),
}

impl Rounds {
    pub fn max(self) -> u32 {
        match self {
            Rounds::Fixed(n) | Rounds::UntilSettled(n) => n.max(1),
        }
    }
}

/// A criterion the rounds watch: its verdict id and the run (job name) behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watched {
    pub verdict: String,
    pub run: String,
}

/// What to do after a round.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Run these jobs again (by name), for the criteria still unsettled.
    Again(Vec<String>),
    /// Stop, and why.
    Stop(String),
}

/// Where one watched criterion stands after a round.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub verdict: String,
    pub run: String,
    pub state: State,
    /// `1.02x, 95% CI 0.91x to 1.14x (Welch t-interval on the log ratio), fail`.
    pub line: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Settled,
    Unsettled,
    Blocked,
}

/// Where each watched criterion stands in `verdicts` (a criterion with no verdict at all
/// is blocked: nothing judges it).
pub fn standings(verdicts: &[Verdict], watched: &[Watched]) -> Vec<Standing> {
    watched
        .iter()
        .map(|w| {
            let Some(v) = verdicts.iter().find(|v| v.id == w.verdict) else {
                return Standing {
                    verdict: w.verdict.clone(),
                    run: w.run.clone(),
                    state: State::Blocked,
                    line: "not judged: no verdict of this id in the analysis".into(),
                };
            };
            let measured = match (v.measured_value, &v.interval) {
                (Some(x), Some(i)) => format!(
                    "{}, 95% CI {} to {} ({})",
                    num(x, &v.unit),
                    bound(i.low, &v.unit),
                    bound(i.high, &v.unit),
                    i.method
                ),
                (Some(x), None) => format!("{}, no interval", num(x, &v.unit)),
                (None, _) => "nothing measured".into(),
            };
            // Only an interval over repeated runs settles: one from within one run a side
            // says nothing of how runs differ.
            let repeated = v
                .interval
                .as_ref()
                .is_some_and(|i| i.runs.iter().any(|n| *n >= 2));
            let state = match (v.status, &v.interval) {
                (Status::Pass | Status::Fail, _) if repeated => State::Settled,
                (Status::Pass | Status::Fail, _) => State::Unsettled,
                // Runs tenfold apart: another round would dilute the odd one, not explain
                // it; the note names them.
                (Status::Inconclusive, Some(i)) if i.apart => State::Blocked,
                (Status::Inconclusive, Some(_)) => State::Unsettled,
                _ => State::Blocked,
            };
            let mut line = format!("{measured}: {}", v.status.label());
            let note = v.note.to_string();
            if state == State::Blocked && !note.is_empty() {
                let clause = first_clause(&note);
                // A note that begins with the status (`not comparable (would have been
                // fail): ...`) says it itself, once.
                match clause
                    .strip_prefix(v.status.label())
                    .filter(|rest| rest.is_empty() || rest.starts_with([' ', '(', ':']))
                {
                    Some(rest) => line.push_str(rest),
                    None => line.push_str(&format!(" ({clause})")),
                }
            }
            Standing {
                verdict: w.verdict.clone(),
                run: w.run.clone(),
                state,
                line,
            }
        })
        .collect()
}

/// After round `round` of at most `max`: run the unsettled criteria's jobs again, or stop
/// and say why.
pub fn next(standings: &[Standing], round: u32, max: u32) -> Next {
    let of = |s: State| -> Vec<&Standing> { standings.iter().filter(|x| x.state == s).collect() };
    let (settled, unsettled, blocked) =
        (of(State::Settled), of(State::Unsettled), of(State::Blocked));
    let name = |xs: &[&Standing]| -> String {
        xs.iter()
            .map(|s| format!("{}: {}", s.verdict, s.line))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let rounds = |n: u32| format!("{n} round{}", if n == 1 { "" } else { "s" });
    let mut why = Vec::new();
    if !settled.is_empty() {
        why.push(format!(
            "settled (the interval on one side of the threshold): {}",
            name(&settled)
        ));
    }
    if !blocked.is_empty() {
        why.push(format!(
            "more rounds of this collection cannot settle: {}",
            name(&blocked)
        ));
    }
    if standings.is_empty() {
        return Next::Stop(
            "no criterion judges the runs of this collection: nothing to settle".into(),
        );
    }
    if unsettled.is_empty() {
        let head = if blocked.is_empty() {
            format!("every criterion settled after {}", rounds(round))
        } else {
            format!("nothing more to settle after {}", rounds(round))
        };
        return Next::Stop(format!("{head}; {}", why.join("; ")));
    }
    if round >= max {
        why.insert(
            0,
            format!(
                "still unsettled: {} (see each verdict's note for about how many more runs would settle it)",
                name(&unsettled)
            ),
        );
        return Next::Stop(format!(
            "not settled after {} (the most asked for); {}",
            rounds(round),
            why.join("; ")
        ));
    }
    let mut runs: Vec<String> = unsettled.iter().map(|s| s.run.clone()).collect();
    runs.sort();
    runs.dedup();
    Next::Again(runs)
}

fn num(x: f64, unit: &UnitOf) -> String {
    match unit.unit {
        Some(u) => crate::model::phrase::qty(x, 2, u).to_string(),
        None => crate::model::phrase::fixed(x, 3).to_string(),
    }
}

/// A bound of an interval: a ratio's only as far as it means something
/// ([`crate::model::phrase::ratio_bound`]).
fn bound(x: f64, unit: &UnitOf) -> String {
    match unit.unit {
        Some(crate::model::measurement::Unit::Ratio) => {
            crate::model::phrase::ratio_bound(x).to_string()
        }
        _ => num(x, unit),
    }
}

fn first_clause(note: &str) -> &str {
    note.split("; ").next().unwrap_or(note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::measurement::Unit;
    use crate::model::phrase::Phrase;
    use crate::model::verdict::Interval;

    fn verdict(id: &str, status: Status, x: Option<f64>, ci: Option<(f64, f64)>) -> Verdict {
        let mut v = Verdict::new(id, "c", Phrase::dash(), Phrase::dash());
        v.status = status;
        v.measured_value = x;
        v.unit = UnitOf::of(Unit::Ratio);
        v.interval = ci.map(|(low, high)| Interval {
            low,
            high,
            level: 0.95,
            method: "m".into(),
            runs: vec![2, 2],
            apart: false,
        });
        v
    }

    fn watched(ids: &[(&str, &str)]) -> Vec<Watched> {
        ids.iter()
            .map(|(v, r)| Watched {
                verdict: (*v).into(),
                run: (*r).into(),
            })
            .collect()
    }

    #[test]
    fn repeats_tenfold_apart_stop_the_rounds_and_their_bounds_read_as_beyond() {
        let w = watched(&[("a", "ra")]);
        let mut v = verdict(
            "a",
            Status::Inconclusive,
            Some(0.25),
            Some((1.8e-13, 3.5e11)),
        );
        v.note =
            "repeats 17,502-fold apart (0.416 vs 7,281 MB/s): run 3 `x-run3.json` and run 2 `x-run2.json`; more"
                .into();
        // Without the mark another round is asked for; with it, more runs would only
        // dilute the odd one.
        assert_eq!(
            standings(std::slice::from_ref(&v), &w)[0].state,
            State::Unsettled
        );
        if let Some(i) = v.interval.as_mut() {
            i.apart = true;
        }
        let s = standings(&[v], &w);
        assert_eq!(s[0].state, State::Blocked);
        assert_eq!(
            s[0].line,
            "0.25x, 95% CI below 0.01x to above 100x (m): inconclusive (repeats 17,502-fold apart (0.416 vs 7,281 MB/s): run 3 `x-run3.json` and run 2 `x-run2.json`)"
        );
        assert!(matches!(next(&s, 1, 5), Next::Stop(_)));
    }

    #[test]
    fn a_blocked_criterion_says_its_status_once() {
        let w = watched(&[("a", "ra")]);
        let mut v = verdict("a", Status::NotComparable, Some(1.01), None);
        v.note =
            "not comparable (would have been FAIL): runtime 20 s (procedure: 60 s); more".into();
        let s = standings(&[v], &w);
        assert_eq!(
            s[0].line,
            "1.01x, no interval: not comparable (would have been FAIL): runtime 20 s (procedure: 60 s)"
        );
        let mut v = verdict("a", Status::NotComparable, Some(1.01), None);
        v.note = "another model; more".into();
        let s = standings(&[v], &w);
        assert_eq!(
            s[0].line,
            "1.01x, no interval: not comparable (another model)"
        );
    }

    #[test]
    fn a_point_from_one_run_is_not_settled_an_interval_on_one_side_is() {
        let w = watched(&[("a", "ra"), ("b", "rb")]);
        let one_run = [
            verdict("a", Status::Pass, Some(5.0), None),
            verdict("b", Status::Fail, Some(1.0), None),
        ];
        assert_eq!(
            next(&standings(&one_run, &w), 1, 5),
            Next::Again(vec!["ra".into(), "rb".into()])
        );
        // An interval from within one run a side (runs [1, 1]) does not settle.
        let mut within = verdict("a", Status::Pass, Some(5.0), Some((4.5, 5.5)));
        if let Some(i) = within.interval.as_mut() {
            i.runs = vec![1, 1];
        }
        assert_eq!(
            next(&standings(&[within], &w[..1]), 1, 5),
            Next::Again(vec!["ra".into()])
        );
        let later = [
            verdict("a", Status::Pass, Some(5.0), Some((4.5, 5.5))),
            verdict("b", Status::Inconclusive, Some(3.9), Some((3.0, 4.8))),
        ];
        assert_eq!(
            next(&standings(&later, &w), 2, 5),
            Next::Again(vec!["rb".into()])
        );
        let Next::Stop(why) = next(&standings(&later, &w), 5, 5) else {
            panic!("the last round stops");
        };
        assert!(why.starts_with("not settled after 5 rounds"), "{why}");
        assert!(why.contains("b: 3.90x, 95% CI 3.00x to 4.80x"), "{why}");
        let done = [
            verdict("a", Status::Pass, Some(5.0), Some((4.5, 5.5))),
            verdict("b", Status::Fail, Some(1.0), Some((0.9, 1.1))),
        ];
        let Next::Stop(why) = next(&standings(&done, &w), 3, 5) else {
            panic!("settled stops");
        };
        assert!(
            why.starts_with("every criterion settled after 3 rounds"),
            "{why}"
        );
    }

    #[test]
    fn what_more_rounds_cannot_settle_stops_the_rounds_and_is_named() {
        let w = watched(&[("a", "ra"), ("missing", "rm")]);
        let mut nothing = verdict("a", Status::NotMeasured, None, None);
        nothing.note = "no `ra` run (or one with its options) in adp; and then".into();
        let Next::Stop(why) = next(&standings(&[nothing], &w), 1, 5) else {
            panic!("blocked stops");
        };
        assert!(
            why.starts_with("nothing more to settle after 1 round;"),
            "{why}"
        );
        assert!(
            why.contains("no `ra` run (or one with its options) in adp"),
            "{why}"
        );
        assert!(why.contains("missing: not judged"), "{why}");
        assert!(!why.contains("and then"), "only the first clause: {why}");
        assert!(matches!(next(&[], 1, 5), Next::Stop(_)));
    }
}
