//! The rows of a diff between two versions of a table, as both formats report them: the
//! `_change` column, per-partition counts and progress.

use crate::spec::binary_row::Datum;

/// Name of the change column leading every diff batch.
pub const CHANGE_COLUMN: &str = "_change";

/// What happened to a row between A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Change {
    /// The row exists in B only.
    Insert,
    /// The row exists in A only.
    Delete,
    /// A's version of a key whose values changed (always followed by its `UpdateAfter`).
    UpdateBefore,
    /// B's version of a key whose values changed.
    UpdateAfter,
}

impl Change {
    /// The text of the `_change` column: `insert`, `delete`, `update_before`, `update_after`.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Insert => "insert",
            Change::Delete => "delete",
            Change::UpdateBefore => "update_before",
            Change::UpdateAfter => "update_after",
        }
    }
}

/// Change counts of one partition (an update counts once, not as two rows).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PartitionCounts {
    /// Partition values in partition-key order (empty for unpartitioned tables).
    pub partition: Vec<Datum>,
    /// Rows inserted.
    pub inserted: u64,
    /// Rows deleted.
    pub deleted: u64,
    /// Keys updated (primary-key tables) or rows updated by row id (data-evolution tables).
    pub updated: u64,
}

/// How far a diff has got, in units of work known after planning: (partition, bucket)s whose
/// files or deletion vectors differ for Paimon, differing data files for Iceberg.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiffProgress {
    /// Units compared so far.
    pub done: usize,
    /// Units to compare.
    pub total: usize,
    /// Data files read so far.
    pub files_read: usize,
}
