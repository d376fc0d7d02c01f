//! `collect sysinfo`: what the procedures' "Report the results" sections and reference-setup
//! tables ask for that a host can give, under `system/` with the names the checklist
//! reads. A program that is not installed is recorded as missing, not an error.

use std::path::{Path, PathBuf};

use super::scripts::Scripts;
use super::steps::origin::lines;
use super::steps::{Check, Origin, Step};

/// What to capture: the file under `system/` and the command that prints it.
pub fn commands(
    xdp: u32,
    ib_peer: Option<&str>,
    ib_file: Option<&Path>,
) -> Vec<(String, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut list: Vec<(String, Vec<String>)> = vec![
        ("nvme-list.txt".into(), s(&["nvme", "list"])),
        ("nvme-list-subsys.txt".into(), s(&["nvme", "list-subsys"])),
        ("mdstat.txt".into(), s(&["cat", "/proc/mdstat"])),
        (
            "lsblk.txt".into(),
            s(&["lsblk", "-o", "NAME,SIZE,TYPE,MODEL,SERIAL,MOUNTPOINTS"]),
        ),
        ("uname.txt".into(), s(&["uname", "-a"])),
        ("os-release.txt".into(), s(&["cat", "/etc/os-release"])),
        ("lscpu.txt".into(), s(&["lscpu"])),
        ("free.txt".into(), s(&["free", "-g"])),
        ("nvidia-smi-L.txt".into(), s(&["nvidia-smi", "-L"])),
        ("nvidia-smi-q.txt".into(), s(&["nvidia-smi", "-q"])),
        (
            "nvidia-smi-topo.txt".into(),
            s(&["nvidia-smi", "topo", "-m"]),
        ),
        (
            "dmi-product.txt".into(),
            s(&["cat", "/sys/class/dmi/id/product_name"]),
        ),
        ("docker-version.txt".into(), s(&["docker", "version"])),
        (
            "docker-images.txt".into(),
            s(&["docker", "images", "--digests"]),
        ),
        ("fio-version.txt".into(), s(&["fio", "--version"])),
        ("sysstat-version.txt".into(), s(&["iostat", "-V"])),
        (
            "pliocli-system-get_status.txt".into(),
            s(&["pliocli", "system", "get_status"]),
        ),
        (
            "pliocli-system-get_disk_usage.txt".into(),
            s(&["pliocli", "system", "get_disk_usage", "-x", "0"]),
        ),
        (
            "pliocli-raid-get_raid_info.txt".into(),
            vec![
                "pliocli".into(),
                "raid".into(),
                "get_raid_info".into(),
                "-x".into(),
                xdp.to_string(),
            ],
        ),
    ];
    match (ib_peer, ib_file) {
        (_, Some(f)) => list.push((
            "ib_read_bw.txt".into(),
            vec!["cat".into(), f.display().to_string()],
        )),
        (Some(peer), None) => list.push((
            "ib_read_bw.txt".into(),
            vec!["ib_read_bw".into(), peer.to_string()],
        )),
        (None, None) => {}
    }
    list
}

/// Whether the procedures ask support to receive `file`, or why reprobench keeps it.
fn origin_of(file: &str) -> Origin {
    match file {
        "nvme-list.txt" | "mdstat.txt" | "pliocli-raid-get_raid_info.txt" => {
            Origin::procedure(lines::STORAGE_REPORT, lines::STORAGE_SENT)
        }
        "nvme-list-subsys.txt"
        | "pliocli-system-get_status.txt"
        | "pliocli-system-get_disk_usage.txt"
        | "ib_read_bw.txt" => Origin::procedure(lines::KV_REPORT, lines::KV_SENT),
        "lsblk.txt" => Origin::tool("which block devices the host has and what is mounted on them: the setup comparison and what the guard saw"),
        "uname.txt" | "os-release.txt" => Origin::tool("the kernel and OS row of the setup comparison"),
        "lscpu.txt" | "free.txt" | "dmi-product.txt" => Origin::tool("the server, CPU and memory rows of the setup comparison"),
        "nvidia-smi-L.txt" | "nvidia-smi-q.txt" | "nvidia-smi-topo.txt" => Origin::tool("the GPU model, count, driver and NVLink rows of the setup comparison"),
        "docker-version.txt" | "docker-images.txt" => Origin::tool("the images and their digests, held against the procedure's images"),
        "fio-version.txt" | "sysstat-version.txt" => Origin::tool("the tools' versions: how their output reads depends on them"),
        _ => Origin::tool("a system fact the bundle keeps"),
    }
}

/// What support asks for that this collection will not collect, and how to get it.
pub fn not_collected(ib_peer: Option<&str>, ib_file: Option<&Path>) -> Option<String> {
    (ib_peer.is_none() && ib_file.is_none()).then(|| {
        "not collected: ib_read_bw.txt (the link's bandwidth, which support asks for): give --ib-peer HOST (start `ib_read_bw` there first) or --ib-read-bw FILE".to_string()
    })
}

/// One optional step per fact, into `root/system/`.
pub fn steps(
    root: &Path,
    scripts: &Scripts,
    xdp: u32,
    ib_peer: Option<&str>,
    ib_file: Option<&Path>,
) -> Vec<Step> {
    commands(xdp, ib_peer, ib_file)
        .into_iter()
        .map(|(file, cmd)| {
            let out: PathBuf = root.join("system").join(&file);
            let mut inv = scripts.call("capture.sh").arg(out.as_os_str());
            for a in &cmd {
                inv = inv.arg(a);
            }
            let differs = (file == "pliocli-raid-get_raid_info.txt" && xdp != 1).then(|| {
                format!("-x {xdp} (--xdp) instead of -x 1: the card's index on this host; the procedure's reference host has the card at 1")
            });
            Step::new(
                format!("sysinfo/{file}"),
                origin_of(&file),
                inv,
                Check::Exit,
            )
            .differs(differs)
            .optional()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_what_the_checklist_reads() {
        let names: Vec<String> = commands(1, Some("peer"), None)
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        for want in [
            "nvme-list.txt",
            "nvme-list-subsys.txt",
            "mdstat.txt",
            "pliocli-system-get_status.txt",
            "pliocli-system-get_disk_usage.txt",
            "pliocli-raid-get_raid_info.txt",
            "ib_read_bw.txt",
        ] {
            assert!(names.iter().any(|n| n == want), "{want}");
        }
        assert!(commands(1, None, None)
            .iter()
            .all(|(f, _)| f != "ib_read_bw.txt"));
    }
}
