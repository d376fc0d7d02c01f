//! Facts from the host outputs (`system/`): GPUs, NVLink, drives, link, kernel, CPU,
//! memory, OS and server; the kernel also from an iostat banner.

use std::collections::BTreeMap;

use crate::ingest::{Catalog, Kind, Record};
use crate::parse::host::HostFile;

use super::source::at;
use super::{Read, Setup};

/// The kernel from an iostat banner (`Linux 6.8.0-45-generic (host) ...`) when no
/// `uname` output said it.
pub(super) fn iostat_facts(catalog: &Catalog, s: &mut Setup) {
    for item in catalog.of(Kind::Iostat) {
        if let Ok(Record::Iostat(log)) = &item.record {
            if let Some(k) = log
                .banner
                .as_deref()
                .and_then(|b| b.strip_prefix("Linux "))
                .and_then(|r| r.split_whitespace().next())
            {
                s.put("kernel", Read::text(k, item.rel.clone()));
                return;
            }
        }
    }
}

/// The link's bandwidth as `ib_read_bw` measured it, with the line it was read from.
pub(super) fn link_read(b: &crate::parse::host::ib_bw::IbBw, rel: &str) -> Read {
    let v = format!(
        "{:.1} Gb/s measured by {}{}",
        b.average_gbit_s,
        b.test.as_deref().unwrap_or("perftest"),
        b.link_type
            .as_ref()
            .map(|t| format!(" over {t}"))
            .unwrap_or_default()
    );
    Read::num(v, b.average_gbit_s, at(rel, Some(b.line)))
}

pub(super) fn host_facts(catalog: &Catalog, s: &mut Setup) {
    for item in catalog.of(Kind::Host) {
        let Ok(Record::Host(h)) = &item.record else {
            continue;
        };
        let rel = item.rel.as_str();
        match h.as_ref() {
            HostFile::GpuList(l) if !l.gpus.is_empty() => {
                let first = &l.gpus[0];
                let model = if l.gpus.iter().all(|g| g == first) {
                    first.clone()
                } else {
                    l.gpus.join(", ")
                };
                s.put("gpu-model", Read::text(model, rel));
                s.put(
                    "gpu-count",
                    Read::num(l.gpus.len().to_string(), l.gpus.len() as f64, rel),
                );
            }
            HostFile::GpuQuery(q) => gpu_query_facts(q, rel, s),
            HostFile::GpuTopo(t) if t.gpus > 0 => gpu_topo_facts(t, rel, s),
            HostFile::IbBw(b) => s.put("link-gbit", link_read(b, rel)),
            HostFile::NvmeSubsys(n) => {
                let mut transports: Vec<&str> = n.paths.iter().map(|(_, t)| t.as_str()).collect();
                transports.sort_unstable();
                transports.dedup();
                if !transports.is_empty() {
                    s.put("transport", Read::text(transports.join(", "), rel));
                }
            }
            HostFile::NvmeList(l) if !l.devices.is_empty() => nvme_list_facts(l, rel, s),
            HostFile::Uname(u) => s.put("kernel", Read::text(u.kernel.clone(), rel)),
            HostFile::Lscpu(c) => {
                if let Some(m) = &c.model {
                    let v = match c.sockets {
                        Some(n) => format!("{n} × {m}"),
                        None => m.clone(),
                    };
                    s.put("cpu", Read::text(v, rel));
                }
            }
            HostFile::Free(f) => {
                if let Some(g) = f.total_gib {
                    s.put("memory", Read::num(format!("{g:.0} GiB"), g, rel));
                }
            }
            HostFile::OsRelease(o) => {
                if let Some(p) = &o.pretty_name {
                    s.put("os", Read::text(p.clone(), rel));
                }
            }
            HostFile::Product(p) if !p.name.is_empty() => {
                s.put("server", Read::text(p.name.clone(), rel))
            }
            _ => {}
        }
    }
}

/// `nvidia-smi -q`: the driver (its major version as the number), the GPU model and count.
fn gpu_query_facts(q: &crate::parse::host::nvidia_smi::GpuQuery, rel: &str, s: &mut Setup) {
    if let Some(d) = &q.driver {
        let major = d.split('.').next().and_then(|m| m.parse::<f64>().ok());
        s.put(
            "driver",
            Read {
                value: d.clone(),
                number: major,
                source: rel.into(),
            },
        );
    }
    if let Some(p) = &q.product {
        s.put("gpu-model", Read::text(p.clone(), rel));
    }
    if let Some(n) = q.attached {
        s.put("gpu-count", Read::num(n.to_string(), n as f64, rel));
    }
}

/// `nvidia-smi topo -m`: the NVLink domains.
fn gpu_topo_facts(t: &crate::parse::host::nvidia_smi::GpuTopo, rel: &str, s: &mut Setup) {
    let v = if t.nvlink_domains.iter().all(|&d| d == 1) {
        format!("no NVLink between the {} GPUs", t.gpus)
    } else {
        format!(
            "{} NVLink domain(s) of {} GPUs",
            t.nvlink_domains.len(),
            t.nvlink_domains
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" + ")
        )
    };
    s.put(
        "nvlink",
        Read {
            value: v,
            number: Some(t.nvlink_domains.len() as f64),
            source: rel.into(),
        },
    );
    s.facts.insert(
        "nvlink-sizes".into(),
        Read::text(
            t.nvlink_domains
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(","),
            rel,
        ),
    );
}

/// `nvme list`: every device, and the drives by model and size.
fn nvme_list_facts(l: &crate::parse::host::nvme::NvmeList, rel: &str, s: &mut Setup) {
    s.facts.insert(
        "nvme-devices".into(),
        Read::text(
            l.devices
                .iter()
                .map(|d| format!("{}={}={}", d.node, d.model, d.size.as_deref().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(";"),
            rel,
        ),
    );
    let mut models: BTreeMap<String, usize> = BTreeMap::new();
    for d in &l.devices {
        let key = match &d.size {
            Some(sz) => format!(
                "{} ({})",
                d.model,
                sz.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            None => d.model.clone(),
        };
        *models.entry(key).or_default() += 1;
    }
    let v = models
        .iter()
        .map(|(m, n)| format!("{n} × {m}"))
        .collect::<Vec<_>>()
        .join(", ");
    s.put("drives", Read::num(v, l.devices.len() as f64, rel));
}
