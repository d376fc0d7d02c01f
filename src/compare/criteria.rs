//! Each criterion's status on both sides, changed ones first.

use std::collections::BTreeMap;

use super::{Campaign, CriterionPair};

/// Each criterion's status on both sides (a pooled side shows each input's status),
/// changed ones first.
pub(super) fn criteria(base: &[Campaign], new: &[Campaign]) -> Vec<CriterionPair> {
    let statuses = |side: &[Campaign]| -> BTreeMap<String, (String, Vec<String>)> {
        let mut m: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
        for a in side {
            for v in &a.verdicts {
                let e = m
                    .entry(v.id.clone())
                    .or_insert_with(|| (v.criterion.clone(), Vec::new()));
                e.1.push(v.status.clone());
            }
        }
        m
    };
    let (b, n) = (statuses(base), statuses(new));
    let mut ids: Vec<&String> = b.keys().chain(n.keys()).collect();
    ids.sort();
    ids.dedup();
    let show = |v: Option<&(String, Vec<String>)>| -> String {
        match v {
            None => "-".into(),
            Some((_, s)) => {
                let mut s = s.clone();
                s.dedup();
                s.join(" / ")
            }
        }
    };
    let mut out: Vec<CriterionPair> = ids
        .into_iter()
        .map(|id| {
            let (bs, ns) = (show(b.get(id)), show(n.get(id)));
            CriterionPair {
                id: id.clone(),
                criterion: b
                    .get(id)
                    .or(n.get(id))
                    .map(|x| x.0.clone())
                    .unwrap_or_default(),
                changed: bs != ns,
                base: bs,
                new: ns,
            }
        })
        .collect();
    out.sort_by_key(|c| !c.changed);
    out
}
