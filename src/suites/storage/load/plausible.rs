//! Dropping iostat logs that cannot be their job's: too many samples, a banner dated
//! outside the job, or a banner naming another host.

use std::collections::BTreeMap;

use crate::ingest::walk::Skipped;

use super::Loaded;

/// The samples an iostat log beside a job may hold: the procedure's helper runs
/// `iostat -xm 1` from just before fio starts until it ends, so about one per second of
/// the job, plus what fio spends before and after its runtime (laying out files, ramp
/// time): half the runtime again and 30 s more. Only an upper bound: a longer interval
/// gives fewer samples.
fn samples_allowed(runtime_s: f64) -> f64 {
    runtime_s * 1.5 + 30.0
}

/// The host most of an array folder's iostat logs name in their banners, when more than
/// half of those with a banner agree.
fn usual_hosts(loaded: &Loaded) -> BTreeMap<String, (String, usize)> {
    // Host names compared without case (DNS names have none).
    let mut counts: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
    let mut named: BTreeMap<&str, usize> = BTreeMap::new();
    for ((dir, _), io) in &loaded.iostat {
        if let Some(h) = io.log.banner_host() {
            *counts
                .entry(dir)
                .or_default()
                .entry(h.to_ascii_lowercase())
                .or_default() += 1;
            *named.entry(dir).or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter_map(|(dir, hosts)| {
            let (host, n) = hosts.into_iter().max_by_key(|(_, n)| *n)?;
            (n * 2 > named[dir]).then(|| (dir.to_string(), (host, n)))
        })
        .collect()
}

/// An iostat log that cannot be this job's is not used for it: what it says about the
/// drives would be about another run. It is skipped with the reason. Three signs, each
/// from the files: far more one-second samples than the job ran, a banner dated outside
/// the job's days (its start to when fio wrote its result, a day either side), and a
/// banner naming another host than most of the array folder's logs (case aside: another
/// machine's log renamed beside the job).
pub(super) fn drop_implausible_iostat(loaded: &mut Loaded, skipped: &mut Vec<Skipped>) {
    let usual = usual_hosts(loaded);
    let mut drop = Vec::new();
    for (key, io) in &loaded.iostat {
        let Some(run) = loaded
            .runs
            .iter()
            .find(|r| r.array_dir == key.0 && r.stem == key.1)
        else {
            continue;
        };
        let runtime_ms = run
            .groups
            .iter()
            .map(|g| g.read.runtime_ms.max(g.write.runtime_ms))
            .max()
            .unwrap_or(0);
        let runtime_s = runtime_ms as f64 / 1000.0;
        let samples = io.log.samples.len();
        let date = |(y, m, d): (i64, u32, u32)| format!("{y}-{m:02}-{d:02}");
        // A timestamp before 2000 is no clock reading (files made by hand or from
        // published figures write 0): the date is then unknown, and not compared.
        let fio_clock = run.output.timestamp.filter(|&ts| ts >= 946_684_800);
        let why = if samples as f64 > samples_allowed(runtime_s) {
            Some(
                crate::phrase!(
                    "{} samples beside a job of {} s (`{}`); iostat -xm 1 runs only while the job does",
                    crate::model::phrase::count(samples),
                    crate::model::phrase::fixed(runtime_s, 1),
                    crate::model::phrase::name(run.file.as_str())
                )
                .to_string(),
            )
        } else if let (Some(ts), Some(false)) = (
            fio_clock,
            // fio writes its timestamp when the job ends: the log is dated between the
            // job's start and its end.
            fio_clock.and_then(|ts| io.log.dated_within(ts - runtime_s.ceil() as i64, ts)),
        ) {
            Some(format!(
                "its banner is dated {} and fio wrote `{}` on {} (UTC); iostat runs beside the job",
                io.log
                    .banner_dates()
                    .into_iter()
                    .map(date)
                    .collect::<Vec<_>>()
                    .join(" or "),
                run.file,
                date(crate::parse::iostat_record::civil_from_unix(ts))
            ))
        } else {
            match (io.log.banner_host(), usual.get(&key.0)) {
                (Some(h), Some((usual_host, n))) if !h.eq_ignore_ascii_case(usual_host) => Some(format!(
                    "its banner names host `{h}`, and {n} of the folder's other iostat logs name `{usual_host}`"
                )),
                _ => None,
            }
        };
        if let Some(why) = why {
            drop.push(key.clone());
            skipped.push(Skipped {
                file: io.file.clone(),
                line: None,
                reason: format!("not this job's iostat log: {why}"),
            });
        }
    }
    for key in drop {
        loaded.iostat.remove(&key);
    }
}
