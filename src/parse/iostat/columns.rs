//! A `Device` header read into its columns: where each kept value stands, and the unit
//! its throughput is in.

use std::rc::Rc;

use crate::error::Problem;
use crate::parse::iostat_row::UNUSED;

/// Which column of a `Device` header holds what we keep (the keys of [`KEYS`], by index).
/// Every block repeats its header: a copy shares the columns' slots.
#[derive(Clone)]
pub(super) struct Columns {
    pub(super) width: usize,
    pub(super) at: Slots,
    /// For each column (up to 64), the slot of [`KEYS`] it fills, or [`UNUSED`]: what the
    /// fast reading of a plain row ([`plain_row`]) looks up per field.
    pub(super) slot_of: Option<Rc<[u8]>>,
    /// Divide throughput by this to get MB/s (1 with `-m`, 1024 with kB columns).
    pub(super) scale: f64,
}

/// The columns kept, in the order of [`Slots`].
const KEYS: [&str; 8] = [
    "r/s", "w/s", "rMB/s", "wMB/s", "r_await", "w_await", "await", "%util",
];

/// Column positions by key, without hashing (looked up for every device row).
#[derive(Default, Clone)]
pub(super) struct Slots(pub(super) [Option<usize>; 8]);

impl Slots {
    fn insert(&mut self, key: &str, at: usize) {
        if let Some(k) = KEYS.iter().position(|x| *x == key) {
            self.0[k] = Some(at);
        }
    }

    fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn get(&self, key: &str) -> Option<&usize> {
        KEYS.iter()
            .position(|x| *x == key)
            .and_then(|k| self.0[k].as_ref())
    }
}

impl Columns {
    pub(super) fn from_header(fields: &[&str], line: usize) -> Result<Columns, Problem> {
        let find = |names: &[&str]| fields.iter().position(|f| names.contains(f));
        let mut at = Slots::default();
        let mut scale = 1.0;
        for (key, names) in [
            ("r/s", &["r/s"][..]),
            ("w/s", &["w/s"][..]),
            ("r_await", &["r_await"][..]),
            ("w_await", &["w_await"][..]),
            ("await", &["await"][..]),
            ("%util", &["%util"][..]),
        ] {
            if let Some(i) = find(names) {
                at.insert(key, i);
            }
        }
        match (find(&["rMB/s"]), find(&["wMB/s"])) {
            (Some(r), Some(w)) => {
                at.insert("rMB/s", r);
                at.insert("wMB/s", w);
            }
            _ => {
                if let (Some(r), Some(w)) = (find(&["rkB/s"]), find(&["wkB/s"])) {
                    at.insert("rMB/s", r);
                    at.insert("wMB/s", w);
                    scale = 1024.0;
                } else if let (Some(r), Some(w)) = (find(&["rsec/s"]), find(&["wsec/s"])) {
                    // Older sysstat without -k/-m: 512-byte sectors.
                    at.insert("rMB/s", r);
                    at.insert("wMB/s", w);
                    scale = 2048.0;
                }
            }
        }
        if !at.contains_key("r/s") || !at.contains_key("rMB/s") {
            return Err(Problem::at(
                line,
                "device header without r/s and rMB/s (or rkB/s, rsec/s) columns; run iostat with -x",
            ));
        }
        let slot_of = (fields.len() <= 64).then(|| {
            let mut slot_of = vec![UNUSED; fields.len()];
            for (k, col) in at.0.iter().enumerate() {
                if let Some(c) = col {
                    slot_of[*c] = k as u8;
                }
            }
            Rc::from(slot_of)
        });
        Ok(Columns {
            width: fields.len(),
            at,
            slot_of,
            scale,
        })
    }
}
