//! The Diff tab's Iceberg side: picker values resolved in the table metadata, and the diff.

use super::DiffView;
use crate::progress::Job;
use crate::util::Frame;
use crate::versions::open_iceberg;
use lakescope_iceberg::diff::diff_snapshots_with_progress;
use lakescope_iceberg::spec::Snapshot;
use lakescope_iceberg::{SnapshotSelector, Table};
use std::sync::Arc;

/// `"<id>"` → that snapshot, `"tag:name"` → the tag's, `"branch:name"` → the branch's head,
/// `""`/`"0"` → none (empty table).
fn resolve<'a>(t: &'a Table, spec: &str) -> Result<Option<&'a Snapshot>, String> {
    if spec.is_empty() || spec == "0" {
        return Ok(None);
    }
    let name = spec
        .strip_prefix("tag:")
        .or_else(|| spec.strip_prefix("branch:"));
    let selector = match name {
        Some(name) => SnapshotSelector::Ref(name.to_string()),
        None => SnapshotSelector::Id(
            spec.parse()
                .map_err(|_| format!("'{spec}' is not a snapshot id"))?,
        ),
    };
    t.snapshot(&selector).map_err(|e| e.to_string())
}

/// The diff of `from` → `to` (picker values) of the Iceberg table at `path`, reporting to `job`.
pub async fn diff(path: &str, from: &str, to: &str, job: Job) -> Result<DiffView, String> {
    let t = open_iceberg(path).await?;
    let a = resolve(&t, from)?;
    let b = resolve(&t, to)?.ok_or("Pick the snapshot to compare to.")?;
    let d = diff_snapshots_with_progress(&t, a, b, &mut |p| job.steps(p.done, p.total))
        .await
        .map_err(|e| e.to_string())?;
    Ok(DiffView {
        frame: Arc::new(Frame::new(d.schema.clone(), d.batches.clone())),
        partitions: d.partitions,
        from: d.from,
        to: d.to,
        read: format!(
            "{} data file reads over both snapshots, {} unchanged file(s) skipped",
            d.files_read, d.files_skipped
        ),
        stack_partitions: true,
    })
}
