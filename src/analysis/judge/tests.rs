use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::suites::SuiteInfo;

/// A suite that counts: its preparing shares a value (under its own name, or under one
/// name all share), its judging says what it saw.
struct Counting {
    info: &'static SuiteInfo,
    prepared: &'static AtomicUsize,
    key: Option<&'static str>,
    made: &'static AtomicUsize,
}

impl Suite for Counting {
    fn info(&self) -> &'static SuiteInfo {
        self.info
    }

    fn detect(&self, _catalog: &Catalog) -> bool {
        true
    }

    fn prepare(&self, catalog: &Catalog) {
        let key = self.key.unwrap_or(self.info.name);
        catalog.prepare_shared(key, || {
            self.made.fetch_add(1, Ordering::SeqCst);
            // Long enough for the other suites' preparing to ask meanwhile.
            std::thread::sleep(std::time::Duration::from_millis(2));
            format!("{key} read")
        });
        self.prepared.fetch_add(1, Ordering::SeqCst);
    }

    fn analyze(
        &self,
        catalog: &Catalog,
        _opts: &Options,
        _skipped: &mut Vec<Skipped>,
        _frames: &mut Vec<Frame>,
    ) -> SuiteReport {
        let mut report = SuiteReport::for_suite(self);
        // Every found suite has prepared before any judges, and what this one prepared
        // is what it judges from (a value made here would say so).
        report.notes.push(format!(
            "{} prepared; {}",
            self.prepared.load(Ordering::SeqCst),
            catalog.shared(self.key.unwrap_or(self.info.name), || {
                "made while judging".to_string()
            })
        ));
        report
    }
}

#[test]
fn every_found_suite_prepares_before_any_judges_and_judges_from_what_it_prepared() {
    static PREPARED: AtomicUsize = AtomicUsize::new(0);
    static MADE: AtomicUsize = AtomicUsize::new(0);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("notes.txt"), "a file\n").expect("write");
    let catalog = Catalog::scan(dir.path()).expect("scan");
    const fn info(name: &'static str) -> SuiteInfo {
        SuiteInfo {
            name,
            title: name,
            procedure: "none",
            reads: &[],
            reproduce: &[],
        }
    }
    static INFOS: [SuiteInfo; 3] = [info("first"), info("second"), info("third")];
    let [a, b, c] = [0, 1, 2].map(|i| Counting {
        info: &INFOS[i],
        prepared: &PREPARED,
        key: None,
        made: &MADE,
    });
    let registry: [&dyn Suite; 3] = [&a, &b, &c];
    let (analysis, _, _) =
        judge(dir.path(), &catalog, &Options::default(), &registry).expect("judged");
    let notes: Vec<&str> = analysis
        .suites
        .iter()
        .flat_map(|s| s.notes.iter().map(String::as_str))
        .collect();
    assert_eq!(
        notes,
        [
            "3 prepared; first read",
            "3 prepared; second read",
            "3 prepared; third read"
        ]
    );
}

#[test]
fn what_several_suites_prepare_under_one_name_is_made_once_and_dropped_after_judging() {
    static PREPARED: AtomicUsize = AtomicUsize::new(0);
    static MADE: AtomicUsize = AtomicUsize::new(0);
    static INFOS: [SuiteInfo; 8] = [const {
        SuiteInfo {
            name: "sharing",
            title: "sharing",
            procedure: "none",
            reads: &[],
            reproduce: &[],
        }
    }; 8];
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("notes.txt"), "a file\n").expect("write");
    let catalog = Catalog::scan(dir.path()).expect("scan");
    let suites: Vec<Counting> = INFOS
        .iter()
        .map(|info| Counting {
            info,
            prepared: &PREPARED,
            key: Some("levels"),
            made: &MADE,
        })
        .collect();
    let registry: Vec<&dyn Suite> = suites.iter().map(|s| s as &dyn Suite).collect();
    for round in 1..=20 {
        let (analysis, _, _) =
            judge(dir.path(), &catalog, &Options::default(), &registry).expect("judged");
        // Eight suites prepared side by side, one made it, all judged from it ...
        assert_eq!(MADE.load(Ordering::SeqCst), round, "round {round}");
        assert!(analysis
            .suites
            .iter()
            .all(|s| s.notes[0].ends_with("; levels read")));
        // ... and it is gone once judging is over.
        assert_eq!(
            *catalog.shared("levels", || "made after".to_string()),
            "made after"
        );
        catalog.clear_shared();
    }
}
