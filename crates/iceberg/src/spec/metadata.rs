//! Table metadata JSON (`vN-….metadata.json`, plain or gzip), format v1–v3: schemas, specs, snapshots, refs.

use super::types::Schema;
use crate::{Error, Result};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;

/// The whole metadata file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct TableMetadata {
    /// `format-version`: the table format version, 1, 2 or 3 (v2 added row-level deletes and
    /// sequence numbers, v3 default values, row lineage and deletion vectors).
    pub format_version: u8,
    /// `table-uuid`: the UUID the table got when it was created; it never changes, so a
    /// different UUID at the same location means the table was replaced. Required from v2; may
    /// be absent in v1.
    #[serde(default)]
    pub table_uuid: Option<String>,
    /// `location`: the table's base location as written (absolute URI, e.g. `s3://bucket/db/t`);
    /// data and metadata files live under it unless properties say otherwise.
    pub location: String,
    /// `last-sequence-number`: the highest data sequence number assigned so far; the next commit
    /// gets this plus one. v2+; absent (read as 0) in v1 tables.
    #[serde(default)]
    pub last_sequence_number: i64,
    /// `last-updated-ms`: when this metadata was written, in milliseconds since the Unix epoch.
    #[serde(default)]
    pub last_updated_ms: i64,
    /// `last-column-id`: the highest field id assigned in any schema; schema evolution numbers new
    /// fields (at any depth) from here.
    #[serde(default)]
    pub last_column_id: i32,
    /// `schemas`: every schema the table has had, each with its `schema-id`. Required from v2;
    /// a v1 file may have only `schema`, which [`TableMetadata::parse`] then moves here.
    #[serde(default)]
    pub schemas: Vec<Schema>,
    /// `schema` (v1, deprecated): the single current schema. When `schemas` is absent,
    /// [`TableMetadata::parse`] moves it there and leaves `None` here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Schema>,
    /// `current-schema-id`: the id of the schema in `schemas` that readers and writers use now.
    /// Required from v2; for a v1 file with only `schema`, [`TableMetadata::parse`] sets it to
    /// that schema's id. Still absent: the last of `schemas` is current.
    #[serde(default)]
    pub current_schema_id: Option<i32>,
    /// `partition-specs`: every partition spec the table has had (data files keep the id of the
    /// spec they were written with). Required from v2; for a v1 file with only
    /// `partition-spec`, [`TableMetadata::parse`] puts that spec here as spec 0.
    #[serde(default)]
    pub partition_specs: Vec<PartitionSpec>,
    /// `partition-spec` (v1, deprecated): the fields of the single current spec. When
    /// `partition-specs` is absent, [`TableMetadata::parse`] moves it there as spec 0 and leaves
    /// `None` here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_spec: Option<Vec<PartitionField>>,
    /// `default-spec-id`: the id of the spec in `partition-specs` that new data files are written
    /// with. Required from v2; [`TableMetadata::parse`] sets 0 for a v1 file with only
    /// `partition-spec`.
    #[serde(default)]
    pub default_spec_id: Option<i32>,
    /// `last-partition-id`: the highest partition field id assigned in any spec (field ids start
    /// at 1000). Required from v2; may be absent in v1.
    #[serde(default)]
    pub last_partition_id: Option<i32>,
    /// `properties`: the table properties, free-form string pairs that steer writers and readers,
    /// e.g. `write.format.default`, `commit.retry.num-retries`, `write.metadata.compression-codec`.
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
    /// `current-snapshot-id`: the snapshot readers see by default; written as `-1` (and read as
    /// `None`) when the table has no snapshot.
    #[serde(default, serialize_with = "snapshot_id_or_minus_one")]
    pub current_snapshot_id: Option<i64>,
    /// `snapshots`: the snapshots still kept (expiring snapshots removes them). Empty for a table
    /// that was never written.
    #[serde(default)]
    pub snapshots: Vec<Snapshot>,
    /// `snapshot-log`: `(timestamp-ms, snapshot-id)` for each change of the current snapshot,
    /// oldest first; time travel by timestamp reads it ([`TableMetadata::snapshot_at`]).
    #[serde(default)]
    pub snapshot_log: Vec<SnapshotLogEntry>,
    /// `metadata-log`: the previous metadata files and when each was written, oldest first;
    /// writers trim it to `write.metadata.previous-versions-max` entries.
    #[serde(default)]
    pub metadata_log: Vec<MetadataLogEntry>,
    /// `sort-orders`: every sort order the table has had. Required from v2; may be absent in v1.
    #[serde(default)]
    pub sort_orders: Vec<SortOrder>,
    /// `default-sort-order-id`: the id of the sort order in `sort-orders` writers use by default
    /// (0: unsorted). Required from v2; may be absent in v1.
    #[serde(default)]
    pub default_sort_order_id: Option<i32>,
    /// `refs`: the named branches and tags, by name. The branch `main` points at the current
    /// snapshot; absent in metadata written before refs existed (then only
    /// `current-snapshot-id` counts).
    #[serde(default)]
    pub refs: BTreeMap<String, SnapshotRef>,
}

/// A partition spec: how rows map to partition tuples.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct PartitionSpec {
    /// `spec-id`: the spec's id, which data files and manifests refer to.
    pub spec_id: i32,
    /// `fields`: the partition fields in order: they make the data file's `partition` tuple.
    /// Empty for an unpartitioned table.
    pub fields: Vec<PartitionField>,
}

/// One partition field: `transform(source column)`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct PartitionField {
    /// `source-id`: the field id of the table column the transform is applied to.
    pub source_id: i32,
    /// `field-id`: the partition field's id, unique across all specs of the table (from 1000).
    /// Absent in old v1 metadata; [`TableMetadata::parse`] then assigns 1000, 1001, ... in order.
    #[serde(default)]
    pub field_id: Option<i32>,
    /// `name`: the partition field's name in the partition tuple (e.g. `ts_day`).
    pub name: String,
    /// `transform`: how the source value becomes the partition value: `identity`, `bucket[N]`,
    /// `truncate[W]`, `year`, `month`, `day`, `hour` or `void` (see [`super::transform`]).
    pub transform: String,
}

/// A sort order (kept for display).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct SortOrder {
    /// `order-id`: the sort order's id; 0 is reserved for the unsorted order.
    pub order_id: i32,
    /// `fields`: the sort fields (`transform`, `source-id`, `direction`, `null-order`) as written;
    /// not interpreted.
    #[serde(default)]
    pub fields: Vec<serde_json::Value>,
}

/// A snapshot: the table state after one commit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Snapshot {
    /// `snapshot-id`: the snapshot's id, unique within the table (writers pick a random
    /// positive long).
    pub snapshot_id: i64,
    /// `parent-snapshot-id`: the snapshot this one was committed on top of; absent for a snapshot
    /// without a parent, such as the table's first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_snapshot_id: Option<i64>,
    /// `sequence-number`: the data sequence number of the snapshot (orders its files against
    /// delete files). v2+; absent in v1 tables (read as 0).
    #[serde(default)]
    pub sequence_number: i64,
    /// `timestamp-ms`: when the snapshot was created, in milliseconds since the Unix epoch.
    pub timestamp_ms: i64,
    /// `manifest-list`: the location of the snapshot's manifest list (an Avro file naming its
    /// manifests). Required from v2; absent in v1 snapshots that list `manifests` inline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_list: Option<String>,
    /// `manifests` (v1 only): the manifest files' locations, listed inline instead of in a
    /// manifest list. Absent when `manifest-list` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifests: Option<Vec<String>>,
    /// `summary`: `operation` (`append`, `replace`, `overwrite`, `delete`) and writer-defined
    /// counters such as `added-data-files`, `added-records`, `total-records`.
    #[serde(default)]
    pub summary: BTreeMap<String, String>,
    /// `schema-id`: the id of the current schema when the snapshot was written. Optional (v1 and
    /// v2); when absent, [`TableMetadata::snapshot_schema`] falls back to the current schema.
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
    /// `snapshot-id`: the snapshot that became current.
    pub snapshot_id: i64,
    /// `timestamp-ms`: when it became current, in milliseconds since the Unix epoch.
    pub timestamp_ms: i64,
}

/// One entry of `metadata-log`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct MetadataLogEntry {
    /// `metadata-file`: the location of a previous metadata file (absolute URI as written).
    pub metadata_file: String,
    /// `timestamp-ms`: that file's `last-updated-ms`, in milliseconds since the Unix epoch.
    pub timestamp_ms: i64,
}

/// A named branch or tag.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct SnapshotRef {
    /// `snapshot-id`: the snapshot the branch or tag points at.
    pub snapshot_id: i64,
    /// `type`: `branch` (moves with each commit to it) or `tag` (fixed).
    #[serde(rename = "type")]
    pub ref_type: String,
    /// `max-ref-age-ms`: how long (ms) the ref is kept before snapshot expiry drops it; absent:
    /// the table's `history.expire.max-ref-age-ms` (forever by default). Never applies to `main`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ref_age_ms: Option<i64>,
    /// `max-snapshot-age-ms` (branches only): the age (ms) past which snapshot expiry may drop the
    /// branch's older snapshots; absent: the table's `history.expire.max-snapshot-age-ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_snapshot_age_ms: Option<i64>,
    /// `min-snapshots-to-keep` (branches only): how many of the branch's latest snapshots expiry
    /// always keeps; absent: the table's `history.expire.min-snapshots-to-keep`.
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
