//! The user's setup as the files show it: host outputs (`system/`), compose files, the
//! vLLM servers' startup lines and the fio results' own options. Each fact keeps the file
//! (and line, where there is one) it was read from.

mod fio;
mod host;
mod serving;
mod source;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::ingest::{Catalog, Kind, Record};
use crate::parse::host::HostFile;

use fio::fio_facts;
use host::{host_facts, iostat_facts, link_read};
use serving::{compose_facts, gateway_facts, server_facts};

/// One fact and where it was read.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Read {
    pub value: String,
    pub number: Option<f64>,
    pub source: String,
}

impl Read {
    fn text(value: impl Into<String>, source: impl Into<String>) -> Read {
        Read {
            value: value.into(),
            number: None,
            source: source.into(),
        }
    }

    fn num(value: impl Into<String>, number: f64, source: impl Into<String>) -> Read {
        Read {
            value: value.into(),
            number: Some(number),
            source: source.into(),
        }
    }
}

/// Facts by key (`gpu-model`, `link-gbit`, ...); see [`read`] for the keys.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Setup {
    pub facts: BTreeMap<String, Read>,
}

impl Setup {
    pub fn get(&self, key: &str) -> Option<&Read> {
        self.facts.get(key)
    }

    fn put(&mut self, key: &str, r: Read) {
        self.facts.entry(key.to_string()).or_insert(r);
    }

    /// A fact read back (from a dataset): the first value for a key stays.
    pub fn insert(&mut self, key: &str, r: Read) {
        self.put(key, r);
    }
}

pub fn read(catalog: &Catalog) -> Setup {
    let mut s = Setup::default();
    host_facts(catalog, &mut s);
    server_facts(catalog, &mut s);
    compose_facts(catalog, &mut s);
    fio_facts(catalog, &mut s);
    iostat_facts(catalog, &mut s);
    gateway_facts(catalog, &mut s);
    s
}

/// The first `ib_read_bw` output in the catalog.
pub fn link(catalog: &Catalog) -> Option<Read> {
    catalog.of(Kind::Host).find_map(|item| match &item.record {
        Ok(Record::Host(h)) => match h.as_ref() {
            HostFile::IbBw(b) => Some(link_read(b, &item.rel)),
            _ => None,
        },
        _ => None,
    })
}
