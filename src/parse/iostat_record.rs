//! What an `iostat -x` log is read into, from its text ([`super::iostat`]) or its JSON
//! ([`super::iostat_json`]): the samples after the since-boot block, each with its CPU
//! shares and one row per device.

use std::sync::Arc;

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IostatLog {
    /// The banner's first line, e.g. `Linux 6.1.0 (host) 11/30/26 _x86_64_ (2 CPU)`.
    pub banner: Option<String>,
    /// Samples after the since-boot block, in order.
    pub samples: Vec<IostatSample>,
    /// Whether the last line was cut off (iostat killed mid-write) and dropped.
    pub truncated_tail: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IostatSample {
    /// 1 for the first interval after the since-boot block.
    pub index: usize,
    /// The `-t` timestamp, as iostat printed it (its locale's format).
    pub time: Option<String>,
    pub cpu_system: Option<f64>,
    pub cpu_iowait: Option<f64>,
    pub devices: Vec<DeviceRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceRow {
    /// The device's name, shared by its rows of every sample of the log.
    #[serde(serialize_with = "as_str")]
    pub device: Arc<str>,
    pub r_s: Option<f64>,
    pub w_s: Option<f64>,
    pub r_mb_s: Option<f64>,
    pub w_mb_s: Option<f64>,
    pub r_await: Option<f64>,
    pub w_await: Option<f64>,
    /// Older sysstat's `await`: reads and writes together (no `r_await`/`w_await`).
    pub await_ms: Option<f64>,
    pub util: Option<f64>,
}

fn as_str<S: serde::Serializer>(s: &Arc<str>, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(s)
}

/// An empty sample, the `index`th of its log.
pub(crate) fn new_block(index: usize) -> IostatSample {
    IostatSample {
        index,
        time: None,
        cpu_system: None,
        cpu_iowait: None,
        devices: Vec::new(),
    }
}
