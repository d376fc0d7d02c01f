//! When a run started: from the collectors' manifests, else from the fio runs' own
//! JSON.

use crate::ingest::Catalog;

/// When the run started: the earliest `started` of the collectors' manifests, as an
/// instant (whatever offset each was written with), in UTC; one that is not an instant
/// is not a start time. A folder made by hand has no manifest: then the earliest fio
/// run's start, which its JSON gives (`timestamp`, when fio wrote the document, less the
/// run's longest direction `runtime`), in UTC; else unknown.
pub fn started(catalog: &Catalog) -> Option<String> {
    catalog
        .of(crate::ingest::Kind::Manifest)
        .filter_map(|i| i.json()?.get("started")?.as_str().map(str::to_string))
        .filter_map(|s| Some((crate::instant::instant(&s).ok()?, s)))
        .min()
        .and_then(|(_, s)| crate::instant::utc(&s))
        .or_else(|| fio_started(catalog))
}

/// 2005-01-01T00:00:00Z: no fio run started before it.
const FIO_EPOCH: i64 = 1_104_537_600;

/// The earliest start of the fio runs in the folder, in UTC, from their own JSON.
fn fio_started(catalog: &Catalog) -> Option<String> {
    let micros = catalog
        .of(crate::ingest::Kind::Fio)
        .filter_map(|i| match &i.record {
            Ok(crate::ingest::Record::Fio(out)) => {
                // fio 3 writes Unix seconds; anything before 2005 (fio's first
                // release) is no clock reading (0 in files made from published figures).
                let ended = out.output.timestamp.filter(|t| *t >= FIO_EPOCH)?;
                let ran_ms = out
                    .output
                    .jobs
                    .iter()
                    .flat_map(|j| [&j.read, &j.write, &j.trim])
                    .map(|d| d.runtime_ms)
                    .max()
                    .unwrap_or(0);
                let ran_ms = i64::try_from(ran_ms).ok()?;
                let start = ended
                    .checked_mul(1_000_000)?
                    .checked_sub(ran_ms.checked_mul(1_000)?)?;
                (start >= FIO_EPOCH * 1_000_000).then_some(start)
            }
            _ => None,
        })
        .min()?;
    let t = chrono::DateTime::from_timestamp_micros(micros)?;
    Some(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
}
