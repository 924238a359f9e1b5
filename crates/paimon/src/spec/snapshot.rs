//! Snapshot files (`snapshot/snapshot-N`) and tags (`tag/tag-<name>`), both JSON.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What kind of commit produced a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CommitKind {
    /// New data appended (including upserts/deletes on PK tables).
    Append,
    /// Files rewritten by compaction.
    Compact,
    /// INSERT OVERWRITE, partition drop, or delete by predicate.
    Overwrite,
    /// Statistics collected.
    Analyze,
}

/// One snapshot: the table state after one commit.
///
/// Optional fields are `None` when the writer left them out (pypaimon omits nulls; Java 0.9
/// writes `"changelogManifestList": null` and `logOffsets`, but no `uuid`/`writerVersion`).
/// Unknown fields are ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Snapshot file format version (3 today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i32>,
    /// Snapshot id (`N` of `snapshot-N`), starting at 1.
    pub id: i64,
    /// Schema id the commit was written with.
    pub schema_id: i64,
    /// Manifest list holding the state before this commit (previous base + delta).
    pub base_manifest_list: String,
    /// Size of the base manifest list in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_manifest_list_size: Option<i64>,
    /// Manifest list with this commit's changes.
    pub delta_manifest_list: String,
    /// Size of the delta manifest list in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_manifest_list_size: Option<i64>,
    /// Manifest list of changelog files produced by this commit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list: Option<String>,
    /// Size of the changelog manifest list in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_manifest_list_size: Option<i64>,
    /// Index manifest (hash and deletion-vector index files); cumulative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_manifest: Option<String>,
    /// Identifier of the committing writer.
    pub commit_user: String,
    /// Commit identifier (`i64::MAX` for batch commits).
    pub commit_identifier: i64,
    /// Kind of commit.
    pub commit_kind: CommitKind,
    /// Commit time, epoch milliseconds.
    pub time_millis: i64,
    /// Log-system offsets per bucket (older writers; keys are bucket numbers as text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_offsets: Option<BTreeMap<String, i64>>,
    /// Rows in all live data files (before merging).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_record_count: Option<i64>,
    /// Rows added minus rows removed by this commit's data files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_record_count: Option<i64>,
    /// Rows in this commit's changelog files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changelog_record_count: Option<i64>,
    /// Watermark (`i64::MIN` when none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watermark: Option<i64>,
    /// Statistics file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistics: Option<String>,
    /// Free-form properties.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<BTreeMap<String, String>>,
    /// Next row id (row tracking).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_row_id: Option<i64>,
    /// Unique id of this snapshot file (newer writers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Writer name and version (newer writers), e.g. `python-2.1.0-…`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer_version: Option<String>,
    /// Logical operation (WRITE/DELETE/UPDATE/MERGE), newer writers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

impl Snapshot {
    /// Parses a snapshot file.
    pub fn from_json(text: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(text)
    }

    /// The watermark, or `None` when unset or `i64::MIN`.
    pub fn effective_watermark(&self) -> Option<i64> {
        self.watermark.filter(|w| *w != i64::MIN)
    }
}

/// A tag: a snapshot kept under a name (`tag/tag-<name>`), readable after the snapshot expired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    /// The tagged snapshot.
    #[serde(flatten)]
    pub snapshot: Snapshot,
    /// When the tag was created, as the writer serialized it (Java Jackson writes a
    /// `LocalDateTime`, typically as an array `[y, m, d, h, mi, s, nanos]` or a string);
    /// absent in pypaimon tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_create_time: Option<serde_json::Value>,
    /// How long the tag is retained (Java `Duration`, typically seconds as a number); absent
    /// when retained forever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag_time_retained: Option<serde_json::Value>,
}

impl Tag {
    /// Parses a tag file.
    pub fn from_json(text: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PYPAIMON: &str = r#"{
      "version": 3, "id": 5, "schemaId": 0,
      "baseManifestList": "manifest-list-79948860-c578-4b7c-9956-eaa15e29b8fb-0",
      "deltaManifestList": "manifest-list-79948860-c578-4b7c-9956-eaa15e29b8fb-1",
      "totalRecordCount": 40, "deltaRecordCount": 3,
      "commitUser": "e8c05b11-6487-4fbf-90df-61db373d13bc",
      "commitIdentifier": 9223372036854775807, "commitKind": "APPEND",
      "timeMillis": 1796026389117, "baseManifestListSize": 1453, "deltaManifestListSize": 1359,
      "uuid": "e848b257-ff65-4107-b5ff-3b355f3fb535",
      "writerVersion": "python-2.1.0-3a5ffe7870697e2c2605e63413fb5ac5800aae7e"
    }"#;

    const JAVA09: &str = r#"{
      "version" : 3, "id" : 8, "schemaId" : 0,
      "baseManifestList" : "manifest-list-c7b3d566-b503-4440-8220-dad3d93933eb-2",
      "deltaManifestList" : "manifest-list-c7b3d566-b503-4440-8220-dad3d93933eb-3",
      "changelogManifestList" : null,
      "indexManifest" : "index-manifest-f154e954-63d2-4b3f-abd9-fae138274219-0",
      "commitUser" : "d515676b-0ad1-4d88-b67f-5a30a272066e",
      "commitIdentifier" : 9223372036854775807, "commitKind" : "COMPACT",
      "timeMillis" : 1796026393205, "logOffsets" : { },
      "totalRecordCount" : 16, "deltaRecordCount" : 0, "changelogRecordCount" : 0,
      "someFutureField" : [1, 2]
    }"#;

    #[test]
    fn parses_pypaimon_snapshot() {
        let s = Snapshot::from_json(PYPAIMON.as_bytes()).unwrap();
        assert_eq!(s.id, 5);
        assert_eq!(s.commit_kind, CommitKind::Append);
        assert_eq!(s.commit_identifier, i64::MAX);
        assert_eq!(s.total_record_count, Some(40));
        assert_eq!(s.base_manifest_list_size, Some(1453));
        assert_eq!(s.changelog_manifest_list, None);
        assert_eq!(s.index_manifest, None);
        assert!(s
            .writer_version
            .as_deref()
            .unwrap()
            .starts_with("python-2.1.0"));
        let json = serde_json::to_string(&s).unwrap();
        assert!(!json.contains("null"), "{json}");
        assert_eq!(Snapshot::from_json(json.as_bytes()).unwrap(), s);
    }

    #[test]
    fn parses_java09_snapshot() {
        let s = Snapshot::from_json(JAVA09.as_bytes()).unwrap();
        assert_eq!(s.commit_kind, CommitKind::Compact);
        assert_eq!(s.changelog_manifest_list, None);
        assert_eq!(
            s.index_manifest.as_deref(),
            Some("index-manifest-f154e954-63d2-4b3f-abd9-fae138274219-0")
        );
        assert_eq!(s.log_offsets, Some(BTreeMap::new()));
        assert_eq!(s.uuid, None);
        assert_eq!(s.changelog_record_count, Some(0));
    }

    #[test]
    fn rejects_broken_snapshots() {
        assert!(Snapshot::from_json(b"{\"id\": 1}").is_err());
        assert!(Snapshot::from_json(PYPAIMON.replace("APPEND", "MERGE").as_bytes()).is_err());
        assert!(Snapshot::from_json(b"{").is_err());
    }

    #[test]
    fn parses_tags() {
        let t = Tag::from_json(PYPAIMON.as_bytes()).unwrap();
        assert_eq!(t.snapshot.id, 5);
        assert_eq!(t.tag_create_time, None);
        let java = JAVA09.replace(
            "\"logOffsets\"",
            "\"tagCreateTime\" : [ 2026, 11, 30, 8, 13, 12, 204000000 ], \"tagTimeRetained\" : 86400.0, \"logOffsets\"",
        );
        let t = Tag::from_json(java.as_bytes()).unwrap();
        assert_eq!(t.snapshot.id, 8);
        assert!(t.tag_create_time.as_ref().unwrap().is_array());
        assert_eq!(
            t.tag_time_retained.as_ref().unwrap().as_f64(),
            Some(86400.0)
        );
    }
}
