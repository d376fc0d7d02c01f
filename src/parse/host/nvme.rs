//! `nvme list` (one row per namespace: node, serial, model, size) and `nvme list-subsys`
//! (each controller's transport: `pcie`, `rdma`, `tcp`, `fc`).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NvmeList {
    pub devices: Vec<NvmeDevice>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NvmeDevice {
    /// `/dev/nvme0n1`.
    pub node: String,
    pub model: String,
    /// The namespace's size as printed (`3.84  TB`), when the row has one.
    pub size: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NvmeSubsys {
    /// One entry per controller path, in order: (controller, transport).
    pub paths: Vec<(String, String)>,
}

pub fn looks_like_list(head: &str) -> bool {
    let mut lines = head.lines();
    lines.any(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        w.first() == Some(&"Node") && w.contains(&"SN") && w.contains(&"Model")
    })
}

/// Columns are placed by the header's column starts (the dashes line under it when
/// present), since models contain spaces.
pub fn parse_list(text: &str) -> NvmeList {
    let lines: Vec<&str> = text.lines().collect();
    let Some(h) = lines.iter().position(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        w.first() == Some(&"Node") && w.contains(&"Model")
    }) else {
        return NvmeList { devices: vec![] };
    };
    let header = lines[h];
    let col = |name: &str| header.find(name);
    let (Some(model_at), Some(ns_at)) = (col("Model"), col("Namespace")) else {
        return NvmeList { devices: vec![] };
    };
    let usage_at = col("Usage");
    let format_at = col("Format");
    let cut = |l: &str, a: usize, b: Option<usize>| -> String {
        let end = b.unwrap_or(l.len()).min(l.len());
        l.get(a.min(end)..end).unwrap_or("").trim().to_string()
    };
    let mut devices = Vec::new();
    for l in &lines[h + 1..] {
        if !l.trim_start().starts_with("/dev/") {
            continue;
        }
        let node = l.split_whitespace().next().unwrap_or("").to_string();
        let model = cut(l, model_at, Some(ns_at));
        let size = usage_at.map(|u| cut(l, u, format_at)).and_then(|u| {
            // `1.23  TB /   3.84  TB`: the namespace's size is after the slash.
            u.split('/').nth(1).map(|s| s.trim().to_string())
        });
        devices.push(NvmeDevice { node, model, size });
    }
    NvmeList { devices }
}

pub fn looks_like_subsys(head: &str) -> bool {
    head.contains("nvme-subsys") && head.contains("NQN=")
}

pub fn parse_subsys(text: &str) -> NvmeSubsys {
    let mut paths = Vec::new();
    for l in text.lines() {
        let t = l.trim().trim_start_matches(['+', '\\', '-', ' ']);
        let mut w = t.split_whitespace();
        let (Some(ctrl), Some(transport)) = (w.next(), w.next()) else {
            continue;
        };
        if ctrl.starts_with("nvme")
            && !ctrl.starts_with("nvme-subsys")
            && ["pcie", "rdma", "tcp", "fc", "loop"].contains(&transport)
        {
            paths.push((ctrl.to_string(), transport.to_string()));
        }
    }
    NvmeSubsys { paths }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_models_with_spaces() {
        let t = "Node                  Generic               SN                   Model                                    Namespace  Usage                      Format           FW Rev\n\
--------------------- --------------------- -------------------- ---------------------------------------- ---------- -------------------------- ---------------- --------\n\
/dev/nvme0n1          /dev/ng0n1            S64FNE0R800001       SAMSUNG MZQL23T8HCLS-00A07               0x1          1.23  TB /   3.84  TB    512   B +  0 B   GDC5902Q\n";
        assert!(looks_like_list(t));
        let l = parse_list(t);
        assert_eq!(l.devices.len(), 1);
        assert_eq!(l.devices[0].model, "SAMSUNG MZQL23T8HCLS-00A07");
        assert_eq!(l.devices[0].size.as_deref(), Some("3.84  TB"));
    }

    #[test]
    fn reads_transports() {
        let t = "nvme-subsys0 - NQN=nqn.2024-01.com.example:adp\n               hostnqn=nqn.2014-08.org.nvmexpress:uuid:1\n\\\n +- nvme0 rdma traddr=10.0.0.2,trsvcid=4420 live\n +- nvme1 pcie 0000:3b:00.0 live\n";
        assert!(looks_like_subsys(t));
        assert_eq!(
            parse_subsys(t).paths,
            [
                ("nvme0".into(), "rdma".into()),
                ("nvme1".into(), "pcie".into())
            ]
        );
    }
}
