//! The Diff tab's computation: the engine's `Table::diff` of two picker values, with the
//! summary line of what had to be read.

use crate::app::Selection;
use crate::state::warehouse;
use crate::tabs::panel::table_ref;
use crate::util::Frame;
use crate::widgets::progress::Job;
use lakescope_engine::format_types::{PartitionCounts, MAIN_BRANCH};
use lakescope_engine::table::DiffRead;
use lakescope_engine::Version;
use std::sync::Arc;

/// A computed diff, whichever the table format.
#[derive(Clone)]
pub struct DiffView {
    pub frame: Arc<Frame>,
    pub partitions: Vec<PartitionCounts>,
    pub from: Option<i64>,
    pub to: Option<i64>,
    /// What had to be read (buckets / files), for the summary line.
    pub read: String,
    /// Partition values one per line (self-describing `name=value` texts).
    pub stack_partitions: bool,
}

/// The diff of the picker values `from` → `to` (a snapshot id, `tag:<name>`, `branch:<name>`,
/// a branch's own `branch:<name>/<id>` or `branch:<name>/tag:<tag>`; `0` the empty table),
/// whichever the table format.
pub async fn diff(sel: &Selection, from: &str, to: &str, job: Job) -> Result<DiffView, String> {
    let from = Version::parse_diff_side(from).map_err(|e| e.to_string())?;
    let to = Version::parse_diff_side(to)
        .map_err(|e| e.to_string())?
        .ok_or("Pick the snapshot to compare to.")?;
    let t = warehouse::any_table(&sel.table.path).await?;
    let d = t
        .diff(&table_ref(sel, None), from.as_ref(), &to, &mut |p| {
            job.steps(p.done, p.total)
        })
        .await
        .map_err(|e| e.to_string())?;
    let read = match d.read {
        DiffRead::Paimon { buckets, files } => {
            // which branch each snapshot id is of, once a side is not on main
            let on = |v: Option<&Version>| {
                v.and_then(Version::branch)
                    .unwrap_or(MAIN_BRANCH)
                    .to_string()
            };
            let (from_branch, to_branch) = (on(from.as_ref()), on(Some(&to)));
            let branches = if from_branch == MAIN_BRANCH && to_branch == MAIN_BRANCH {
                String::new()
            } else {
                format!(" · branch {from_branch} → {to_branch}")
            };
            format!("read {buckets} bucket(s), {files} file(s){branches}")
        }
        DiffRead::Iceberg { files, skipped } => format!(
            "{files} data file reads over both snapshots, {skipped} unchanged file(s) skipped"
        ),
    };
    Ok(DiffView {
        stack_partitions: matches!(d.read, DiffRead::Iceberg { .. }),
        frame: Arc::new(Frame::new(d.schema, d.batches)),
        partitions: d.partitions,
        from: d.from,
        to: d.to,
        read,
    })
}

/// A picker value in words (the progress line).
pub fn label(spec: &str) -> String {
    match Version::parse_diff_side(spec) {
        Ok(None) => "empty table".into(),
        Ok(Some(Version::SnapshotId(id))) => format!("snapshot {id}"),
        Ok(Some(Version::Tag(t))) => format!("tag {t}"),
        Ok(Some(Version::Branch(b))) => format!("branch {b}"),
        Ok(Some(other)) => other.to_string(),
        Err(_) => spec.to_string(),
    }
}
