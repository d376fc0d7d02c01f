//! The job's options against the procedure's: its size, the helper's options, and the
//! device it ran on.

use crate::fio::params;
use crate::fio::signature::parse_size;
use crate::model::deviation::Deviation;
use crate::model::phrase::Phrase;

use crate::suites::storage::judge::Sides;
use crate::suites::storage::load::RunGroup;
use crate::suites::storage::reference::Reference;

pub(super) fn size(g: &RunGroup, reference: &Reference) -> Option<Deviation> {
    let p = &reference.procedure;
    let ran = params::get(&g.group.options, "size");
    let same = match ran {
        Some(r) => r.trim() == p.size || parse_size(r) == parse_size(&p.size),
        None => false,
    };
    (!same).then(|| {
        Deviation::new(
            "size",
            Phrase::text(&p.size),
            Phrase::text(ran.unwrap_or("not set")),
        )
            .effect(
                "another working span: a smaller one touches fewer flash blocks (on a device smaller than 3.8 TB fio spans the whole device, as the procedure intends)",
                false,
            )
            .source(p.size_source.clone())
    })
}

pub(super) fn helper_options(g: &RunGroup, reference: &Reference) -> Vec<Deviation> {
    let p = &reference.procedure;
    let qd1 = g.signature.numjobs == 1 && g.signature.iodepth == 1;
    let mut out = Vec::new();
    for o in &p.option {
        let ran = params::get(&g.group.options, &o.name).map(str::trim);
        let (want, source) = if o.name == "ioengine" && qd1 {
            (p.qd1_ioengine.as_str(), p.qd1_source.as_str())
        } else {
            (o.value.as_str(), o.source.as_str())
        };
        let same = match (want, ran) {
            ("not set", None) | ("not set", Some("0")) => true,
            (w, Some(r)) => w == r || (o.name == "ioengine" && qd1 && r == "libaio"),
            (_, None) => false,
        };
        if !same {
            out.push(
                Deviation::new(
                    o.name.clone(),
                    Phrase::text(want),
                    Phrase::text(ran.unwrap_or("not set")),
                )
                .effect(o.effect.clone(), o.changes)
                .source(source),
            );
        }
    }
    out
}

/// DEV: the baseline's is /dev/md126; either side must be one raw block device.
pub(super) fn device(g: &RunGroup, sides: &Sides, reference: &Reference) -> Option<Deviation> {
    let p = &reference.procedure;
    let ran = params::get(&g.group.options, "filename");
    let Some(dev) = ran else {
        return Some(
            Deviation::new("filename (DEV)", "the array's block device", "not recorded")
                .effect("the file does not say which device was tested", false)
                .source(p.dev_source.clone()),
        );
    };
    let members: Vec<&str> = dev.split(':').filter(|s| !s.is_empty()).collect();
    let baseline = g.run.array.eq_ignore_ascii_case(&sides.baseline);
    let want = if baseline {
        p.baseline_dev.as_str()
    } else {
        "the ADP block device"
    };
    if members.len() > 1 {
        return Some(
            Deviation::new("filename (DEV)", Phrase::text(want), Phrase::text(dev))
                .effect(
                    format!(
                        "fio itself spread the job over {} devices: no RAID layer (and no card) sits under this run",
                        members.len()
                    ),
                    true,
                )
                .source(p.dev_source.clone()),
        );
    }
    if !dev.starts_with("/dev/") {
        return Some(
            Deviation::new("filename (DEV)", Phrase::text(want), Phrase::text(dev))
                .effect(
                    "a file, not a raw block device: a filesystem sits between fio and the drives",
                    true,
                )
                .source(p.dev_source.clone()),
        );
    }
    (baseline && dev != p.baseline_dev).then(|| {
        Deviation::new("filename (DEV)", Phrase::text(want), Phrase::text(dev))
            .effect(
                "another device path; the comparison holds if it is the RAID10 array",
                false,
            )
            .source(p.dev_source.clone())
    })
}
