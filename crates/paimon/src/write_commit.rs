//! Commits a write as Paimon's writers do: the write's snapshot, then a COMPACT one when needed.
//!
//! Batch readers of some tables skip level-0 files (first-row, deletion vectors,
//! `changelog-producer` = `lookup` / `full-compaction`): Java's writer compacts the buckets it
//! wrote before committing; lakescope commits the write, then compacts the buckets holding
//! level-0 files in a second snapshot. The committer ([`crate::commit`]) only commits, compaction
//! ([`crate::compact`]) builds on it, and this module sits above both.

use crate::commit::{CommitOptions, CommitOutcome, Committer, Overwrite};
use crate::compact::{commit_rewrite, rewrite_buckets};
use crate::error::{Error, Result};
use crate::table::Table;
use crate::write::table_write::compacts_after_write;
use crate::write::{CommitMessage, WriteEnv};

/// Commits a write (see [`commit_write_or_skip`]). A commit that Paimon skips
/// ([`crate::commit::commits_nothing`]) is an error here: use [`commit_write_or_skip`] when that
/// can happen.
pub async fn commit_write(
    table: &Table,
    env: &dyn WriteEnv,
    options: CommitOptions,
    message: impl Into<CommitMessage>,
    overwrite: Option<Overwrite>,
) -> Result<CommitOutcome> {
    commit_write_or_skip(table, env, options, message, overwrite)
        .await?
        .ok_or_else(|| {
            Error::Invalid(format!(
                "{}: a dynamic partition overwrite without rows changes nothing and commits no snapshot (as Paimon's FileStoreCommitImpl)",
                table.path()
            ))
        })
}

/// Commits a write's files: APPEND, or OVERWRITE of the partitions `overwrite` selects; `None`
/// without touching the table when Paimon commits nothing. When the write added files to a table
/// whose batch readers skip level-0 files (`compacts_after_write`), the buckets holding level-0
/// files (the written ones, and any a failed earlier compaction left) are then compacted in a
/// second, COMPACT snapshot, as Java's writer does before its commit, and the outcome returned is
/// the COMPACT snapshot's.
pub async fn commit_write_or_skip(
    table: &Table,
    env: &dyn WriteEnv,
    options: CommitOptions,
    message: impl Into<CommitMessage>,
    overwrite: Option<Overwrite>,
) -> Result<Option<CommitOutcome>> {
    let message = message.into();
    let wrote_files = !message.files.is_empty();
    let committed = Committer::new(table, env, options.clone())
        .commit_or_skip(message, overwrite)
        .await?;
    let Some(outcome) = committed else {
        return Ok(None);
    };
    if !wrote_files || !compacts_after_write(table.current_schema())? {
        return Ok(Some(outcome));
    }
    let rewritten =
        rewrite_buckets(table, env, |split| split.files.iter().any(|f| f.level == 0)).await?;
    let compacted = commit_rewrite(table, env, options, &rewritten).await?;
    Ok(Some(compacted.unwrap_or(outcome)))
}
