//! Test fixtures of the table module: a small partitioned schema, snapshot JSON, and tables on
//! a store that lists and on one that cannot.

use super::Table;
use crate::error::Result;
use bytes::Bytes;
use lakescope_storage::{MemoryStore, ObjectStore};
use std::rc::Rc;

pub(super) const SCHEMA: &str = r#"{"version": 3, "id": 0, "fields": [
        {"id": 0, "name": "dt", "type": "STRING"}, {"id": 1, "name": "h", "type": "INT"},
        {"id": 2, "name": "v", "type": "BIGINT"}],
        "highestFieldId": 2, "partitionKeys": ["dt", "h"], "primaryKeys": [],
        "options": {"partition.default-name": "NULLP"}, "timeMillis": 1}"#;

pub(super) fn snapshot_json(id: i64, time: i64) -> String {
    format!(
        r#"{{"version": 3, "id": {id}, "schemaId": 0, "baseManifestList": "b", "deltaManifestList": "d",
               "commitUser": "u", "commitIdentifier": 1, "commitKind": "APPEND", "timeMillis": {time}}}"#
    )
}

pub(super) async fn table_with(files: &[(&str, String)]) -> Table {
    let store = MemoryStore::new();
    store
        .put("db.db/t/schema/schema-0", Bytes::from(SCHEMA))
        .await
        .unwrap();
    for (k, v) in files {
        store
            .put(&format!("db.db/t/{k}"), Bytes::from(v.clone()))
            .await
            .unwrap();
    }
    Table::open(Rc::new(store), "db.db/t").await.unwrap()
}

/// A store that cannot list, as a static web host without an index.
struct Unlisted(MemoryStore);

#[async_trait::async_trait(?Send)]
impl ObjectStore for Unlisted {
    fn describe(&self) -> String {
        "unlisted://".into()
    }
    async fn get(&self, path: &str) -> lakescope_storage::Result<Bytes> {
        self.0.get(path).await
    }
    async fn get_range(
        &self,
        path: &str,
        range: std::ops::Range<u64>,
    ) -> lakescope_storage::Result<Bytes> {
        self.0.get_range(path, range).await
    }
    async fn head(&self, path: &str) -> lakescope_storage::Result<lakescope_storage::ObjectMeta> {
        self.0.head(path).await
    }
    async fn list_dir(
        &self,
        _prefix: &str,
    ) -> lakescope_storage::Result<lakescope_storage::Listing> {
        Err(lakescope_storage::Error::Unsupported {
            store: self.describe(),
            operation: "listing".into(),
        })
    }
    async fn put(&self, path: &str, data: Bytes) -> lakescope_storage::Result<()> {
        self.0.put(path, data).await
    }
    async fn put_if_absent(
        &self,
        path: &str,
        data: Bytes,
    ) -> lakescope_storage::Result<lakescope_storage::PutOutcome> {
        self.0.put_if_absent(path, data).await
    }
    async fn delete(&self, path: &str) -> lakescope_storage::Result<()> {
        self.0.delete(path).await
    }
}

pub(super) async fn unlisted_table(files: &[(&str, String)]) -> Result<Table> {
    let store = MemoryStore::new();
    for (k, v) in files {
        store
            .put(&format!("db.db/t/{k}"), Bytes::from(v.clone()))
            .await
            .unwrap();
    }
    Table::open(Rc::new(Unlisted(store)), "db.db/t").await
}
