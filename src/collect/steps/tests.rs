//! The steps' tests, and the fake runner and step the collectors' tests share.

use super::*;
use crate::process::{Fake, Invocation};

#[test]
fn dates_are_civil() {
    let now = now_utc();
    assert_eq!(now.len(), 20, "{now}");
    assert!(now.starts_with("20") && now.ends_with('Z'));
    assert_eq!(duration(45), "45 s");
    assert_eq!(duration(3900), "1 h 05 min");
}

/// A runner whose commands naming `bad` fail and naming `absent` are not installed.
pub(crate) fn fake() -> Fake {
    Fake {
        answer: Some(Box::new(|inv: &Invocation| {
            if inv.display().contains("bad") {
                Err(ProcessError::Failed {
                    command: inv.display(),
                    status: "exit status: 1".into(),
                    stderr: "warming up\nerror: it broke\n".into(),
                })
            } else if inv.display().contains("absent") {
                Err(ProcessError::Failed {
                    command: inv.display(),
                    status: "exit status: 127".into(),
                    stderr: "absent: command not found\n".into(),
                })
            } else {
                Ok(Default::default())
            }
        })),
        ..Fake::default()
    }
}

/// A session of no parameters writing its manifest to `path`.
fn session(path: &std::path::Path) -> Session {
    Session::new(
        path.to_path_buf(),
        "p",
        "c",
        serde_json::Value::Null,
        Vec::new(),
    )
}

/// A step that runs `run N`, checked by its exit status.
pub(crate) fn step(n: &str) -> Step {
    Step::new(
        n,
        Origin::tool("a test step"),
        Invocation::new("run").arg(n),
        Check::Exit,
    )
}

#[test]
fn failures_count_missing_optional_programs_do_not_and_a_rerun_resumes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = tmp.path().join("m.json");
    let params = serde_json::json!({"a": 1});
    let mut s = Session::new(path.clone(), "p", "c", params.clone(), Vec::new());
    let steps = [
        step("good"),
        step("bad"),
        step("absent").optional(),
        step("good2"),
    ];
    let ran = s.execute(&steps, &fake()).expect("runs");
    assert_eq!(
        (ran.ok, ran.failed, ran.skipped, ran.exit_code()),
        (2, 1, 1, 1)
    );
    assert_eq!(ran.records[1].result, "failed: error: it broke");
    assert_eq!(
        ran.records[2].result,
        "missing: the program is not installed here"
    );
    // Again with the same parameters: the finished steps are skipped.
    let mut again = Session::new(path.clone(), "p", "c", params, Vec::new());
    let f = fake();
    let ran = again.execute(&steps, &f).expect("runs");
    assert_eq!(ran.skipped, 3, "{:?}", ran.records);
    let calls = f.calls.lock().map(|c| c.clone()).unwrap_or_default();
    // The failed step runs again, and so does the missing program: it may be there now.
    assert_eq!(
        calls,
        ["run bad", "run absent"],
        "the finished steps are not run again"
    );
    // With other parameters nothing is skipped.
    let mut other = Session::new(path, "p", "c", serde_json::json!({"a": 2}), Vec::new());
    let f = fake();
    other.execute(&steps, &f).expect("runs");
    assert_eq!(f.calls.lock().map(|c| c.len()).unwrap_or(0), 4);
}

#[test]
fn a_conditional_step_runs_only_when_its_test_holds_right_before_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut s = session(&tmp.path().join("m.json"));
    // The test is asked when the step comes up, not when the list is made: here it
    // reads a marker file the first step's stand-in leaves.
    let marker = tmp.path().join("slow");
    let seen = marker.clone();
    let asks = move || {
        if seen.exists() {
            Ok(())
        } else {
            Err("the first was not slow".to_string())
        }
    };
    let steps = [
        step("first"),
        step("repeat").only_if("the first was slow", asks),
    ];
    let f = fake();
    let ran = s.execute(&steps, &f).expect("runs");
    assert_eq!(ran.records[1].result, "not needed: the first was not slow");
    assert_eq!(ran.records[1].exit, "not run");
    assert_eq!((ran.ok, ran.skipped, ran.exit_code()), (1, 1, 0));
    assert_eq!(
        f.calls.lock().map(|c| c.clone()).unwrap_or_default(),
        ["run first"]
    );
    std::fs::write(&marker, "").expect("w");
    let mut s = session(&tmp.path().join("m2.json"));
    let f = fake();
    let ran = s.execute(&steps, &f).expect("runs");
    assert_eq!(ran.records[1].result, "ok");
    assert_eq!(
        f.calls.lock().map(|c| c.clone()).unwrap_or_default(),
        ["run first", "run repeat"]
    );
}

#[test]
fn a_failed_required_step_stops_the_rest() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut s = session(&tmp.path().join("m.json"));
    let ran = s
        .execute(&[step("bad").required(), step("good")], &fake())
        .expect("runs");
    assert_eq!(ran.records.len(), 1);
    assert_eq!(ran.exit_code(), 1);
}
