//! First-row merge engine: the first row of a key group wins (Paimon `FirstRowMergeFunction`).

use super::sort_merge::Entry;
use crate::{Error, Result};

/// The surviving row of a sorted key group. A single row passes through unchanged; otherwise
/// retractions are skipped with `ignore_delete` and rejected without it, as Paimon does.
#[inline]
pub(crate) fn winner(group: &[Entry], ignore_delete: bool) -> Result<Option<Entry>> {
    if group.len() == 1 {
        return Ok(group.first().copied());
    }
    let mut first = None;
    for e in group {
        if !e.kind.is_add() {
            if ignore_delete {
                continue;
            }
            return Err(Error::Invalid(
                "By default, First row merge engine can not accept DELETE/UPDATE_BEFORE records. \
                 You can config 'ignore-delete' to ignore the DELETE/UPDATE_BEFORE records."
                    .into(),
            ));
        }
        if first.is_none() {
            first = Some(*e);
        }
    }
    Ok(first)
}
