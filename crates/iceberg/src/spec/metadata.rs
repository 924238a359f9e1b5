//! Table metadata JSON (`vN-….metadata.json`, plain or gzip), format v1–v3: schemas, specs, snapshots, refs.

use super::types::Schema;
use crate::{Error, Result};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;

/// The whole metadata file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct TableMetadata {
    /// 1, 2 or 3.
    pub format_version: u8,
    #[serde(default)]
    pub table_uuid: Option<String>,
    /// Base location of the table as written (absolute URI).
    pub location: String,
    #[serde(default)]
    pub last_sequence_number: i64,
    #[serde(default)]
    pub last_updated_ms: i64,
    #[serde(default)]
    pub last_column_id: i32,
    /// All schemas (v1 may only have `schema`).
    #[serde(default)]
    pub schemas: Vec<Schema>,
    /// v1: the single current schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Schema>,
    #[serde(default)]
    pub current_schema_id: Option<i32>,
    #[serde(default)]
    pub partition_specs: Vec<PartitionSpec>,
    /// v1: the fields of the single current spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_spec: Option<Vec<PartitionField>>,
    #[serde(default)]
    pub default_spec_id: Option<i32>,
    #[serde(default)]
    pub last_partition_id: Option<i32>,
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
    /// `-1` or absent when the table has no snapshot.
    #[serde(default, serialize_with = "snapshot_id_or_minus_one")]
    pub current_snapshot_id: Option<i64>,
    #[serde(default)]
    pub snapshots: Vec<Snapshot>,
    #[serde(default)]
    pub snapshot_log: Vec<SnapshotLogEntry>,
    #[serde(default)]
    pub metadata_log: Vec<MetadataLogEntry>,
    #[serde(default)]
    pub sort_orders: Vec<SortOrder>,
    #[serde(default)]
    pub default_sort_order_id: Option<i32>,
    #[serde(default)]
    pub refs: BTreeMap<String, SnapshotRef>,
}

/// A partition spec: how rows map to partition tuples.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct PartitionSpec {
    pub spec_id: i32,
    pub fields: Vec<PartitionField>,
}

/// One partition field: `transform(source column)`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct PartitionField {
    pub source_id: i32,
    /// Absent in old v1 metadata (assigned from 1000 in order).
    #[serde(default)]
    pub field_id: Option<i32>,
    pub name: String,
    /// `identity`, `bucket[N]`, `truncate[W]`, `year`, `month`, `day`, `hour`, `void`.
    pub transform: String,
}

/// A sort order (kept for display).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct SortOrder {
    pub order_id: i32,
    #[serde(default)]
    pub fields: Vec<serde_json::Value>,
}

/// A snapshot: the table state after one commit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Snapshot {
    pub snapshot_id: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_snapshot_id: Option<i64>,
    /// 0 in v1.
    #[serde(default)]
    pub sequence_number: i64,
    pub timestamp_ms: i64,
    /// The manifest list (absent in some v1 snapshots, which list `manifests` inline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_list: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifests: Option<Vec<String>>,
    /// `operation` and the counters.
    #[serde(default)]
    pub summary: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema_id: Option<i32>,
}

impl Snapshot {
    /// `append`, `replace`, `overwrite`, `delete` (from the summary).
    pub fn operation(&self) -> Option<&str> {
        self.summary.get("operation").map(String::as_str)
    }
}

/// One entry of `snapshot-log`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct SnapshotLogEntry {
    pub snapshot_id: i64,
    pub timestamp_ms: i64,
}

/// One entry of `metadata-log`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct MetadataLogEntry {
    pub metadata_file: String,
    pub timestamp_ms: i64,
}

/// A named branch or tag.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct SnapshotRef {
    pub snapshot_id: i64,
    /// `branch` or `tag`.
    #[serde(rename = "type")]
    pub ref_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ref_age_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_snapshot_age_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_snapshots_to_keep: Option<i32>,
}

/// Writes an absent current snapshot as `-1`, as Java's metadata writer does.
fn snapshot_id_or_minus_one<S: Serializer>(id: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_i64(id.unwrap_or(-1))
}

impl TableMetadata {
    /// Parses a metadata file (plain or gzip-compressed JSON); `file` names it in errors.
    pub fn parse(file: &str, bytes: &[u8]) -> Result<Self> {
        let json = super::compression::metadata_json(file, bytes)?;
        super::refuse::check(file, &json)?;
        let mut meta: TableMetadata = serde_json::from_slice(&json)
            .map_err(|e| Error::corrupt(file, format!("invalid table metadata JSON: {e}")))?;
        if !(1..=3).contains(&meta.format_version) {
            return Err(Error::unsupported(
                file,
                format!("format-version {}", meta.format_version),
            ));
        }
        // v1: a single schema / spec.
        if meta.schemas.is_empty() {
            match meta.schema.take() {
                Some(s) => {
                    meta.current_schema_id = Some(s.schema_id);
                    meta.schemas.push(s);
                }
                None => return Err(Error::corrupt(file, "table metadata without a schema")),
            }
        }
        if meta.partition_specs.is_empty() {
            let fields = meta.partition_spec.take().unwrap_or_default();
            meta.partition_specs
                .push(PartitionSpec { spec_id: 0, fields });
            meta.default_spec_id.get_or_insert(0);
        }
        for spec in &mut meta.partition_specs {
            for (i, f) in spec.fields.iter_mut().enumerate() {
                f.field_id.get_or_insert(1000 + i as i32);
            }
        }
        if meta.current_snapshot_id == Some(-1) {
            meta.current_snapshot_id = None;
        }
        if meta.current_schema().is_none() {
            return Err(Error::corrupt(
                file,
                format!(
                    "current-schema-id {:?} is not among the schemas",
                    meta.current_schema_id
                ),
            ));
        }
        Ok(meta)
    }

    /// The schema with this id.
    pub fn schema_by_id(&self, id: i32) -> Option<&Schema> {
        self.schemas.iter().find(|s| s.schema_id == id)
    }

    /// The current schema.
    pub fn current_schema(&self) -> Option<&Schema> {
        match self.current_schema_id {
            Some(id) => self.schema_by_id(id),
            None => self.schemas.last(),
        }
    }

    /// The partition spec with this id.
    pub fn spec(&self, id: i32) -> Option<&PartitionSpec> {
        self.partition_specs.iter().find(|s| s.spec_id == id)
    }

    /// The snapshot with this id.
    pub fn snapshot(&self, id: i64) -> Option<&Snapshot> {
        self.snapshots.iter().find(|s| s.snapshot_id == id)
    }

    /// The current snapshot (`None` for a table without snapshots).
    pub fn current_snapshot(&self) -> Option<&Snapshot> {
        let id = self
            .current_snapshot_id
            .or_else(|| self.refs.get("main").map(|r| r.snapshot_id))?;
        self.snapshot(id)
    }

    /// The snapshot that was current at `timestamp_ms`: the last `snapshot-log` entry at or
    /// before it (falling back to snapshot timestamps when the log is empty).
    pub fn snapshot_at(&self, timestamp_ms: i64) -> Option<&Snapshot> {
        let from_log = self
            .snapshot_log
            .iter()
            .filter(|e| e.timestamp_ms <= timestamp_ms)
            .max_by_key(|e| e.timestamp_ms)
            .map(|e| e.snapshot_id);
        match from_log {
            Some(id) => self.snapshot(id),
            None if self.snapshot_log.is_empty() => self
                .snapshots
                .iter()
                .filter(|s| s.timestamp_ms <= timestamp_ms)
                .max_by_key(|s| (s.timestamp_ms, s.sequence_number)),
            None => None,
        }
    }

    /// The schema a snapshot was written with (the current schema if it does not say).
    pub fn snapshot_schema(&self, snapshot: &Snapshot) -> Option<&Schema> {
        snapshot
            .schema_id
            .and_then(|id| self.schema_by_id(id))
            .or_else(|| self.current_schema())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"{"format-version":1,"location":"s3://b/t","last-updated-ms":1,"last-column-id":1,
        "schema":{"type":"struct","fields":[{"id":1,"name":"a","required":false,"type":"int"}]},
        "partition-spec":[{"source-id":1,"name":"a","transform":"identity"}],
        "current-snapshot-id":-1,"snapshots":[]}"#;

    #[test]
    fn parses_v1_with_single_schema_and_spec() {
        let m = TableMetadata::parse("m.json", V1.as_bytes()).unwrap();
        assert_eq!(m.current_schema().unwrap().fields[0].name, "a");
        assert_eq!(m.spec(0).unwrap().fields[0].field_id, Some(1000));
        assert!(m.current_snapshot().is_none());
    }

    #[test]
    fn parses_gzip_metadata_and_names_a_truncated_one() {
        let gz = crate::spec::compression::gzip(V1.as_bytes());
        let m = TableMetadata::parse("m/00001-u.gz.metadata.json", &gz).unwrap();
        assert_eq!(m.current_schema().unwrap().fields[0].name, "a");
        let err = TableMetadata::parse("m/00001-u.gz.metadata.json", &gz[..gz.len() - 9])
            .unwrap_err()
            .to_string();
        assert!(err.contains("m/00001-u.gz.metadata.json"), "{err}");
        assert!(err.contains("gzip"), "{err}");
    }

    #[test]
    fn bad_json_names_the_file() {
        let err = TableMetadata::parse("meta/v3.metadata.json", &V1.as_bytes()[..40]).unwrap_err();
        assert!(err.to_string().contains("meta/v3.metadata.json"), "{err}");
    }
}
