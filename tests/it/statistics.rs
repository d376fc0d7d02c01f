//! The statistics behind verdict intervals against a reference implementation: scipy
//! (pinned in `.ci/run`), run on fixed inputs where it is installed. Student's t
//! quantiles at integer and Welch's fractional degrees of freedom, and the 95% interval
//! of a ratio of two pools, computed by scipy from the logarithms (Welch's t-test's
//! confidence interval, and a one-sample t interval for the one-repeated-side case), and
//! the interval from within one run a side (batch means, numpy and scipy's t).

use std::process::Command;

use reprobench::stats::ratio::{ratio, ratio_pooled, Method};
use reprobench::stats::student;

use crate::common::*;

const POOLS: &[(&[f64], &[f64])] = &[
    (&[330.0, 331.0, 329.0], &[1650.0, 1655.0, 1648.0]),
    (&[330.0, 400.0], &[1500.0, 1800.0, 1700.0, 1650.0]),
    (
        &[1082.0, 1100.0, 1050.0, 1090.0, 1075.0],
        &[6934.0, 13175.0],
    ),
    (&[330.0], &[1324.0, 2481.0]),
    (&[330.0, 350.0, 340.0], &[1500.0]),
];

/// Equal to the reference's number to 1e-8 of it (or absolutely, below 1).
fn close(ours: f64, reference: f64) -> bool {
    (ours - reference).abs() < 1e-8 * reference.abs().max(1.0)
}

/// The numbers of a JSON list.
fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x.as_f64())
        .collect()
}

/// The Python that has scipy, or the test skipped (visibly) when there is none here.
fn scipy(test: &str) -> Option<String> {
    let py = python_with("REPROBENCH_SCIPY_PYTHON", "scipy.stats");
    if py.is_none() {
        assert!(
            !everything_installed(),
            "CI installs scipy (REPROBENCH_SCIPY_PYTHON)"
        );
        skipped(&format!("{test} needs scipy (pip install scipy)"));
    }
    py
}

/// `script` run by `py` with `request` as JSON on its standard input; its JSON answer.
fn ask_python(py: &str, script: &str, request: &serde_json::Value) -> serde_json::Value {
    let mut child = Command::new(py)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(request.to_string().as_bytes())
            .expect("write");
    }
    let out = child.wait_with_output().expect("scipy answers");
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn quantiles_and_ratio_intervals_equal_scipy_s() {
    let Some(py) = scipy("the statistics reference test") else {
        return;
    };
    let script = r#"
import json, sys, math
import numpy as np
from scipy import stats
req = json.load(sys.stdin)
out = {"t": [float(stats.t.ppf(p, df)) for p, df in req["t"]], "ratio": []}
for b, c in req["pools"]:
    lb, lc = np.log(b), np.log(c)
    if len(b) >= 2 and len(c) >= 2:
        ci = stats.ttest_ind(lc, lb, equal_var=False).confidence_interval(0.95)
        lo, hi = ci.low, ci.high
    else:
        rep, one = (lb, lc) if len(b) >= 2 else (lc, lb)
        d = lc.mean() - lb.mean()
        s = rep.std(ddof=1)
        se = s * math.sqrt(1 / len(b) + 1 / len(c))
        t = stats.t.ppf(0.975, len(rep) - 1)
        lo, hi = d - t * se, d + t * se
    out["ratio"].append([math.exp(lc.mean() - lb.mean()), math.exp(lo), math.exp(hi)])
out["within"] = []
for (bx, bw), (cx, cw) in req["within"]:
    def bm(w, k=5):
        w = np.asarray(w, dtype=float)
        size = len(w) // k
        m = w[len(w) - size * k:].reshape(k, size).mean(axis=1)
        return m.mean(), m.std(ddof=1) / math.sqrt(k), k - 1
    mb, sb, db = bm(bw)
    mc, sc, dc = bm(cw)
    vb, vc = (sb / mb) ** 2, (sc / mc) ** 2
    df = (vb + vc) ** 2 / (vb ** 2 / db + vc ** 2 / dc)
    d = math.log(cx / bx)
    h = stats.t.ppf(0.975, df) * math.sqrt(vb + vc)
    out["within"].append([math.exp(d - h), math.exp(d + h)])
out["pooled"] = []
for b, c in req["pools"]:
    if len(b) >= 2 and len(c) >= 2:
        ci = stats.ttest_ind(np.log(c), np.log(b), equal_var=True).confidence_interval(0.95)
        out["pooled"].append([math.exp(ci.low), math.exp(ci.high)])
    else:
        out["pooled"].append(None)
print(json.dumps(out))
"#;
    let t_cases: Vec<(f64, f64)> = vec![
        (0.975, 1.0),
        (0.975, 2.0),
        (0.975, 3.7),
        (0.975, 12.5),
        (0.95, 4.0),
        (0.999, 2.5),
        (0.6, 30.0),
    ];
    // (a run's bandwidth, its per-second window) for the baseline, then the candidate.
    type Run = (f64, Vec<f64>);
    let within: Vec<(Run, Run)> = vec![
        (
            (
                1082.0,
                (0..30)
                    .map(|i| 1000.0 + ((i * 37) % 11) as f64 * 9.0)
                    .collect(),
            ),
            (
                6934.0,
                (0..30)
                    .map(|i| 6900.0 + ((i * 13) % 7) as f64 * 40.0)
                    .collect(),
            ),
        ),
        (
            (330.0, (0..12).map(|i| 330.0 + (i % 3) as f64).collect()),
            (
                1650.0,
                (0..17)
                    .map(|i| 1600.0 + ((i * 7) % 5) as f64 * 30.0)
                    .collect(),
            ),
        ),
    ];
    let req = serde_json::json!({ "t": t_cases, "pools": POOLS, "within": within });
    let v = ask_python(&py, script, &req);
    for ((p, df), want) in t_cases.iter().zip(v["t"].as_array().into_iter().flatten()) {
        let want = want.as_f64().unwrap_or(f64::NAN);
        let got = student::quantile(*p, *df);
        assert!(close(got, want), "t({p}, {df}): {got} vs scipy {want}");
    }
    for ((b, c), want) in POOLS
        .iter()
        .zip(v["ratio"].as_array().into_iter().flatten())
    {
        let r = ratio(b, c).expect("ratio");
        let (lo, hi, _, m) = r.interval.expect("an interval");
        let w = floats(want);
        assert!(
            close(r.estimate, w[0]) && close(lo, w[1]) && close(hi, w[2]),
            "{b:?} vs {c:?} ({}): ours {} [{lo}, {hi}], scipy {w:?}",
            m.name(),
            r.estimate
        );
        assert_eq!(m == Method::Welch, b.len() >= 2 && c.len() >= 2);
    }
    // The pooled-variance interval (the ladder's variants): scipy's Student t-test with
    // equal variances.
    let mut pooled = 0;
    for ((b, c), want) in POOLS
        .iter()
        .zip(v["pooled"].as_array().into_iter().flatten())
    {
        let r = ratio_pooled(b, c).expect("ratio");
        let (lo, hi, _, m) = r.interval.expect("an interval");
        let Some(w) = want.as_array() else {
            assert_ne!(m, Method::Pooled, "one side has one run: {b:?} {c:?}");
            continue;
        };
        let w: Vec<f64> = w.iter().filter_map(|x| x.as_f64()).collect();
        assert_eq!(m, Method::Pooled);
        assert!(
            close(lo, w[0]) && close(hi, w[1]),
            "{b:?} vs {c:?}: ours [{lo}, {hi}], scipy {w:?}"
        );
        pooled += 1;
    }
    assert_eq!(pooled, 3);
    // One run a side: batch means over each run's window (5 batches, the oldest samples
    // that do not fill one dropped), t on the log ratio with Welch's degrees of freedom.
    use reprobench::stats::batch::{batch_means, within_run_ratio, BATCHES};
    assert_eq!(v["within"].as_array().map(Vec::len), Some(within.len()));
    for (((bx, bw), (cx, cw)), want) in within
        .iter()
        .zip(v["within"].as_array().into_iter().flatten())
    {
        let (b, c) = (
            batch_means(bw, BATCHES).expect("batches"),
            batch_means(cw, BATCHES).expect("batches"),
        );
        let r = within_run_ratio((*bx, &b), (*cx, &c)).expect("ratio");
        let (lo, hi, _, m) = r.interval.expect("an interval");
        assert_eq!(m, Method::WithinRun);
        let w = floats(want);
        assert!(
            close(lo, w[0]) && close(hi, w[1]),
            "ours [{lo}, {hi}], numpy and scipy {w:?}"
        );
    }
}

/// Mann-Whitney's exact U test (compare's second opinion over runs) against scipy's
/// `mannwhitneyu(x, y, method="exact")`: U of the first sample and the two-sided p, on
/// pools of 2 to 12 runs, with ties and without, and the smallest p each size can give.
#[test]
fn rank_test_equals_scipy_s_exact_mann_whitney() {
    let Some(py) = scipy("the rank test's reference test") else {
        return;
    };
    let mut pools: Vec<(Vec<f64>, Vec<f64>)> = POOLS
        .iter()
        .filter(|(b, c)| b.len() >= 2 && c.len() >= 2)
        .map(|(b, c)| (b.to_vec(), c.to_vec()))
        .collect();
    pools.extend([
        (vec![1.0, 2.0], vec![3.0, 4.0]),
        (
            vec![100.0, 101.0, 102.0, 103.0, 126.0],
            vec![120.0, 121.0, 122.0, 123.0, 124.0],
        ),
        (vec![5.0, 5.0, 6.0, 7.0], vec![5.0, 6.0, 8.0]),
        (
            (0..12).map(|i| 100.0 + ((i * 7) % 12) as f64).collect(),
            (0..9).map(|i| 104.5 + ((i * 5) % 9) as f64).collect(),
        ),
    ]);
    let script = r#"
import json, sys
from scipy import stats
out = []
for x, y in json.load(sys.stdin):
    r = stats.mannwhitneyu(x, y, method="exact", alternative="two-sided")
    best = stats.mannwhitneyu(sorted(range(len(x))), [len(x) + i for i in range(len(y))], method="exact")
    out.append([float(r.statistic), float(r.pvalue), float(best.pvalue)])
print(json.dumps(out))
"#;
    let v = ask_python(&py, script, &serde_json::json!(pools));
    let want = v.as_array().expect("a list");
    assert_eq!(want.len(), pools.len());
    for ((x, y), w) in pools.iter().zip(want) {
        let w = floats(w);
        let r = reprobench::stats::rank::mann_whitney(x, y).expect("a test");
        assert!(
            close(r.u, w[0]) && close(r.p, w[1]) && close(r.smallest_p, w[2]),
            "{x:?} vs {y:?}: ours U {} p {} smallest {}, scipy {w:?}",
            r.u,
            r.p,
            r.smallest_p
        );
    }
}

/// Test 1's limit band (see `stats::band`) against scipy: the median of the recompute
/// times times the exponentiated half-width of scipy's one-sample t interval of their
/// logarithms (`stats.t.interval(0.95, n-1, scale=sem)`).
#[test]
fn the_limit_band_equals_scipy_s_t_interval_of_the_logarithms() {
    let Some(py) = scipy("the limit band's reference test") else {
        return;
    };
    let pools: Vec<Vec<f64>> = vec![
        vec![47.70, 47.71, 47.72],
        vec![44.0, 48.0, 52.0],
        vec![1.26, 1.31],
        vec![30.0, 90.0, 31.0, 33.5, 29.0],
    ];
    let script = r#"
import json, sys, math
import numpy as np
from scipy import stats
out = []
for v in json.load(sys.stdin):
    logs = np.log(v)
    lo, hi = stats.t.interval(0.95, len(v) - 1, loc=0.0, scale=stats.sem(logs))
    m = float(np.median(v))
    out.append([m, m * math.exp(lo), m * math.exp(hi)])
print(json.dumps(out))
"#;
    let v = ask_python(&py, script, &serde_json::json!(pools));
    let want = v.as_array().expect("a list");
    assert_eq!(want.len(), pools.len());
    for (pool, w) in pools.iter().zip(want) {
        let b = reprobench::stats::band::around_median(pool).expect("a band");
        let w = floats(w);
        assert!(
            close(b.center, w[0]) && close(b.low, w[1]) && close(b.high, w[2]),
            "{pool:?}: ours {b:?}, scipy {w:?}"
        );
    }
}
