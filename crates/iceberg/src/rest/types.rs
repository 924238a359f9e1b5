//! Request and response bodies of the Iceberg REST catalog API (open-api/rest-catalog-open-api.yaml).

use crate::spec::{PartitionSpec, Schema, Snapshot};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `GET /v1/config`: properties the client merges as defaults < client options < overrides.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ConfigResponse {
    /// `defaults`: catalog properties the client's own options override.
    #[serde(default)]
    pub defaults: BTreeMap<String, String>,
    /// `overrides`: catalog properties that win over the client's options (e.g. `prefix`, the
    /// path segment after `/v1/`).
    #[serde(default)]
    pub overrides: BTreeMap<String, String>,
}

/// `GET /v1/{prefix}/namespaces`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ListNamespacesResponse {
    /// `namespaces`: the namespaces of this page, each as its levels (`["db"]`, `["a", "b"]`).
    #[serde(default)]
    pub namespaces: Vec<Vec<String>>,
    /// `next-page-token`: the `pageToken` that asks for the next page; absent or null on the
    /// last page (and from servers that do not page).
    #[serde(default)]
    pub next_page_token: Option<String>,
}

/// `POST /v1/{prefix}/namespaces`.
#[derive(Debug, Clone, Serialize)]
pub struct CreateNamespaceRequest {
    /// `namespace`: the new namespace's levels.
    pub namespace: Vec<String>,
    /// `properties`: its initial properties (e.g. `location`); may be empty.
    pub properties: BTreeMap<String, String>,
}

/// A table's name within its namespace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableIdentifier {
    /// `namespace`: the levels of the table's namespace (`["db"]`).
    pub namespace: Vec<String>,
    /// `name`: the table's name within it.
    pub name: String,
}

/// `GET /v1/{prefix}/namespaces/{namespace}/tables`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ListTablesResponse {
    /// `identifiers`: the tables of this page.
    #[serde(default)]
    pub identifiers: Vec<TableIdentifier>,
    /// `next-page-token`: the `pageToken` that asks for the next page; absent or null on the
    /// last page (and from servers that do not page).
    #[serde(default)]
    pub next_page_token: Option<String>,
}

/// `GET …/tables/{table}`, `POST …/tables` (create): the metadata and the table's config
/// (vended storage credentials such as `s3.access-key-id`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct LoadTableResult {
    /// `metadata-location`: the location of the table's current metadata file; absent for a
    /// table staged by a create that is not committed yet.
    #[serde(default)]
    pub metadata_location: Option<String>,
    /// `metadata`: the table metadata JSON. Parsed by [`crate::spec::TableMetadata::parse`]
    /// (which also upgrades v1 fields).
    pub metadata: serde_json::Value,
    /// `config`: table-specific configuration that overrides the catalog's for this table,
    /// such as vended storage credentials; handed to [`super::catalog::TableStores::open`].
    #[serde(default)]
    pub config: BTreeMap<String, String>,
}

/// `POST …/namespaces/{namespace}/tables`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct CreateTableRequest {
    /// `name`: the new table's name within the namespace of the URL.
    pub name: String,
    /// `location`: the table's base location; `None`: the server chooses (sent as `null`;
    /// some servers require the key).
    pub location: Option<String>,
    /// `schema`: the table's initial schema (the catalog may assign fresh field ids: the
    /// answer's metadata has the ids that count).
    pub schema: Schema,
    /// `partition-spec`: the initial partition spec (`None`: unpartitioned, sent as `null`).
    pub partition_spec: Option<PartitionSpec>,
    /// `write-order`: the initial sort order (lakescope writes unsorted tables: `null`).
    pub write_order: Option<serde_json::Value>,
    /// `stage-create`: `true` only stages the table (it exists once a later commit creates it);
    /// lakescope creates tables at once (`false`).
    pub stage_create: bool,
    /// `properties`: the table's initial properties.
    pub properties: BTreeMap<String, String>,
}

/// `POST …/tables/{table}`: requirements checked against the current metadata, then updates.
#[derive(Debug, Clone, Serialize)]
pub struct CommitTableRequest {
    /// `identifier`: the table committed to.
    pub identifier: TableIdentifier,
    /// `requirements`: conditions that must all hold on the current metadata, else the
    /// catalog refuses the commit with `409 Conflict` (`CommitFailedException`).
    pub requirements: Vec<TableRequirement>,
    /// `updates`: the metadata changes, applied in order.
    pub updates: Vec<TableUpdate>,
}

/// The answer to a commit: the new metadata.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct CommitTableResponse {
    /// `metadata-location`: the location of the metadata file the commit wrote.
    pub metadata_location: String,
    /// `metadata`: the table metadata JSON after the commit.
    pub metadata: serde_json::Value,
}

/// A condition the table must meet for a commit to apply.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum TableRequirement {
    /// `assert-table-uuid`: the table is still the one read (not dropped and re-created).
    AssertTableUuid {
        /// `uuid`: the table's `table-uuid`.
        uuid: String,
    },
    /// `assert-ref-snapshot-id`: the ref still points at this snapshot (`None`: the ref does
    /// not exist, as for a first commit).
    AssertRefSnapshotId {
        /// `ref`: the branch or tag name, e.g. `main`.
        #[serde(rename = "ref")]
        reference: String,
        /// `snapshot-id`: the snapshot it must point at (`null`: it must not exist).
        #[serde(rename = "snapshot-id")]
        snapshot_id: Option<i64>,
    },
    /// `assert-current-schema-id`: no one changed the current schema meanwhile.
    AssertCurrentSchemaId {
        /// `current-schema-id`: the id the table's `current-schema-id` must still have.
        #[serde(rename = "current-schema-id")]
        current_schema_id: i32,
    },
    /// `assert-last-assigned-field-id`: no one assigned new field ids meanwhile.
    AssertLastAssignedFieldId {
        /// `last-assigned-field-id`: the value the table's `last-column-id` must still have.
        #[serde(rename = "last-assigned-field-id")]
        last_assigned_field_id: i32,
    },
    /// `assert-default-spec-id`: no one changed the default partition spec meanwhile.
    AssertDefaultSpecId {
        /// `default-spec-id`: the id the table's `default-spec-id` must still have.
        #[serde(rename = "default-spec-id")]
        default_spec_id: i32,
    },
    /// `assert-last-assigned-partition-id`: no one assigned new partition field ids meanwhile.
    AssertLastAssignedPartitionId {
        /// `last-assigned-partition-id`: the value the table's `last-partition-id` must still
        /// have.
        #[serde(rename = "last-assigned-partition-id")]
        last_assigned_partition_id: i32,
    },
}

/// A change to the table's metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum TableUpdate {
    /// `add-schema`: adds a schema to `schemas` (without making it current).
    AddSchema {
        /// `schema`: the new schema, with its `schema-id`.
        schema: Schema,
        /// `last-column-id`: the table's `last-column-id` after the change (optional in the
        /// spec: a server computes it when omitted).
        #[serde(rename = "last-column-id")]
        last_column_id: i32,
    },
    /// `set-current-schema`: makes a schema the current one.
    SetCurrentSchema {
        /// `schema-id`: its id (`-1` in the spec means the schema added last).
        #[serde(rename = "schema-id")]
        schema_id: i32,
    },
    /// `add-spec`: adds a partition spec to `partition-specs` (without making it the default).
    AddSpec {
        /// `spec`: the new spec, with its `spec-id` and field ids.
        spec: PartitionSpec,
    },
    /// `set-default-spec`: makes a spec the one new data files are written with.
    SetDefaultSpec {
        /// `spec-id`: its id (`-1` in the spec means the spec added last).
        #[serde(rename = "spec-id")]
        spec_id: i32,
    },
    /// `add-snapshot`: adds a snapshot to `snapshots` (a ref must still be set to it).
    AddSnapshot {
        /// `snapshot`: the new snapshot, its manifest list already written.
        snapshot: Snapshot,
    },
    /// `set-snapshot-ref`: creates a branch or tag or moves it to a snapshot (`main` moves the
    /// current snapshot).
    SetSnapshotRef {
        /// `ref-name`: the branch or tag name.
        #[serde(rename = "ref-name")]
        ref_name: String,
        /// `type`: `branch` or `tag`.
        #[serde(rename = "type")]
        ref_type: String,
        /// `snapshot-id`: the snapshot it points at after the commit.
        #[serde(rename = "snapshot-id")]
        snapshot_id: i64,
    },
    /// `remove-snapshot-ref`: drops a branch or tag (its snapshots stay until expired).
    RemoveSnapshotRef {
        /// `ref-name`: the branch or tag name.
        #[serde(rename = "ref-name")]
        ref_name: String,
    },
    /// `set-properties`: sets table properties.
    SetProperties {
        /// `updates`: the properties to set, key to new value.
        updates: BTreeMap<String, String>,
    },
    /// `remove-properties`: removes table properties.
    RemoveProperties {
        /// `removals`: the keys to remove.
        removals: Vec<String>,
    },
}

/// The error body every endpoint answers with: `{"error": {"message", "type", "code"}}`.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorResponse {
    /// `error`: what went wrong.
    pub error: ErrorModel,
}

/// The error itself.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorModel {
    /// `message`: a human-readable description of the error.
    #[serde(default)]
    pub message: String,
    /// `type`: the error's kind, named after the Java exception (e.g.
    /// `NoSuchTableException`, `CommitFailedException`).
    #[serde(default, rename = "type")]
    pub kind: String,
    /// `code`: the HTTP status code again (e.g. 404).
    #[serde(default)]
    pub code: u16,
}
