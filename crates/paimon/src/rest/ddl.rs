//! Databases, tables and tags through a Paimon REST catalog: `createDatabase`, `dropDatabase`,
//! `createTable` (with a schema), `dropTable` and `createTag`; the service owns these objects,
//! so they are created and dropped through it rather than as files.

use super::{encode, RestCatalog};
use crate::spec::schema::TableSchema;
use crate::spec::types::DataField;
use crate::Result;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct CreateDatabase<'a> {
    name: &'a str,
    options: BTreeMap<String, String>,
}

#[derive(Serialize)]
struct Identifier<'a> {
    database: &'a str,
    object: &'a str,
}

/// The `Schema` of a createTable request (what a table is created with; ids assigned).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Schema<'a> {
    fields: &'a [DataField],
    partition_keys: &'a [String],
    primary_keys: &'a [String],
    options: &'a BTreeMap<String, String>,
    comment: Option<&'a str>,
}

#[derive(Serialize)]
struct CreateTable<'a> {
    identifier: Identifier<'a>,
    schema: Schema<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CreateTag<'a> {
    tag_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    time_retained: Option<&'a str>,
}

fn json(body: &impl Serialize) -> Result<Vec<u8>> {
    serde_json::to_vec(body)
        .map_err(|e| crate::Error::Invalid(format!("encoding a REST catalog request: {e}")))
}

impl RestCatalog {
    /// Creates a database (`POST /v1/{prefix}/databases`).
    pub async fn create_database(&self, name: &str) -> Result<()> {
        let body = CreateDatabase {
            name,
            options: BTreeMap::new(),
        };
        let path = format!("{}/databases", self.base());
        self.send("POST", &path, Some(json(&body)?)).await
    }

    /// Drops a database (`DELETE /v1/{prefix}/databases/{database}`).
    pub async fn drop_database(&self, name: &str) -> Result<()> {
        let path = format!("{}/databases/{}", self.base(), encode(name));
        self.send("DELETE", &path, None).await
    }

    /// Creates a table with `schema`'s columns, keys, options and comment (`POST
    /// /v1/{prefix}/databases/{database}/tables`); the service chooses where its files go.
    pub async fn create_table(
        &self,
        database: &str,
        table: &str,
        schema: &TableSchema,
    ) -> Result<()> {
        let body = CreateTable {
            identifier: Identifier {
                database,
                object: table,
            },
            schema: Schema {
                fields: &schema.fields,
                partition_keys: &schema.partition_keys,
                primary_keys: &schema.primary_keys,
                options: &schema.options,
                comment: schema.comment.as_deref(),
            },
        };
        let path = format!("{}/databases/{}/tables", self.base(), encode(database));
        self.send("POST", &path, Some(json(&body)?)).await
    }

    /// Drops a table (`DELETE /v1/{prefix}/databases/{database}/tables/{table}`).
    pub async fn drop_table(&self, database: &str, table: &str) -> Result<()> {
        self.send("DELETE", &self.table_path(database, table), None)
            .await
    }

    /// Creates tag `tag` of a table at `snapshot_id` (the latest snapshot when `None`), kept
    /// for `time_retained` when given (`POST …/tables/{table}/tags`).
    pub async fn create_tag(
        &self,
        database: &str,
        table: &str,
        tag: &str,
        snapshot_id: Option<i64>,
        time_retained: Option<&str>,
    ) -> Result<()> {
        let body = CreateTag {
            tag_name: tag,
            snapshot_id,
            time_retained,
        };
        let path = format!("{}/tags", self.table_path(database, table));
        self.send("POST", &path, Some(json(&body)?)).await
    }

    /// Deletes tag `tag` of a table (`DELETE …/tables/{table}/tags/{tag}`); the snapshot it
    /// names stays.
    pub async fn delete_tag(&self, database: &str, table: &str, tag: &str) -> Result<()> {
        let path = format!("{}/tags/{}", self.table_path(database, table), encode(tag));
        self.send("DELETE", &path, None).await
    }
}
