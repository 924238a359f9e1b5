//! The Diff tab's Iceberg side: the diff of two versions resolved in the table metadata.

use super::DiffView;
use crate::progress::Job;
use crate::util::Frame;
use crate::versions::open_iceberg;
use lakescope_engine::version::iceberg_selector;
use lakescope_engine::{TableRef, Version};
use lakescope_iceberg::diff::diff_at;
use std::sync::Arc;

/// The diff of `from` → `to` (`None`: the empty table) of the Iceberg table `table_ref` at
/// `path`, reporting to `job`; each side read with the schema Java gives it (a branch the
/// table's current schema, a tag or snapshot its own), `to`'s shaping the rows.
pub async fn diff(
    path: &str,
    table_ref: &TableRef,
    from: Option<&Version>,
    to: &Version,
    job: Job,
) -> Result<DiffView, String> {
    let t = open_iceberg(path).await?;
    let selector = |v: &Version| iceberg_selector(table_ref, v).map_err(|e| e.to_string());
    let a = from.map(selector).transpose()?;
    let b = selector(to)?;
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
