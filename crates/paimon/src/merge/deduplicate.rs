//! Deduplicate merge engine: the last row of a key group wins (Paimon `DeduplicateMergeFunction`).

use super::sort_merge::Entry;

/// The surviving row of a sorted key group, if any. A single row passes through unchanged
/// (Paimon's `ReducerMergeFunctionWrapper`); with `ignore_delete`, retractions are skipped.
#[inline]
pub(crate) fn winner(group: &[Entry], ignore_delete: bool) -> Option<Entry> {
    if group.len() == 1 || !ignore_delete {
        return group.last().copied();
    }
    group.iter().rev().find(|e| e.kind.is_add()).copied()
}
