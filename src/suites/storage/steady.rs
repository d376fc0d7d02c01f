//! Steady state, judged from a job's per-second series: the member drives' combined
//! throughput in each iostat sample (iostat's MiB/s, converted to decimal MB/s). The rule
//! is the SNIA Solid State Storage Performance Test Specification's: over a measurement
//! window, the range of the values is within 20% of their mean and the least-squares
//! line's excursion over the window (its slope times the window's length) within 10%.
//! The window is the last half of the job's active seconds (idle seconds before fio
//! started and after it ended do not count), at least five samples.

use serde::Deserialize;

use crate::model::units::{MBps, MiBps};

use super::load::{Loaded, RunGroup};

/// The rule's parameters, from `reports/storage.toml` (`[steady_state]`).
#[derive(Debug, Clone, Deserialize)]
pub struct Rule {
    /// Largest (max - min) / mean in the window.
    pub max_range: f64,
    /// Largest |slope × (window - 1)| / mean in the window.
    pub max_excursion: f64,
    /// Share of the active seconds the window takes, from the end.
    pub window_share: f64,
    /// Fewest samples in a window.
    pub min_window: usize,
    /// A sample under this share of the series' median is idle (before fio started or
    /// after it ended).
    pub idle_share: f64,
    pub source: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Reached,
    NotReached,
    /// Too few active samples for a window.
    TooFew,
}

/// What the rule found over one job's series.
#[derive(Debug, Clone, PartialEq)]
pub struct Steady {
    /// Active samples (idle ones at either end dropped).
    pub active: usize,
    /// The window: 1-based sample indices, first and last, into the whole series.
    pub window: Option<(usize, usize)>,
    pub mean: Option<MBps>,
    /// (max - min) / mean over the window.
    pub range: Option<f64>,
    /// |slope × (n - 1)| / mean over the window.
    pub excursion: Option<f64>,
    pub outcome: Outcome,
}

/// Judges a per-second series (MB/s, in sample order).
pub fn judge(series: &[f64], rule: &Rule) -> Steady {
    let finite: Vec<f64> = series.iter().copied().filter(|v| v.is_finite()).collect();
    let median = crate::suites::kv_common::stats::median(&finite).unwrap_or(0.0);
    let busy = |v: &f64| v.is_finite() && *v > rule.idle_share * median && *v > 0.0;
    let first = series.iter().position(busy);
    let last = series.iter().rposition(busy);
    let (Some(first), Some(last)) = (first, last) else {
        return Steady {
            active: 0,
            window: None,
            mean: None,
            range: None,
            excursion: None,
            outcome: Outcome::TooFew,
        };
    };
    let active = &series[first..=last];
    // The window is the last part of the active seconds; before it the drives settle.
    let n = ((active.len() as f64 * rule.window_share).floor() as usize).max(rule.min_window);
    if active.len() < 2 * rule.min_window || n > active.len() {
        return Steady {
            active: active.len(),
            window: None,
            mean: None,
            range: None,
            excursion: None,
            outcome: Outcome::TooFew,
        };
    }
    let start = active.len() - n;
    let w: Vec<f64> = active[start..]
        .iter()
        .map(|v| if v.is_finite() { *v } else { 0.0 })
        .collect();
    let mean = w.iter().sum::<f64>() / n as f64;
    let (lo, hi) = w
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(*v), h.max(*v))
        });
    let xm = (n as f64 - 1.0) / 2.0;
    let (sxy, sxx) = w.iter().enumerate().fold((0.0, 0.0), |(sxy, sxx), (i, y)| {
        let dx = i as f64 - xm;
        (sxy + dx * (y - mean), sxx + dx * dx)
    });
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let (range, excursion) = if mean > 0.0 {
        ((hi - lo) / mean, (slope * (n as f64 - 1.0)).abs() / mean)
    } else {
        (f64::INFINITY, f64::INFINITY)
    };
    let reached = range <= rule.max_range && excursion <= rule.max_excursion;
    Steady {
        active: active.len(),
        window: Some((first + start + 1, first + active.len())),
        mean: Some(MBps(mean)),
        range: Some(range),
        excursion: Some(excursion),
        outcome: if reached {
            Outcome::Reached
        } else {
            Outcome::NotReached
        },
    }
}

impl Steady {
    /// `steady over samples 31-60 (range 8%, line 2%)`, for effects and notes.
    pub fn describe(&self, rule: &Rule) -> String {
        let pct = |x: Option<f64>| {
            x.map_or(crate::model::phrase::Phrase::dash(), |v| {
                crate::phrase!("{}%", crate::model::phrase::fixed(v * 100.0, 0))
            })
        };
        match (&self.outcome, self.window) {
            (Outcome::TooFew, _) => format!(
                "{} active iostat samples, too few for a steady-state window (the rule needs {})",
                self.active,
                2 * rule.min_window
            ),
            (outcome, Some((a, b))) => crate::phrase!(
                "{} over iostat samples {}-{} (range {}, line {}; the rule allows {}% and {}%)",
                if *outcome == Outcome::Reached {
                    "steady"
                } else {
                    "not steady"
                },
                crate::model::phrase::count(a),
                crate::model::phrase::count(b),
                pct(self.range),
                pct(self.excursion),
                crate::model::phrase::fixed(rule.max_range * 100.0, 0),
                crate::model::phrase::fixed(rule.max_excursion * 100.0, 0)
            )
            .to_string(),
            (_, None) => "no window".into(),
        }
    }
}

/// A job's per-second series: the members' read + write MB/s in each iostat sample
/// (the procedure's record), else fio's own bandwidth log summed over its jobs; and the
/// file(s). None without either, or when the iostat log's members are unknown and fio
/// kept no log.
pub fn series(loaded: &Loaded, g: &RunGroup) -> Option<(Vec<f64>, String)> {
    iostat_series(loaded, g).or_else(|| fio_series(loaded, g))
}

fn fio_series(loaded: &Loaded, g: &RunGroup) -> Option<(Vec<f64>, String)> {
    let logs = loaded
        .bw_logs
        .get(&(g.run.array_dir.clone(), g.run.stem.clone()))?;
    let s = crate::parse::fio_log::per_second(&logs.iter().map(|(_, l)| *l).collect::<Vec<_>>())
        .ok()?;
    let files: Vec<&str> = logs.iter().map(|(f, _)| f.as_str()).collect();
    (!s.is_empty()).then(|| (s, files.join(";")))
}

fn iostat_series(loaded: &Loaded, g: &RunGroup) -> Option<(Vec<f64>, String)> {
    let f = loaded.iostat_for(g.run)?;
    let m = super::members::of(loaded, g).ok()?;
    let s: Vec<f64> = f
        .log
        .samples
        .iter()
        .map(|s| {
            let mib: f64 = s
                .devices
                .iter()
                .filter(|d| m.drives.iter().any(|n| **n == *d.device))
                .map(|d| d.r_mb_s().unwrap_or(0.0) + d.w_mb_s().unwrap_or(0.0))
                .sum();
            MBps::from(MiBps(mib)).0
        })
        .collect();
    (!s.is_empty()).then(|| (s, f.file.clone()))
}

/// The members' mean %util in each sample of a job's iostat log.
pub fn util_series(loaded: &Loaded, g: &RunGroup) -> Option<Vec<Option<f64>>> {
    let f = loaded.iostat_for(g.run)?;
    let m = super::members::of(loaded, g).ok()?;
    Some(
        f.log
            .samples
            .iter()
            .map(|s| {
                let u: Vec<f64> = s
                    .devices
                    .iter()
                    .filter(|d| m.drives.iter().any(|n| **n == *d.device))
                    .filter_map(|d| d.util())
                    .collect();
                (!u.is_empty()).then(|| u.iter().sum::<f64>() / u.len() as f64)
            })
            .collect(),
    )
}

/// Each job's steady state, typed, beside the verdicts that judge its run.
pub fn qualifiers(
    groups: &[RunGroup],
    steadies: &[Option<(Steady, String)>],
    verdicts: &[crate::model::verdict::Verdict],
    rule: &Rule,
) -> Vec<crate::model::qualifier::Qualifier> {
    use crate::model::qualifier::{Outcome as Q, Qualifier, What};
    groups
        .iter()
        .zip(steadies)
        .filter_map(|(g, s)| {
            let (s, files) = s.as_ref()?;
            Some(Qualifier {
                what: What::SteadyState,
                subject: g.label.clone(),
                value: s.range.map(|r| r * 100.0),
                second: s.excursion.map(|e| e * 100.0),
                unit: crate::model::measurement::Unit::Percent,
                expected: Some(rule.max_range * 100.0),
                outcome: match s.outcome {
                    Outcome::Reached => Q::Met,
                    Outcome::NotReached => Q::NotMet,
                    Outcome::TooFew => Q::Unknown,
                },
                verdicts: verdicts
                    .iter()
                    .filter(|v| v.files.contains(&g.run.file))
                    .map(|v| v.id.clone())
                    .filter(|id| !id.ends_with(".exit-status"))
                    .collect(),
                files: files.split(';').map(str::to_string).collect(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> Rule {
        Rule {
            max_range: 0.20,
            max_excursion: 0.10,
            window_share: 0.5,
            min_window: 5,
            idle_share: 0.10,
            source: String::new(),
        }
    }

    #[test]
    fn a_flat_series_is_steady_over_its_last_half() {
        let mut s = vec![0.0, 0.0];
        s.extend((0..20).map(|i| 1000.0 + if i % 2 == 0 { 40.0 } else { -40.0 }));
        s.push(0.0);
        let st = judge(&s, &rule());
        assert_eq!(st.outcome, Outcome::Reached);
        assert_eq!(st.active, 20);
        // The idle seconds at the ends are not the run; the window is its last 10.
        assert_eq!(st.window, Some((13, 22)));
        assert!((st.range.unwrap_or(1.0) - 0.08).abs() < 1e-9);
    }

    #[test]
    fn a_rising_series_fails_the_slope_rule_within_its_range() {
        // 1000 -> 1180 over the window: the range is 17% of the mean (under 20%), and so
        // is the fitted line's climb (over 10%).
        let s: Vec<f64> = (0..20)
            .map(|i| 1000.0 + 20.0 * (i as f64 - 10.0).max(0.0))
            .collect();
        let st = judge(&s, &rule());
        assert_eq!(st.outcome, Outcome::NotReached, "{st:?}");
        assert!(st.range.unwrap_or(1.0) <= 0.20, "{st:?}");
        assert!(st.excursion.unwrap_or(0.0) > 0.10, "{st:?}");
    }

    #[test]
    fn a_noisy_series_fails_the_range_rule_without_a_slope() {
        // A window that reads the same both ways has a flat fitted line.
        let mut s = vec![1000.0; 10];
        s.extend([
            1200.0, 800.0, 800.0, 1200.0, 1000.0, 1000.0, 1200.0, 800.0, 800.0, 1200.0,
        ]);
        let st = judge(&s, &rule());
        assert_eq!(st.outcome, Outcome::NotReached);
        assert!(st.excursion.unwrap_or(1.0) < 0.10 && st.range.unwrap_or(0.0) > 0.20);
    }

    #[test]
    fn three_seconds_are_too_few() {
        let st = judge(&[900.0, 1000.0, 1100.0], &rule());
        assert_eq!(st.outcome, Outcome::TooFew);
        assert_eq!(st.active, 3);
        assert_eq!(judge(&[], &rule()).outcome, Outcome::TooFew);
        assert_eq!(judge(&[0.0, 0.0], &rule()).outcome, Outcome::TooFew);
        assert_eq!(judge(&[f64::NAN; 30], &rule()).outcome, Outcome::TooFew);
    }
}
