//! The SPDK JSON config in the article's shape: attach every NVMe controller, then build
//! the array (`bdev_raid_create`, or Xinnor's `bdev_rdx_raid_create` + `bdev_rdx_raid_init`),
//! then `bdev_wait_for_examine`.

use serde_json::{json, Value};

use super::Raid;

/// What the array is built from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Members {
    /// PCIe addresses (`0000:45:00.0`): controllers `nvme0..` are attached, bdevs `nvme0n1..`.
    Pcie(Vec<String>),
    /// Existing bdev names, used as they are.
    Bdevs(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct Spec {
    pub members: Members,
    pub raid: Raid,
    pub name: String,
    pub strip_kb: u32,
}

impl Spec {
    pub fn drives(&self) -> usize {
        match &self.members {
            Members::Pcie(a) | Members::Bdevs(a) => a.len(),
        }
    }

    /// The bdevs the array (or fio, for raw drives) uses.
    pub fn base_bdevs(&self) -> Vec<String> {
        match &self.members {
            Members::Pcie(a) => (0..a.len()).map(|i| format!("nvme{i}n1")).collect(),
            Members::Bdevs(b) => b.clone(),
        }
    }
}

/// A PCIe address as SPDK wants it: `dddd:bb:dd.f`.
pub fn check_pcie(addr: &str) -> Result<(), String> {
    let ok = {
        let parts: Vec<&str> = addr.split([':', '.']).collect();
        parts.len() == 4
            && [4, 2, 2, 1]
                .iter()
                .zip(&parts)
                .all(|(n, p)| p.len() == *n && p.chars().all(|c| c.is_ascii_hexdigit()))
    };
    if ok {
        Ok(())
    } else {
        Err(format!("`{addr}` is not a PCIe address like 0000:45:00.0"))
    }
}

fn bdev_subsystem(spec: &Spec) -> Value {
    let mut nvme_options = json!({
        "action_on_timeout": "none", "timeout_us": 0, "timeout_admin_us": 0,
        "keep_alive_timeout_ms": 10000, "transport_retry_count": 4, "arbitration_burst": 0,
        "low_priority_weight": 0, "medium_priority_weight": 0, "high_priority_weight": 0,
        "nvme_adminq_poll_period_us": 10000, "nvme_ioq_poll_period_us": 0,
        "io_queue_requests": 512, "delay_cmd_submit": true, "bdev_retry_count": 3,
        "transport_ack_timeout": 0, "ctrlr_loss_timeout_sec": 0, "reconnect_delay_sec": 0,
        "fast_io_fail_timeout_sec": 0});
    // The article's raid5f config sets generate_uuids; its Xinnor config does not.
    if !matches!(spec.raid, Raid::Xinnor(_)) {
        if let Some(m) = nvme_options.as_object_mut() {
            m.insert("generate_uuids".into(), json!(false));
        }
    }
    let mut config = vec![
        json!({"method": "bdev_set_options", "params": {
            "bdev_io_pool_size": 65535, "bdev_io_cache_size": 256, "bdev_auto_examine": true}}),
        json!({"method": "bdev_nvme_set_options", "params": nvme_options}),
    ];
    if let Members::Pcie(addrs) = &spec.members {
        for (i, a) in addrs.iter().enumerate() {
            config.push(json!({"method": "bdev_nvme_attach_controller", "params": {
                "name": format!("nvme{i}"), "trtype": "PCIe", "traddr": a,
                "prchk_reftag": false, "prchk_guard": false, "ctrlr_loss_timeout_sec": 0,
                "reconnect_delay_sec": 0, "fast_io_fail_timeout_sec": 0}}));
        }
        config.push(json!({"method": "bdev_nvme_set_hotplug", "params": {"period_us": 100000, "enable": false}}));
    }
    let bdevs = spec.base_bdevs();
    match &spec.raid {
        Raid::None => {}
        Raid::Spdk(level) => config.push(json!({"method": "bdev_raid_create", "params": {
            "name": spec.name, "strip_size_kb": spec.strip_kb, "raid_level": level, "base_bdevs": bdevs}})),
        Raid::Xinnor(level) => {
            config.push(json!({"method": "bdev_rdx_raid_create", "params": {
                "name": spec.name, "strip_size_kb": spec.strip_kb, "raid_level": level, "base_bdevs": bdevs}}));
            config.push(json!({"method": "bdev_rdx_raid_init", "params": {"name": spec.name, "command": "force"}}));
        }
    }
    config.push(json!({"method": "bdev_wait_for_examine"}));
    json!({"subsystem": "bdev", "config": config})
}

/// The subsystems Xinnor's published config sets before `bdev`.
fn xinnor_preamble() -> Vec<Value> {
    let sock = |name: &str| {
        json!({"method": "sock_impl_set_options", "params": {
        "impl_name": name, "recv_buf_size": 2097152, "send_buf_size": 2097152,
        "enable_recv_pipe": true, "enable_quickack": false, "enable_placement_id": 0,
        "enable_zerocopy_send_server": true, "enable_zerocopy_send_client": false,
        "zerocopy_threshold": 0, "tls_version": 0, "enable_ktls": false}})
    };
    vec![
        json!({"subsystem": "scheduler", "config": [
            {"method": "framework_set_scheduler", "params": {"name": "static"}}]}),
        json!({"subsystem": "accel", "config": []}),
        json!({"subsystem": "vmd", "config": []}),
        json!({"subsystem": "sock", "config": [sock("posix"), sock("ssl")]}),
    ]
}

/// The config as pretty JSON, ending with a newline.
pub fn render(spec: &Spec) -> Result<String, String> {
    if spec.drives() == 0 {
        return Err("no drives: give --pcie addresses or --bdevs names".into());
    }
    if let Members::Pcie(addrs) = &spec.members {
        for a in addrs {
            check_pcie(a)?;
        }
        let mut sorted = addrs.clone();
        sorted.sort();
        sorted.dedup();
        if sorted.len() != addrs.len() {
            return Err("a PCIe address is listed twice".into());
        }
    }
    if let Some(min) = match &spec.raid {
        Raid::Spdk(l) if l == "raid5f" => Some(3),
        Raid::Xinnor(5) => Some(3),
        Raid::Xinnor(6) => Some(4),
        _ => None,
    } {
        if spec.drives() < min {
            return Err(format!(
                "{} needs at least {min} drives, got {}",
                spec.raid,
                spec.drives()
            ));
        }
    }
    if spec.strip_kb == 0 || !spec.strip_kb.is_power_of_two() {
        return Err(format!(
            "strip size {} KiB is not a power of two",
            spec.strip_kb
        ));
    }
    let mut subsystems = match spec.raid {
        Raid::Xinnor(_) => xinnor_preamble(),
        _ => Vec::new(),
    };
    subsystems.push(bdev_subsystem(spec));
    let doc = json!({ "subsystems": subsystems });
    serde_json::to_string_pretty(&doc)
        .map(|s| s + "\n")
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(raid: Raid, n: usize) -> Spec {
        Spec {
            members: Members::Pcie((0..n).map(|i| format!("0000:{:02x}:00.0", i + 1)).collect()),
            raid,
            name: "raid5".into(),
            strip_kb: 64,
        }
    }

    #[test]
    fn builds_the_article_order() {
        let text = render(&spec(Raid::Spdk("raid5f".into()), 8)).expect("renders");
        let v: Value = serde_json::from_str(&text).expect("json");
        let methods: Vec<&str> = v["subsystems"][0]["config"]
            .as_array()
            .expect("config")
            .iter()
            .filter_map(|m| m["method"].as_str())
            .collect();
        assert_eq!(methods.first(), Some(&"bdev_set_options"));
        assert_eq!(
            methods
                .iter()
                .filter(|m| **m == "bdev_nvme_attach_controller")
                .count(),
            8
        );
        assert_eq!(
            &methods[methods.len() - 2..],
            ["bdev_raid_create", "bdev_wait_for_examine"]
        );
        let x = render(&spec(Raid::Xinnor(5), 8)).expect("renders");
        assert!(x.contains("bdev_rdx_raid_init") && x.contains("\"framework_set_scheduler\""));
    }

    #[test]
    fn refuses_bad_specs() {
        let mut s = spec(Raid::Spdk("raid5f".into()), 2);
        assert!(render(&s).expect_err("too few").contains("at least 3"));
        s = spec(Raid::Spdk("raid5f".into()), 8);
        s.members = Members::Pcie(vec!["45:00.0".into(); 3]);
        assert!(render(&s)
            .expect_err("bad addr")
            .contains("not a PCIe address"));
        s.members = Members::Pcie(vec!["0000:45:00.0".into(); 3]);
        assert!(render(&s).expect_err("dup").contains("twice"));
        s = spec(Raid::Spdk("raid5f".into()), 8);
        s.strip_kb = 48;
        assert!(render(&s).is_err());
    }
}
