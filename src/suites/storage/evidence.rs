//! What a results folder says about its arrays' member drives, found once for the
//! suite: `/proc/mdstat` arrays and the collector manifests' `--drives`
//! ([`super::members`] judges each array from it).

use crate::ingest::{Catalog, Record};
use crate::parse::host::mdstat::MdArray;
use crate::parse::host::HostFile;

/// The evidence about members a results folder holds, found once.
#[derive(Debug, Clone, Default)]
pub struct Evidence<'c> {
    /// `/proc/mdstat` arrays, with their file.
    pub mdstat: Vec<(String, &'c MdArray)>,
    /// Collector manifests: (file, array, device, drives).
    pub manifests: Vec<(String, String, String, Vec<String>)>,
}

impl<'c> Evidence<'c> {
    /// The files this evidence came from.
    pub fn files(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .mdstat
            .iter()
            .map(|(f, _)| f.clone())
            .chain(self.manifests.iter().map(|m| m.0.clone()))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    pub fn read(catalog: &'c Catalog) -> Evidence<'c> {
        let mut e = Evidence::default();
        for i in &catalog.items {
            match &i.record {
                Ok(Record::Host(h)) => {
                    if let HostFile::Mdstat(m) = h.as_ref() {
                        e.mdstat.extend(m.arrays.iter().map(|a| (i.rel.clone(), a)));
                    }
                }
                Ok(Record::Json(v)) if crate::ingest::layout::is_manifest(&i.rel) => {
                    let p = &v["parameters"];
                    let (Some(array), Some(drives)) = (p["array"].as_str(), p["drives"].as_array())
                    else {
                        continue;
                    };
                    let drives: Vec<String> = drives
                        .iter()
                        .filter_map(|d| d.as_str())
                        .map(|d| base(d).to_string())
                        .collect();
                    if drives.is_empty() {
                        continue;
                    }
                    let dev = p["dev"].as_str().unwrap_or("").to_string();
                    e.manifests
                        .push((i.rel.clone(), array.to_string(), dev, drives));
                }
                _ => {}
            }
        }
        e
    }
}

/// A device path's last component (`/dev/nvme0n1` → `nvme0n1`).
pub(super) fn base(path: &str) -> &str {
    path.trim().rsplit('/').next().unwrap_or(path)
}
