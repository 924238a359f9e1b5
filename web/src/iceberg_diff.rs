//! The Diff tab's Iceberg side: picker values resolved in the table metadata, and the diff.

use super::DiffView;
use crate::progress::Job;
use crate::util::Frame;
use crate::versions::open_iceberg;
use lakescope_iceberg::diff::diff_at;
use lakescope_iceberg::SnapshotSelector;
use std::sync::Arc;

/// `"<id>"` → that snapshot, `"tag:name"` → the tag's, `"branch:name"` → the branch's head,
/// `""`/`"0"` → none (empty table).
fn selector(spec: &str) -> Result<Option<SnapshotSelector>, String> {
    if spec.is_empty() || spec == "0" {
        return Ok(None);
    }
    Ok(Some(if let Some(tag) = spec.strip_prefix("tag:") {
        SnapshotSelector::Tag(tag.to_string())
    } else if let Some(branch) = spec.strip_prefix("branch:") {
        SnapshotSelector::Branch(branch.to_string())
    } else {
        SnapshotSelector::Id(
            spec.parse()
                .map_err(|_| format!("'{spec}' is not a snapshot id"))?,
        )
    }))
}

/// The diff of `from` → `to` (picker values) of the Iceberg table at `path`, reporting to `job`;
/// each side read with the schema Java gives it (a branch the table's current schema, a tag or
/// snapshot its own), `to`'s shaping the rows.
pub async fn diff(path: &str, from: &str, to: &str, job: Job) -> Result<DiffView, String> {
    let t = open_iceberg(path).await?;
    let a = selector(from)?;
    let b = selector(to)?.ok_or("Pick the snapshot to compare to.")?;
    let d = diff_at(&t, a.as_ref(), &b, &mut |p| job.steps(p.done, p.total))
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
