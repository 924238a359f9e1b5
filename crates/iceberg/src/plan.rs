//! Scan planning: the live data files of a snapshot and the delete files that apply to each.

use crate::spec::manifest::{read_manifest, read_manifest_list, Status};
use crate::spec::{DataContentType, DataFile, ManifestFile, Snapshot};
use crate::table::Table;
use crate::Result;

/// A live data or delete file with the numbers that decide which deletes apply.
#[derive(Debug, Clone, PartialEq)]
pub struct FileEntry {
    /// Store key of the file (re-rooted).
    pub key: String,
    /// Data sequence number.
    pub sequence_number: i64,
    /// Partition spec id of the manifest that lists it.
    pub spec_id: i32,
    /// The file as the manifest describes it.
    pub file: DataFile,
}

/// A data file to read, with the delete files that apply to it.
#[derive(Debug, Clone, PartialEq)]
pub struct FileTask {
    /// The data file to read.
    pub data: FileEntry,
    /// Position delete files (and deletion vectors) with sequence number ≥ the data file's.
    pub position_deletes: Vec<FileEntry>,
    /// Equality delete files with sequence number > the data file's, same partition (or global).
    pub equality_deletes: Vec<FileEntry>,
}

/// What a snapshot reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScanPlan {
    /// One task per live data file of the snapshot.
    pub tasks: Vec<FileTask>,
}

pub(crate) async fn manifests_of(table: &Table, snapshot: &Snapshot) -> Result<Vec<ManifestFile>> {
    let meta_key = table.metadata_key().to_string();
    if let Some(list) = &snapshot.manifest_list {
        let key = table.resolve(list, &meta_key)?;
        let bytes = table.store().get(&key).await?;
        return read_manifest_list(&key, &bytes);
    }
    // v1 snapshots may list manifests inline (no sequence numbers, data only).
    Ok(snapshot
        .manifests
        .iter()
        .flatten()
        .map(|path| ManifestFile {
            manifest_path: path.clone(),
            manifest_length: 0,
            partition_spec_id: 0,
            content: DataContentType::Data,
            sequence_number: 0,
            min_sequence_number: 0,
            added_snapshot_id: snapshot.snapshot_id,
            added_files_count: None,
            existing_files_count: None,
            deleted_files_count: None,
            added_rows_count: None,
            existing_rows_count: None,
            deleted_rows_count: None,
            first_row_id: None,
        })
        .collect())
}

/// Whether an equality delete file applies to a data file: strictly newer, and global
/// (unpartitioned spec) or in the same partition of the same spec.
fn equality_applies(table: &Table, delete: &FileEntry, data: &FileEntry) -> bool {
    if delete.sequence_number <= data.sequence_number {
        return false;
    }
    let global = table
        .metadata()
        .spec(delete.spec_id)
        .is_none_or(|s| s.fields.is_empty());
    global || (delete.spec_id == data.spec_id && delete.file.partition == data.file.partition)
}

/// Plans the read of `snapshot`: every live data file with its applicable deletes.
pub async fn plan(table: &Table, snapshot: &Snapshot) -> Result<ScanPlan> {
    let mut data = Vec::new();
    let mut positions = Vec::new();
    let mut equalities = Vec::new();
    for manifest in manifests_of(table, snapshot).await? {
        let key = table.resolve(&manifest.manifest_path, table.metadata_key())?;
        let bytes = table.store().get(&key).await?;
        for entry in read_manifest(&key, &bytes, &manifest)? {
            if entry.status == Status::Deleted {
                continue;
            }
            let file = FileEntry {
                key: table.resolve(&entry.data_file.file_path, &key)?,
                sequence_number: entry.sequence_number,
                spec_id: manifest.partition_spec_id,
                file: entry.data_file,
            };
            match file.file.content {
                DataContentType::Data => data.push(file),
                DataContentType::PositionDeletes => positions.push(file),
                DataContentType::EqualityDeletes => equalities.push(file),
            }
        }
    }
    let tasks = data
        .into_iter()
        .map(|d| {
            let position_deletes = positions
                .iter()
                .filter(|p| p.sequence_number >= d.sequence_number)
                .filter(|p| match &p.file.referenced_data_file {
                    Some(r) => table.resolve(r, &p.key).is_ok_and(|k| k == d.key),
                    None => true,
                })
                .cloned()
                .collect();
            let equality_deletes = equalities
                .iter()
                .filter(|e| equality_applies(table, e, &d))
                .cloned()
                .collect();
            FileTask {
                data: d,
                position_deletes,
                equality_deletes,
            }
        })
        .collect();
    Ok(ScanPlan { tasks })
}
