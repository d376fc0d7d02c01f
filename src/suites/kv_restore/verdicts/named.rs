//! The verdict every test 1 criterion starts from, named `kv-restore.<id>`.

use crate::model::verdict::Verdict;

pub(super) fn verdict(id: &str, criterion: &str) -> Verdict {
    Verdict::new(format!("kv-restore.{id}"), criterion, "-", "-")
}
