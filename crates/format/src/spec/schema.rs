//! The table schema file `schema/schema-N` (JSON), with Paimon's compatibility rules for old versions.

use super::options::CoreOptions;
use super::types::{DataField, DataType};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Schema file format version written by current Paimon.
pub const CURRENT_SCHEMA_VERSION: i32 = 3;

/// One version of a table's schema (`schema/schema-<id>`).
///
/// Deserializing applies Paimon's compatibility rules (as Java's `TableSchema` does): a file
/// without `version` is version 1; version 1 without a `bucket` option means `bucket=1`;
/// versions 1 and 2 without `file.format` mean `file.format=orc`. The injected values show up
/// in [`TableSchema::options`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", from = "RawTableSchema")]
pub struct TableSchema {
    /// Schema file format version (1..=3).
    pub version: i32,
    /// Schema id (the `N` of `schema-N`).
    pub id: i64,
    /// Columns in table order.
    pub fields: Vec<DataField>,
    /// Highest field id ever used (ids are never reused).
    pub highest_field_id: i32,
    /// Partition columns, in partition-path order.
    pub partition_keys: Vec<String>,
    /// Primary-key columns (may include partition columns).
    pub primary_keys: Vec<String>,
    /// Table options.
    pub options: BTreeMap<String, String>,
    /// Table comment.
    pub comment: Option<String>,
    /// Creation time of this schema version, epoch milliseconds.
    pub time_millis: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawTableSchema {
    #[serde(default)]
    version: Option<i32>,
    id: i64,
    fields: Vec<DataField>,
    #[serde(default)]
    highest_field_id: Option<i32>,
    #[serde(default)]
    partition_keys: Vec<String>,
    #[serde(default)]
    primary_keys: Vec<String>,
    #[serde(default)]
    options: BTreeMap<String, String>,
    #[serde(default)]
    comment: Option<String>,
    #[serde(default)]
    time_millis: i64,
}

impl From<RawTableSchema> for TableSchema {
    fn from(raw: RawTableSchema) -> Self {
        let version = raw.version.unwrap_or(1);
        let mut options = raw.options;
        if version <= 1 {
            options.entry("bucket".into()).or_insert_with(|| "1".into());
        }
        if version <= 2 {
            options
                .entry("file.format".into())
                .or_insert_with(|| "orc".into());
        }
        let highest_field_id = raw
            .highest_field_id
            .unwrap_or_else(|| raw.fields.iter().map(|f| f.id).max().unwrap_or(-1));
        TableSchema {
            version,
            id: raw.id,
            fields: raw.fields,
            highest_field_id,
            partition_keys: raw.partition_keys,
            primary_keys: raw.primary_keys,
            options,
            comment: raw.comment,
            time_millis: raw.time_millis,
        }
    }
}

impl TableSchema {
    /// Parses a `schema-N` file.
    pub fn from_json(text: &[u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(text)
    }

    /// The first column (dotted path for nested fields) whose type this crate does not know
    /// (types of future Paimon versions, VECTORs of elements Paimon does not allow), with the type as written; for an error
    /// naming them when [`TableSchema::from_json`] fails.
    pub fn unknown_type(text: &[u8]) -> Option<(String, String)> {
        let value: serde_json::Value = serde_json::from_slice(text).ok()?;
        unknown_in_fields(value.get("fields")?, "")
    }

    /// The field with this name.
    pub fn field(&self, name: &str) -> Option<&DataField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The field with this id.
    pub fn field_by_id(&self, id: i32) -> Option<&DataField> {
        self.fields.iter().find(|f| f.id == id)
    }

    /// Position of the named field in [`TableSchema::fields`].
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// The partition columns in partition-key order (names that are not columns are skipped).
    pub fn partition_fields(&self) -> Vec<&DataField> {
        self.partition_keys
            .iter()
            .filter_map(|k| self.field(k))
            .collect()
    }

    /// Types of the partition columns, in partition-key order (the layout of `_PARTITION`).
    pub fn partition_types(&self) -> Vec<DataType> {
        self.partition_fields()
            .into_iter()
            .map(|f| f.data_type.clone())
            .collect()
    }

    /// The primary-key columns in primary-key order.
    pub fn primary_key_fields(&self) -> Vec<&DataField> {
        self.primary_keys
            .iter()
            .filter_map(|k| self.field(k))
            .collect()
    }

    /// Primary keys without the partition keys (what data files store as `_KEY_*`,
    /// and the layout of `_MIN_KEY`/`_MAX_KEY`). If that would leave nothing, the full key.
    pub fn trimmed_primary_keys(&self) -> Vec<String> {
        let trimmed: Vec<String> = self
            .primary_keys
            .iter()
            .filter(|k| !self.partition_keys.contains(k))
            .cloned()
            .collect();
        if trimmed.is_empty() {
            self.primary_keys.clone()
        } else {
            trimmed
        }
    }

    /// The fields of [`TableSchema::trimmed_primary_keys`].
    pub fn trimmed_primary_key_fields(&self) -> Vec<&DataField> {
        self.trimmed_primary_keys()
            .iter()
            .filter_map(|k| self.field(k))
            .collect()
    }

    /// Typed access to the options.
    pub fn core_options(&self) -> CoreOptions {
        CoreOptions::new(self.options.clone())
    }
}

/// See [`TableSchema::unknown_type`]: walks `fields` (and nested ROW/ARRAY/MAP children).
fn unknown_in_fields(fields: &serde_json::Value, prefix: &str) -> Option<(String, String)> {
    fields.as_array()?.iter().find_map(|f| {
        let name = format!("{prefix}{}", f.get("name")?.as_str()?);
        unknown_in_type(f.get("type")?, &name)
    })
}

fn unknown_in_type(ty: &serde_json::Value, column: &str) -> Option<(String, String)> {
    if DataType::from_json(ty).is_ok() {
        return None;
    }
    let nested = ["element", "key", "value"]
        .iter()
        .filter_map(|k| ty.get(*k))
        .find_map(|child| unknown_in_type(child, column));
    let in_row = ty
        .get("fields")
        .and_then(|f| unknown_in_fields(f, &format!("{column}.")));
    nested.or(in_row).or_else(|| {
        let text = match ty {
            serde_json::Value::String(s) => s.clone(),
            other => other
                .get("type")
                .and_then(|t| t.as_str())
                .map_or_else(|| other.to_string(), String::from),
        };
        Some((column.to_string(), text))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::types::TypeKind;

    #[test]
    fn unknown_types_name_their_column() {
        let text = r#"{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},
            {"id":1,"name":"r","type":{"type":"ROW","fields":[{"id":2,"name":"emb","type":"VECTOR<STRING, 3>"}]}},
            {"id":3,"name":"p","type":"GEOMETRY"}],"options":{},"timeMillis":1}"#;
        assert!(TableSchema::from_json(text.as_bytes()).is_err());
        assert_eq!(
            TableSchema::unknown_type(text.as_bytes()),
            Some(("r.emb".to_string(), "VECTOR<STRING, 3>".to_string()))
        );
        assert_eq!(TableSchema::unknown_type(PYPAIMON.as_bytes()), None);
    }

    const PYPAIMON: &str = r#"{
      "version": 3, "id": 0,
      "fields": [
        {"id": 0, "name": "dt", "type": "STRING NOT NULL"},
        {"id": 1, "name": "id", "type": "INT NOT NULL"},
        {"id": 4, "name": "price", "type": "DECIMAL(12, 3)"}
      ],
      "highestFieldId": 6, "partitionKeys": ["dt"], "primaryKeys": ["dt", "id"],
      "options": {"bucket": "2", "merge-engine": "deduplicate"},
      "comment": null, "timeMillis": 1796026388957
    }"#;

    const JAVA09: &str = r#"{
      "version" : 3,
      "id" : 0,
      "fields" : [ { "id" : 0, "name" : "k", "type" : "STRING NOT NULL" },
                   { "id" : 1, "name" : "total", "type" : "BIGINT", "description" : "sum" } ],
      "highestFieldId" : 1,
      "partitionKeys" : [ ],
      "primaryKeys" : [ "k" ],
      "options" : { "bucket" : "1" },
      "timeMillis" : 1796026391241
    }"#;

    #[test]
    fn parses_pypaimon_schema() {
        let s = TableSchema::from_json(PYPAIMON.as_bytes()).unwrap();
        assert_eq!(s.version, 3);
        assert_eq!(s.highest_field_id, 6);
        assert_eq!(s.comment, None);
        assert_eq!(
            s.field("price").unwrap().data_type.kind,
            TypeKind::Decimal {
                precision: 12,
                scale: 3
            }
        );
        assert_eq!(s.partition_fields().len(), 1);
        assert_eq!(s.primary_key_fields().len(), 2);
        assert_eq!(s.trimmed_primary_keys(), vec!["id".to_string()]);
        assert_eq!(s.core_options().bucket().unwrap(), 2);
        // v3 gets no injected defaults
        assert!(!s.options.contains_key("file.format"));
    }

    #[test]
    fn parses_java_schema() {
        let s = TableSchema::from_json(JAVA09.as_bytes()).unwrap();
        assert_eq!(
            s.field("total").unwrap().description.as_deref(),
            Some("sum")
        );
        assert!(s.partition_keys.is_empty());
        assert_eq!(s.trimmed_primary_keys(), vec!["k".to_string()]);
        let back: TableSchema = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn old_versions_get_compat_defaults() {
        let v1 = r#"{"id": 0, "fields": [], "partitionKeys": [], "primaryKeys": [], "options": {}, "timeMillis": 1}"#;
        let s = TableSchema::from_json(v1.as_bytes()).unwrap();
        assert_eq!(s.version, 1);
        assert_eq!(s.options.get("bucket").map(String::as_str), Some("1"));
        assert_eq!(
            s.options.get("file.format").map(String::as_str),
            Some("orc")
        );
        let v2 =
            r#"{"version": 2, "id": 0, "fields": [], "options": {"bucket": "4"}, "timeMillis": 1}"#;
        let s = TableSchema::from_json(v2.as_bytes()).unwrap();
        assert_eq!(s.core_options().bucket().unwrap(), 4);
        assert_eq!(s.core_options().file_format(), "orc");
        // A pk that is entirely the partition key keeps the full key.
        let all = r#"{"version": 3, "id": 0, "fields": [{"id":0,"name":"a","type":"INT"}], "partitionKeys": ["a"], "primaryKeys": ["a"], "options": {}, "timeMillis": 1}"#;
        let s = TableSchema::from_json(all.as_bytes()).unwrap();
        assert_eq!(s.trimmed_primary_keys(), vec!["a".to_string()]);
    }
}
