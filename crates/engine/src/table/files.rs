//! The live files of a table at a version: each data (or Iceberg delete) file with its
//! partition, records and size, and where the formats differ, its bucket and LSM level (Paimon)
//! or content kind and partition spec (Iceberg).

use crate::version::{iceberg_selector, paimon_snapshot};
use crate::{Result, TableRef, Version};
use lakescope_iceberg::inventory::{snapshot_files, Content, ManifestInfo};
use lakescope_iceberg::Table as IcebergTable;
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::table::Table as PaimonTable;
use serde::Serialize;

/// The live files of one snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Files {
    /// The snapshot listed (`None`: the table has none yet, and no files).
    pub snapshot_id: Option<i64>,
    /// The files, in the format's plan order (Paimon: by partition and bucket).
    pub files: Vec<DataFile>,
    /// Iceberg's manifests of the snapshot (Paimon's are the `$manifests` system table).
    pub manifests: Vec<ManifestInfo>,
}

/// One live file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DataFile {
    /// Store key (Paimon) or location (Iceberg) of the file.
    pub path: String,
    /// `parquet`, `orc`, `avro`.
    pub format: String,
    /// The partition as `k1=v1/k2=v2` (empty: unpartitioned).
    pub partition: String,
    /// Records in the file (rows stored, or delete records).
    pub records: i64,
    /// File size in bytes.
    pub size: i64,
    /// What only one format records.
    pub detail: FileDetail,
}

/// The facts of a file that only one format has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FileDetail {
    /// Paimon: where the file sits in the bucket's LSM tree.
    Paimon {
        /// Bucket number.
        bucket: i32,
        /// LSM level (0: not yet compacted).
        level: i32,
    },
    /// Iceberg: what the file holds and under which partition spec.
    Iceberg {
        /// Data, position deletes or equality deletes.
        content: Content,
        /// The partition spec the file was written with.
        spec_id: i32,
        /// The file's data sequence number.
        sequence_number: i64,
    },
}

/// The files of a Paimon table at `at` (a branch's handle for a branch).
pub(super) async fn paimon(table: &PaimonTable, name: &TableRef, at: &Version) -> Result<Files> {
    let Some(snapshot) = paimon_snapshot(table, name, at).await? else {
        return Ok(Files {
            snapshot_id: None,
            files: Vec::new(),
            manifests: Vec::new(),
        });
    };
    let plan = plan(table, &snapshot, &PartitionFilter::All).await?;
    let mut files = Vec::new();
    for split in &plan.splits {
        let partition = table
            .partition_spec(&split.partition)?
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("/");
        for file in &split.files {
            files.push(DataFile {
                path: table.data_file_path(&split.partition, split.bucket, file)?,
                format: file
                    .file_name
                    .rsplit_once('.')
                    .map(|(_, ext)| ext.to_string())
                    .unwrap_or_default(),
                partition: partition.clone(),
                records: file.row_count,
                size: file.file_size,
                detail: FileDetail::Paimon {
                    bucket: split.bucket,
                    level: file.level,
                },
            });
        }
    }
    Ok(Files {
        snapshot_id: Some(snapshot.id),
        files,
        manifests: Vec::new(),
    })
}

/// The data and delete files and the manifests of an Iceberg table at `at`.
pub(super) async fn iceberg(table: &IcebergTable, name: &TableRef, at: &Version) -> Result<Files> {
    let snapshot = table.snapshot(&iceberg_selector(name, at)?)?;
    let listed = snapshot_files(table, snapshot).await?;
    Ok(Files {
        snapshot_id: listed.snapshot_id,
        files: listed
            .files
            .into_iter()
            .map(|f| DataFile {
                path: f.key,
                format: f.format,
                partition: f.partition,
                records: f.record_count,
                size: f.size,
                detail: FileDetail::Iceberg {
                    content: f.content,
                    spec_id: f.spec_id,
                    sequence_number: f.sequence_number,
                },
            })
            .collect(),
        manifests: listed.manifests,
    })
}
