//! The Overview of a table: format, location, current snapshot, counts, keys and options.

use super::snapshots::{iceberg_commit, paimon_commit, Commit};
use super::Format;
use crate::Result;
use lakescope_iceberg::inspect::{table_info, TableInfo};
use lakescope_iceberg::Table as IcebergTable;
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table::Table as PaimonTable;
use serde::Serialize;
use std::collections::BTreeMap;

/// What the Overview tab shows of a table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overview {
    /// The table format.
    pub format: Format,
    /// Where the table is: a Paimon table's folder key, an Iceberg table's location.
    pub location: String,
    /// The current snapshot (`None`: none yet).
    pub current: Option<Commit>,
    /// Snapshots the table keeps (Paimon: snapshot files listed; Iceberg: in the metadata).
    pub snapshot_count: usize,
    /// The current schema's id.
    pub schema_id: i64,
    /// Schema versions the table keeps.
    pub schema_count: usize,
    /// Partition keys: Paimon's column names; the transforms of Iceberg's default spec
    /// (`bucket[4](id)`).
    pub partition_keys: Vec<String>,
    /// Paimon's primary key, Iceberg's identifier fields (of the current schema).
    pub primary_keys: Vec<String>,
    /// Table comment.
    pub comment: Option<String>,
    /// Options (Paimon) or properties (Iceberg) set on the table.
    pub properties: BTreeMap<String, String>,
    /// Tag names, sorted.
    pub tags: Vec<String>,
    /// What only one format has.
    pub detail: OverviewDetail,
}

/// The facts of an Overview that only one format has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum OverviewDetail {
    /// Paimon: the data file format (`file.format`, default `parquet`).
    Paimon {
        /// `parquet`, `orc` or `avro`.
        file_format: String,
    },
    /// Iceberg: the metadata as a whole (format version, metadata file, uuid, partition specs,
    /// refs, the current snapshot's delete counts).
    Iceberg(Box<TableInfo>),
}

/// The Overview of a Paimon table whose latest snapshot is `latest`; the snapshot count is
/// Paimon's `snapshotCount` (listed files), not a read of every snapshot.
pub(super) async fn paimon(table: &PaimonTable, latest: Option<Snapshot>) -> Result<Overview> {
    let (schemas, ids, tags) =
        futures::try_join!(table.schemas(), table.snapshot_ids(), table.tags())?;
    let schema = table.current_schema();
    Ok(Overview {
        format: Format::Paimon,
        location: table.path().to_string(),
        current: latest.as_ref().map(|s| paimon_commit(s, Vec::new())),
        snapshot_count: ids.len(),
        schema_id: schema.id,
        schema_count: schemas.len(),
        partition_keys: schema.partition_keys.clone(),
        primary_keys: schema.primary_keys.clone(),
        comment: schema.comment.clone(),
        properties: schema.options.clone(),
        tags: tags.into_iter().map(|(name, _)| name).collect(),
        detail: OverviewDetail::Paimon {
            file_format: schema.core_options().file_format().to_string(),
        },
    })
}

/// The Overview of an Iceberg table, from its metadata alone.
pub(super) fn iceberg(table: &IcebergTable) -> Overview {
    let info = table_info(table);
    let partition_keys = info
        .specs
        .iter()
        .filter(|s| s.is_default)
        .flat_map(|s| &s.fields)
        .map(|f| {
            let source = f.source_name.clone();
            format!(
                "{}({})",
                f.transform,
                source.unwrap_or_else(|| f.source_id.to_string())
            )
        })
        .collect();
    let primary_keys = info
        .current_schema()
        .map(|s| {
            s.fields
                .iter()
                .filter(|f| f.identifier)
                .map(|f| f.name.clone())
                .collect()
        })
        .unwrap_or_default();
    let mut tags: Vec<String> = info
        .refs
        .iter()
        .filter(|r| r.kind == "tag")
        .map(|r| r.name.clone())
        .collect();
    tags.sort();
    Overview {
        format: Format::Iceberg,
        location: info.location.clone(),
        current: info.current_snapshot().map(iceberg_commit),
        snapshot_count: info.snapshots.len(),
        schema_id: i64::from(info.current_schema_id),
        schema_count: info.schemas.len(),
        partition_keys,
        primary_keys,
        comment: info.properties.get("comment").cloned(),
        properties: info.properties.clone(),
        tags,
        detail: OverviewDetail::Iceberg(Box::new(info)),
    }
}
