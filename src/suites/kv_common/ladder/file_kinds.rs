//! Each ladder file's record as the kind its name says, or why it is not one.

use crate::error::Problem;
use crate::ingest::{Item, Kind, Record};
use crate::parse::client_log::ClientLog;
use crate::parse::{mt_records, prom};

/// What a ladder file must be, when its content says it is something else.
fn wrong_kind(item: &Item, want: Kind) -> Problem {
    Problem::whole(format!(
        "named as {} but holds {}",
        want.label(),
        item.kind.label()
    ))
}

pub(super) fn as_client_log(item: &Item) -> Result<&ClientLog, Problem> {
    match &item.record {
        Ok(Record::ClientLog(l)) => Ok(l),
        Ok(_) => Err(wrong_kind(item, Kind::ClientLog)),
        Err(p) => Err(p.clone()),
    }
}

pub(super) fn as_records(item: &Item) -> Result<&[mt_records::Record], Problem> {
    match &item.record {
        Ok(Record::ClientRecords(r)) => Ok(r),
        Ok(_) => Err(wrong_kind(item, Kind::ClientRecords)),
        Err(p) => Err(p.clone()),
    }
}

pub(super) fn as_series(item: &Item) -> Result<&crate::parse::prom_series::PromSeries, Problem> {
    match &item.record {
        Ok(Record::PromSeries(s)) => Ok(s),
        Ok(_) => Err(wrong_kind(item, Kind::PromSeries)),
        Err(p) => Err(p.clone()),
    }
}

pub(super) fn as_snapshot(item: &Item) -> Result<&prom::Snapshot, Problem> {
    match &item.record {
        Ok(Record::Prometheus(s)) => Ok(s),
        Ok(_) => Err(wrong_kind(item, Kind::Prometheus)),
        Err(p) => Err(p.clone()),
    }
}
