//! Facts from the fio results' own options: version, direct I/O, devices, compression.

use std::collections::BTreeMap;

use crate::ingest::{layout, Catalog, Kind};

use super::{Read, Setup};

pub(super) fn fio_facts(catalog: &Catalog, s: &mut Setup) {
    // Every array's devices, for comparisons: `adp: /dev/a:/dev/b; raid10: /dev/c`.
    let mut devices: BTreeMap<String, (String, String)> = BTreeMap::new();
    for item in catalog.of(Kind::Fio) {
        let Some(rec) = item.fio_record() else {
            continue;
        };
        let rel = item.rel.as_str();
        if let Some(v) = &rec.output.fio_version {
            s.put("fio-version", Read::text(v.clone(), rel));
        }
        // The first reporting group's options: global and job options merged at ingest.
        let Some(opts) = rec.groups.first().map(|g| &g.options) else {
            continue;
        };
        if opts.get("ioengine").is_some_and(|e| e == "spdk_bdev") {
            continue;
        }
        if let Some(d) = opts.get("direct") {
            s.put("fio-direct", Read::text(d.clone(), rel));
        }
        if let Some(f) = opts.get("filename") {
            s.put("fio-filename", Read::text(f.clone(), rel));
            let array = layout::name_of(layout::dir_of(rel)).to_string();
            devices.entry(array).or_insert((f.clone(), rel.to_string()));
        }
        if let Some(c) = opts.get("buffer_compress_percentage") {
            if let Ok(n) = c.parse::<f64>() {
                s.put("fio-compress", Read::num(c.clone(), n, rel));
            }
        }
    }
    if !devices.is_empty() {
        let value = devices
            .iter()
            .map(|(a, (f, _))| format!("{a}: {f}"))
            .collect::<Vec<_>>()
            .join("; ");
        let source = devices
            .values()
            .map(|(_, r)| r.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        s.put("fio-devices", Read::text(value, source));
    }
}
