//! `/proc/mdstat` (`cat /proc/mdstat`, saved as `system/mdstat.txt`): each md array's
//! level, its member devices and the `[UUUU]` member map.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mdstat {
    pub arrays: Vec<MdArray>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MdArray {
    /// `md126`.
    pub name: String,
    /// `active`, `inactive`.
    pub state: String,
    /// `raid10`, when the line names a level.
    pub level: Option<String>,
    /// Member devices in slot order (`nvme0n1`), failed (`(F)`) and spare (`(S)`) ones
    /// left out.
    pub members: Vec<String>,
    /// Members the kernel marks failed or spare.
    pub left_out: Vec<String>,
    /// The member map (`[UUUU]`, `[UU_U]`), when the status line has one.
    pub map: Option<String>,
    /// The line the array starts at (1-based).
    pub line: usize,
}

pub fn looks_like(head: &str) -> bool {
    head.lines()
        .next()
        .is_some_and(|l| l.trim_start().starts_with("Personalities :"))
}

pub fn parse(text: &str) -> Mdstat {
    let mut arrays: Vec<MdArray> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some((name, rest)) = line.split_once(" : ") else {
            if let Some(a) = arrays.last_mut().filter(|a| a.map.is_none()) {
                a.map = line
                    .split_whitespace()
                    .find(|w| {
                        w.starts_with('[')
                            && w.ends_with(']')
                            && w[1..w.len() - 1].chars().all(|c| c == 'U' || c == '_')
                            && w.len() > 2
                    })
                    .map(str::to_string);
            }
            continue;
        };
        let name = name.trim();
        if !name.starts_with("md") || name.contains(char::is_whitespace) {
            continue;
        }
        let mut words = rest.split_whitespace();
        let state = words.next().unwrap_or("").to_string();
        let mut level = None;
        let mut slots: Vec<(u32, String)> = Vec::new();
        let mut left_out = Vec::new();
        for w in words {
            if w == "(read-only)" || w == "(auto-read-only)" {
                continue;
            }
            match w.split_once('[') {
                Some((dev, slot)) if !dev.is_empty() => {
                    let (n, flags) = slot.split_once(']').unwrap_or((slot, ""));
                    if flags.contains("(F)") || flags.contains("(S)") {
                        left_out.push(dev.to_string());
                    } else {
                        slots.push((n.parse().unwrap_or(u32::MAX), dev.to_string()));
                    }
                }
                _ if level.is_none() && !w.contains('[') => level = Some(w.to_string()),
                _ => {}
            }
        }
        slots.sort();
        arrays.push(MdArray {
            name: name.to_string(),
            state,
            level,
            members: slots.into_iter().map(|(_, d)| d).collect(),
            left_out,
            map: None,
            line: i + 1,
        });
    }
    Mdstat { arrays }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_members_in_slot_order_and_the_map() {
        let text = "Personalities : [raid10] [raid6]\nmd126 : active raid10 nvme3n1[3] nvme2n1[2] nvme1n1[1] nvme0n1[0] sdb[4](S)\n      7501209600 blocks super 1.2 512K chunks 2 near-copies [4/4] [UUUU]\n      bitmap: 0/56 pages [0KB], 65536KB chunk\n\nunused devices: <none>\n";
        assert!(looks_like(text));
        let m = parse(text);
        assert_eq!(m.arrays.len(), 1);
        let a = &m.arrays[0];
        assert_eq!(a.name, "md126");
        assert_eq!(a.level.as_deref(), Some("raid10"));
        assert_eq!(a.members, ["nvme0n1", "nvme1n1", "nvme2n1", "nvme3n1"]);
        assert_eq!(a.left_out, ["sdb"]);
        assert_eq!(a.map.as_deref(), Some("[UUUU]"));
        assert_eq!(a.line, 2);
        assert!(parse("Personalities : []\nunused devices: <none>\n")
            .arrays
            .is_empty());
    }
}
