//! Host outputs a results folder keeps beside the results (`system/*.txt` from the
//! collector or saved by hand, compose files): what the reference-setup tables compare.
//! One parser per program's output; each reads only what it recognises and keeps the
//! line it read each fact from.

pub mod compose;
pub mod ib_bw;
pub mod mdstat;
pub mod nvidia_smi;
pub mod nvme;
pub mod system;

use serde::Serialize;

use crate::error::Problem;
use crate::parse::text::TextCheck;

/// One host file, parsed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "format", rename_all = "kebab-case")]
pub enum HostFile {
    /// `ib_read_bw` (or another perftest `_bw` test).
    IbBw(ib_bw::IbBw),
    /// `nvidia-smi -L`.
    GpuList(nvidia_smi::GpuList),
    /// `nvidia-smi -q`.
    GpuQuery(nvidia_smi::GpuQuery),
    /// `nvidia-smi topo -m`.
    GpuTopo(nvidia_smi::GpuTopo),
    /// `nvme list`.
    NvmeList(nvme::NvmeList),
    /// `nvme list-subsys`.
    NvmeSubsys(nvme::NvmeSubsys),
    /// `uname -a`.
    Uname(system::Uname),
    /// `lscpu`.
    Lscpu(system::Lscpu),
    /// `free -g` (or `-m`, `-b`).
    Free(system::Free),
    /// `/etc/os-release`.
    OsRelease(system::OsRelease),
    /// `/sys/class/dmi/id/product_name` (`system/dmi-product.txt`).
    Product(system::Product),
    /// A docker compose file.
    Compose(compose::Compose),
    /// `/proc/mdstat`.
    Mdstat(mdstat::Mdstat),
}

/// Which host format `bytes` hold, decided from the content (the DMI product name is a
/// bare line, so its path decides).
pub fn detect(name: &str, head: &str) -> Option<Format> {
    let name = name.to_ascii_lowercase();
    if compose::looks_like(&name, head) {
        return Some(Format::Compose);
    }
    if mdstat::looks_like(head) {
        return Some(Format::Mdstat);
    }
    if ib_bw::looks_like(head) {
        return Some(Format::IbBw);
    }
    if nvidia_smi::looks_like_query(head) {
        return Some(Format::GpuQuery);
    }
    if nvidia_smi::looks_like_list(head) {
        return Some(Format::GpuList);
    }
    if nvidia_smi::looks_like_topo(head) {
        return Some(Format::GpuTopo);
    }
    if nvme::looks_like_subsys(head) {
        return Some(Format::NvmeSubsys);
    }
    if nvme::looks_like_list(head) {
        return Some(Format::NvmeList);
    }
    if system::looks_like_lscpu(head) {
        return Some(Format::Lscpu);
    }
    if system::looks_like_free(head) {
        return Some(Format::Free);
    }
    if system::looks_like_os_release(head) {
        return Some(Format::OsRelease);
    }
    if system::looks_like_uname(head) {
        return Some(Format::Uname);
    }
    if name == "dmi-product.txt" || name == "product_name" {
        return Some(Format::Product);
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    IbBw,
    GpuList,
    GpuQuery,
    GpuTopo,
    NvmeList,
    NvmeSubsys,
    Uname,
    Lscpu,
    Free,
    OsRelease,
    Product,
    Compose,
    Mdstat,
}

pub fn parse_bytes(format: Format, bytes: &[u8]) -> Result<HostFile, Problem> {
    TextCheck::of(bytes)?;
    let text = crate::parse::text::lossy(bytes);
    let text = text.as_ref();
    Ok(match format {
        Format::IbBw => HostFile::IbBw(ib_bw::parse(text)?),
        Format::GpuList => HostFile::GpuList(nvidia_smi::parse_list(text)),
        Format::GpuQuery => HostFile::GpuQuery(nvidia_smi::parse_query(text)),
        Format::GpuTopo => HostFile::GpuTopo(nvidia_smi::parse_topo(text)),
        Format::NvmeList => HostFile::NvmeList(nvme::parse_list(text)),
        Format::NvmeSubsys => HostFile::NvmeSubsys(nvme::parse_subsys(text)),
        Format::Uname => HostFile::Uname(system::parse_uname(text)),
        Format::Lscpu => HostFile::Lscpu(system::parse_lscpu(text)),
        Format::Free => HostFile::Free(system::parse_free(text)),
        Format::OsRelease => HostFile::OsRelease(system::parse_os_release(text)),
        Format::Product => HostFile::Product(system::parse_product(text)),
        Format::Compose => HostFile::Compose(compose::parse(text)),
        Format::Mdstat => HostFile::Mdstat(mdstat::parse(text)),
    })
}

/// `key : value` lines (nvidia-smi -q, lscpu): the value after the first colon, trimmed,
/// for the first line whose key is `key`.
pub(crate) fn colon_value<'a>(text: &'a str, key: &str) -> Option<(usize, &'a str)> {
    text.lines().enumerate().find_map(|(i, l)| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| (i + 1, v.trim()))
    })
}
