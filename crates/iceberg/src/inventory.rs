//! The files of one Iceberg snapshot as plain serde data for the explorer: its manifests and every
//! live data and delete file (content, spec id, readable partition, records, size).

use crate::plan::manifests_of;
use crate::spec::manifest::{read_manifest, Status};
use crate::spec::{DataContentType, Literal, ManifestFile, Snapshot};
use crate::table::Table;
use crate::write::partition::{partition_path, spec_fields};
use crate::Result;
use serde::Serialize;

/// What a file or manifest holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Content {
    /// Data files: the table's rows (content 0).
    Data,
    /// Position delete files or v3 deletion vectors: rows deleted by file and position (content 1).
    PositionDeletes,
    /// Equality delete files: rows deleted where the equality columns match (content 2).
    EqualityDeletes,
}

impl Content {
    /// `data`, `position deletes`, `equality deletes`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Data => "data",
            Self::PositionDeletes => "position deletes",
            Self::EqualityDeletes => "equality deletes",
        }
    }
}

impl From<DataContentType> for Content {
    fn from(c: DataContentType) -> Self {
        match c {
            DataContentType::Data => Self::Data,
            DataContentType::PositionDeletes => Self::PositionDeletes,
            DataContentType::EqualityDeletes => Self::EqualityDeletes,
        }
    }
}

/// A live data or delete file of the snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    /// Store key (re-rooted onto the table folder).
    pub key: String,
    /// Whether it holds rows or deletes (the manifest entry's `content`).
    pub content: Content,
    /// `PARQUET`, `AVRO`, `ORC`, `PUFFIN`.
    pub format: String,
    /// The id of the partition spec the file was written with (its manifest's).
    pub spec_id: i32,
    /// `ts_month=2024-01/cat=a` (empty for an unpartitioned spec).
    pub partition: String,
    /// The file's row count (`record_count`; delete rows for a delete file).
    pub record_count: i64,
    /// The file's size in bytes (`file_size_in_bytes`).
    pub size: i64,
    /// Data sequence number.
    pub sequence_number: i64,
    /// The snapshot that added the file (the manifest entry's `snapshot_id`).
    pub snapshot_id: i64,
    /// Equality delete files: the field ids they match on.
    pub equality_ids: Vec<i32>,
}

/// A manifest of the snapshot's manifest list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManifestInfo {
    /// The manifest's store key (re-rooted onto the table folder).
    pub key: String,
    /// The manifest's size in bytes (`manifest_length`; 0 when the list lacks it).
    pub length: i64,
    /// The id of the partition spec its files were written with (`partition_spec_id`).
    pub spec_id: i32,
    /// Whether the manifest lists data files or delete files.
    pub content: Content,
    /// The data sequence number of the commit that added the manifest (0 in v1 tables).
    pub sequence_number: i64,
    /// The snapshot that added the manifest (`added_snapshot_id`).
    pub added_snapshot_id: i64,
    /// Entries with status ADDED (`added_files_count`; `None`: not written).
    pub added_files: Option<i32>,
    /// Entries with status EXISTING (`existing_files_count`; `None`: not written).
    pub existing_files: Option<i32>,
    /// Entries with status DELETED (`deleted_files_count`; `None`: not written).
    pub deleted_files: Option<i32>,
    /// Rows in the ADDED files (`added_rows_count`; `None`: not written).
    pub added_rows: Option<i64>,
    /// Rows in the EXISTING files (`existing_rows_count`; `None`: not written).
    pub existing_rows: Option<i64>,
    /// Rows in the DELETED files (`deleted_rows_count`; `None`: not written).
    pub deleted_rows: Option<i64>,
}

/// Everything the Files tab shows of one snapshot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SnapshotFiles {
    /// The snapshot listed (`None`: the table has no snapshot, so nothing is listed).
    pub snapshot_id: Option<i64>,
    /// The manifests of the snapshot's manifest list, in its order.
    pub manifests: Vec<ManifestInfo>,
    /// Live files, data first, then by partition and key.
    pub files: Vec<FileInfo>,
}

fn literal_text(v: &Literal) -> String {
    match v {
        Literal::Boolean(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Long(i) => i.to_string(),
        Literal::Float(f) => f.to_string(),
        Literal::Double(f) => f.to_string(),
        Literal::String(s) => s.clone(),
        Literal::Bytes(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
        Literal::Decimal(d) => d.to_string(),
    }
}

/// The partition as a path (`name=value/...`): readable values where the spec's fields resolve
/// against the current schema (months as `2024-01`, days as dates), the raw values otherwise.
fn partition_text(table: &Table, spec_id: i32, tuple: &[(String, Option<Literal>)]) -> String {
    let meta = table.metadata();
    let resolved = meta
        .spec(spec_id)
        .zip(meta.current_schema())
        .and_then(|(spec, schema)| {
            spec_fields(table.key(), schema, spec)
                .ok()
                .filter(|f| f.len() == tuple.len())
        });
    match resolved {
        Some(fields) => {
            let values: Vec<Option<Literal>> = tuple.iter().map(|(_, v)| v.clone()).collect();
            partition_path(&fields, &values)
        }
        None => tuple
            .iter()
            .map(|(n, v)| format!("{n}={}", v.as_ref().map_or("null".into(), literal_text)))
            .collect::<Vec<_>>()
            .join("/"),
    }
}

fn manifest_info(table: &Table, m: &ManifestFile) -> Result<ManifestInfo> {
    Ok(ManifestInfo {
        key: table.resolve(&m.manifest_path, table.metadata_key())?,
        length: m.manifest_length,
        spec_id: m.partition_spec_id,
        content: m.content.into(),
        sequence_number: m.sequence_number,
        added_snapshot_id: m.added_snapshot_id,
        added_files: m.added_files_count,
        existing_files: m.existing_files_count,
        deleted_files: m.deleted_files_count,
        added_rows: m.added_rows_count,
        existing_rows: m.existing_rows_count,
        deleted_rows: m.deleted_rows_count,
    })
}

/// The manifests and live files of `snapshot` (`None`: a table without snapshots, no files).
pub async fn snapshot_files(table: &Table, snapshot: Option<&Snapshot>) -> Result<SnapshotFiles> {
    let Some(snapshot) = snapshot else {
        return Ok(SnapshotFiles::default());
    };
    let mut out = SnapshotFiles {
        snapshot_id: Some(snapshot.snapshot_id),
        ..SnapshotFiles::default()
    };
    for manifest in manifests_of(table, snapshot).await? {
        let info = manifest_info(table, &manifest)?;
        let bytes = table.store().get(&info.key).await?;
        for entry in read_manifest(&info.key, &bytes, &manifest)? {
            if entry.status == Status::Deleted {
                continue;
            }
            let f = entry.data_file;
            out.files.push(FileInfo {
                key: table.resolve(&f.file_path, &info.key)?,
                content: f.content.into(),
                format: format!("{:?}", f.file_format).to_ascii_uppercase(),
                spec_id: manifest.partition_spec_id,
                partition: partition_text(table, manifest.partition_spec_id, &f.partition),
                record_count: f.record_count,
                size: f.file_size_in_bytes,
                sequence_number: entry.sequence_number,
                snapshot_id: entry.snapshot_id,
                equality_ids: f.equality_ids,
            });
        }
        out.manifests.push(info);
    }
    out.files
        .sort_by(|a, b| (a.content, &a.partition, &a.key).cmp(&(b.content, &b.partition, &b.key)));
    Ok(out)
}
