//! Request and response bodies of the Iceberg REST catalog API (open-api/rest-catalog-open-api.yaml).

use crate::spec::{PartitionSpec, Schema, Snapshot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `GET /v1/config`: properties the client merges as defaults < client options < overrides.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ConfigResponse {
    #[serde(default)]
    pub defaults: BTreeMap<String, String>,
    #[serde(default)]
    pub overrides: BTreeMap<String, String>,
}

/// `GET /v1/{prefix}/namespaces`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ListNamespacesResponse {
    #[serde(default)]
    pub namespaces: Vec<Vec<String>>,
    #[serde(default)]
    pub next_page_token: Option<String>,
}

/// `POST /v1/{prefix}/namespaces`.
#[derive(Debug, Clone, Serialize)]
pub struct CreateNamespaceRequest {
    pub namespace: Vec<String>,
    pub properties: BTreeMap<String, String>,
}

/// A table's name within its namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableIdentifier {
    pub namespace: Vec<String>,
    pub name: String,
}

/// `GET /v1/{prefix}/namespaces/{namespace}/tables`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ListTablesResponse {
    #[serde(default)]
    pub identifiers: Vec<TableIdentifier>,
    #[serde(default)]
    pub next_page_token: Option<String>,
}

/// `GET …/tables/{table}`, `POST …/tables` (create): the metadata and the table's config
/// (vended storage credentials such as `s3.access-key-id`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LoadTableResult {
    #[serde(default)]
    pub metadata_location: Option<String>,
    /// Parsed by [`crate::spec::TableMetadata::parse`] (which also upgrades v1 fields).
    pub metadata: serde_json::Value,
    #[serde(default)]
    pub config: BTreeMap<String, String>,
}

/// `POST …/namespaces/{namespace}/tables`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct CreateTableRequest {
    pub name: String,
    /// `None`: the server chooses (sent as `null`; some servers require the key).
    pub location: Option<String>,
    pub schema: Schema,
    pub partition_spec: Option<PartitionSpec>,
    /// Sort order (lakescope writes unsorted tables: `null`).
    pub write_order: Option<serde_json::Value>,
    pub stage_create: bool,
    pub properties: BTreeMap<String, String>,
}

/// `POST …/tables/{table}`: requirements checked against the current metadata, then updates.
#[derive(Debug, Clone, Serialize)]
pub struct CommitTableRequest {
    pub identifier: TableIdentifier,
    pub requirements: Vec<TableRequirement>,
    pub updates: Vec<TableUpdate>,
}

/// The answer to a commit: the new metadata.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct CommitTableResponse {
    pub metadata_location: String,
    pub metadata: serde_json::Value,
}

/// A condition the table must meet for a commit to apply.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum TableRequirement {
    AssertTableUuid {
        uuid: String,
    },
    /// The ref points at this snapshot (`None`: the ref does not exist).
    AssertRefSnapshotId {
        #[serde(rename = "ref")]
        reference: String,
        #[serde(rename = "snapshot-id")]
        snapshot_id: Option<i64>,
    },
    AssertCurrentSchemaId {
        #[serde(rename = "current-schema-id")]
        current_schema_id: i32,
    },
    AssertLastAssignedFieldId {
        #[serde(rename = "last-assigned-field-id")]
        last_assigned_field_id: i32,
    },
    AssertDefaultSpecId {
        #[serde(rename = "default-spec-id")]
        default_spec_id: i32,
    },
    AssertLastAssignedPartitionId {
        #[serde(rename = "last-assigned-partition-id")]
        last_assigned_partition_id: i32,
    },
}

/// A change to the table's metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum TableUpdate {
    AddSchema {
        schema: Schema,
        #[serde(rename = "last-column-id")]
        last_column_id: i32,
    },
    SetCurrentSchema {
        #[serde(rename = "schema-id")]
        schema_id: i32,
    },
    AddSpec {
        spec: PartitionSpec,
    },
    SetDefaultSpec {
        #[serde(rename = "spec-id")]
        spec_id: i32,
    },
    AddSnapshot {
        snapshot: Snapshot,
    },
    SetSnapshotRef {
        #[serde(rename = "ref-name")]
        ref_name: String,
        #[serde(rename = "type")]
        ref_type: String,
        #[serde(rename = "snapshot-id")]
        snapshot_id: i64,
    },
    RemoveSnapshotRef {
        #[serde(rename = "ref-name")]
        ref_name: String,
    },
    SetProperties {
        updates: BTreeMap<String, String>,
    },
    RemoveProperties {
        removals: Vec<String>,
    },
}

/// The error body every endpoint answers with: `{"error": {"message", "type", "code"}}`.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorResponse {
    pub error: ErrorModel,
}

/// The error itself.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorModel {
    #[serde(default)]
    pub message: String,
    #[serde(default, rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub code: u16,
}
