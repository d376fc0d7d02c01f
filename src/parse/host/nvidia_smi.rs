//! `nvidia-smi -L` (one line per GPU), `nvidia-smi -q` (the driver and product) and
//! `nvidia-smi topo -m` (which GPUs share NVLink).

use serde::Serialize;

use super::colon_value;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuList {
    /// Product name per GPU, in index order (`NVIDIA H200 NVL`).
    pub gpus: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuQuery {
    pub driver: Option<String>,
    pub attached: Option<u32>,
    /// The first `Product Name`.
    pub product: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuTopo {
    pub gpus: usize,
    /// Sizes of the groups of GPUs joined by NVLink (`NV#` cells), largest first.
    pub nvlink_domains: Vec<usize>,
}

/// `GPU 0: NVIDIA H200 NVL (UUID: GPU-...)`.
fn list_line(l: &str) -> Option<String> {
    let rest = l.trim().strip_prefix("GPU ")?;
    let (idx, rest) = rest.split_once(':')?;
    idx.trim().parse::<u32>().ok()?;
    let name = rest.split(" (UUID").next()?.trim();
    (!name.is_empty()).then(|| name.to_string())
}

pub fn looks_like_list(head: &str) -> bool {
    head.lines()
        .take(8)
        .any(|l| list_line(l).is_some() && l.contains("(UUID:"))
}

pub fn parse_list(text: &str) -> GpuList {
    GpuList {
        gpus: text.lines().filter_map(list_line).collect(),
    }
}

pub fn looks_like_query(head: &str) -> bool {
    head.contains("NVSMI LOG")
        || (head.contains("Driver Version") && head.contains("Attached GPUs"))
}

pub fn parse_query(text: &str) -> GpuQuery {
    GpuQuery {
        driver: colon_value(text, "Driver Version").map(|(_, v)| v.to_string()),
        attached: colon_value(text, "Attached GPUs").and_then(|(_, v)| v.parse().ok()),
        product: colon_value(text, "Product Name").map(|(_, v)| v.to_string()),
    }
}

fn gpu_index(cell: &str) -> Option<usize> {
    cell.strip_prefix("GPU")?.parse().ok()
}

pub fn looks_like_topo(head: &str) -> bool {
    let mut lines = head.lines().map(str::trim);
    lines.any(|l| l.starts_with("GPU0") && l.split_whitespace().nth(1) == Some("GPU1"))
        || head.contains("Legend:") && head.contains("NV#")
}

pub fn parse_topo(text: &str) -> GpuTopo {
    let mut header: Vec<String> = Vec::new();
    let mut links: Vec<(usize, usize)> = Vec::new();
    let mut gpus = 0;
    for l in text.lines() {
        let cells: Vec<&str> = l.split_whitespace().collect();
        if header.is_empty() {
            if cells.first().and_then(|c| gpu_index(c)) == Some(0) {
                header = cells.iter().map(|c| c.to_string()).collect();
            }
            continue;
        }
        let Some(row) = cells.first().and_then(|c| gpu_index(c)) else {
            continue;
        };
        gpus = gpus.max(row + 1);
        for (col, cell) in cells.iter().skip(1).enumerate() {
            let Some(other) = header.get(col).and_then(|h| gpu_index(h)) else {
                break;
            };
            if cell.starts_with("NV") && other != row {
                links.push((row, other));
            }
        }
    }
    // Groups joined by NVLink: union-find over the GPUs.
    let mut parent: Vec<usize> = (0..gpus).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for (a, b) in links {
        if a < gpus && b < gpus {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
    }
    let mut sizes = std::collections::BTreeMap::new();
    for i in 0..gpus {
        *sizes.entry(root(&mut parent, i)).or_insert(0usize) += 1;
    }
    let mut nvlink_domains: Vec<usize> = sizes.into_values().collect();
    nvlink_domains.sort_unstable_by(|a, b| b.cmp(a));
    GpuTopo {
        gpus,
        nvlink_domains,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_gpus_and_reads_the_driver() {
        let l = "GPU 0: NVIDIA H200 NVL (UUID: GPU-1)\nGPU 1: NVIDIA H200 NVL (UUID: GPU-2)\n";
        assert!(looks_like_list(l));
        assert_eq!(parse_list(l).gpus, ["NVIDIA H200 NVL", "NVIDIA H200 NVL"]);
        let q = "==============NVSMI LOG==============\n\nDriver Version                            : 580.65.06\nAttached GPUs                             : 8\nGPU 00000000:18:00.0\n    Product Name                          : NVIDIA H200 NVL\n";
        assert!(looks_like_query(q));
        let q = parse_query(q);
        assert_eq!(q.driver.as_deref(), Some("580.65.06"));
        assert_eq!(q.attached, Some(8));
        assert_eq!(q.product.as_deref(), Some("NVIDIA H200 NVL"));
    }

    #[test]
    fn topo_groups_gpus_by_nvlink() {
        let t = "\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\n\
GPU0\t X \tNV18\tSYS\tSYS\tPXB\t0-31\n\
GPU1\tNV18\t X \tSYS\tSYS\tSYS\t0-31\n\
GPU2\tSYS\tSYS\t X \tNV18\tSYS\t32-63\n\
GPU3\tSYS\tSYS\tNV18\t X \tSYS\t32-63\n\nLegend:\n  NV# = Connection traversing a bonded set of # NVLinks\n";
        assert!(looks_like_topo(t));
        let t = parse_topo(t);
        assert_eq!(t.gpus, 4);
        assert_eq!(t.nvlink_domains, [2, 2]);
    }
}
