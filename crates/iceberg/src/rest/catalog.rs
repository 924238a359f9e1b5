//! Tables of a REST catalog: opened from loadTable's metadata over a store for their location
//! (vended credentials or the warehouse's store), committed by POSTing requirements and updates.

use super::changes::changes;
use super::client::{namespace_levels, CommitOutcome, RestClient};
use super::types::{CommitTableRequest, CreateTableRequest, LoadTableResult, TableIdentifier};
use crate::location::Relocator;
use crate::spec::TableMetadata;
use crate::table::{MetadataCatalog, Table};
use crate::write::definition::initial_metadata;
use crate::write::IcebergTableDefinition;
use crate::{Error, Result};
use lakescope_format::write_env::WriteEnv;
use lakescope_storage::ObjectStore;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Finds the store that holds a table's files.
pub trait TableStores {
    /// The store for a table at `location` (an absolute URI) and the key of the table folder in
    /// it; `config` is the table's loadTable config (vended credentials, if any).
    fn open(
        &self,
        location: &str,
        config: &BTreeMap<String, String>,
    ) -> Result<(Rc<dyn ObjectStore>, String)>;
}

/// Every table lives under one warehouse folder of one store (known as `root_uri`).
pub struct WarehouseStores {
    store: Rc<dyn ObjectStore>,
    root_uri: String,
}

impl WarehouseStores {
    /// Tables under `root_uri` (e.g. `file:///data/wh`, `s3://b/wh`), which is the root of `store`.
    pub fn new(store: Rc<dyn ObjectStore>, root_uri: &str) -> Self {
        Self {
            store,
            root_uri: root_uri.trim_end_matches('/').to_string(),
        }
    }
}

impl TableStores for WarehouseStores {
    fn open(
        &self,
        location: &str,
        _config: &BTreeMap<String, String>,
    ) -> Result<(Rc<dyn ObjectStore>, String)> {
        let strip = |u: &str| u.split_once("://").map_or(u, |(_, p)| p).to_string();
        let (root, loc) = (strip(&self.root_uri), strip(location));
        let root = root.trim_start_matches('/');
        let loc = loc.trim_start_matches('/');
        match loc.strip_prefix(root) {
            Some(rest) if root.is_empty() || rest.is_empty() || rest.starts_with('/') => {
                Ok((self.store.clone(), rest.trim_matches('/').to_string()))
            }
            _ => Err(Error::Invalid(format!(
                "table location {location} is outside the warehouse {}",
                self.root_uri
            ))),
        }
    }
}

/// A REST catalog and how to reach its tables' files.
pub struct RestCatalog {
    client: RestClient,
    stores: Rc<dyn TableStores>,
}

impl std::fmt::Debug for RestCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestCatalog")
            .field("client", &self.client)
            .finish()
    }
}

impl RestCatalog {
    /// A catalog over a connected client.
    pub fn new(client: RestClient, stores: Rc<dyn TableStores>) -> Rc<Self> {
        Rc::new(Self { client, stores })
    }

    /// The client.
    pub fn client(&self) -> &RestClient {
        &self.client
    }

    /// Namespaces as dotted names, sorted.
    pub async fn list_namespaces(&self) -> Result<Vec<String>> {
        let mut out: Vec<String> = self
            .client
            .list_namespaces()
            .await?
            .into_iter()
            .map(|levels| levels.join("."))
            .collect();
        out.sort();
        Ok(out)
    }

    /// Table names of a namespace, sorted.
    pub async fn list_tables(&self, namespace: &str) -> Result<Vec<String>> {
        let mut out = self
            .client
            .list_tables(&namespace_levels(namespace))
            .await?;
        out.sort();
        Ok(out)
    }

    /// Creates a namespace.
    pub async fn create_namespace(&self, namespace: &str) -> Result<()> {
        self.client
            .create_namespace(&namespace_levels(namespace))
            .await
    }

    /// Drops an empty namespace.
    pub async fn drop_namespace(&self, namespace: &str) -> Result<()> {
        self.client
            .drop_namespace(&namespace_levels(namespace))
            .await
    }

    /// Drops a table (its files are left to the service).
    pub async fn drop_table(&self, namespace: &str, name: &str) -> Result<()> {
        self.client
            .drop_table(&namespace_levels(namespace), name)
            .await
    }

    /// Loads a table; its writes commit through this catalog.
    pub async fn load_table(self: &Rc<Self>, namespace: &str, name: &str) -> Result<Table> {
        RestTable(TableHandle::new(self, namespace, name))
            .load_fresh()
            .await
    }

    /// Loads a table to read it only: a commit to it is refused, naming the table, and the
    /// commit protocol is not linked into a build that only browses (the explorer's page,
    /// whose writes go through its SQL worker's [`RestCatalog::load_table`]).
    pub async fn load_table_for_reading(
        self: &Rc<Self>,
        namespace: &str,
        name: &str,
    ) -> Result<Table> {
        ReadOnlyTable(TableHandle::new(self, namespace, name))
            .load_fresh()
            .await
    }

    /// Creates a table from a definition (the server assigns its location and UUID).
    pub async fn create_table(
        self: &Rc<Self>,
        namespace: &str,
        name: &str,
        def: &IcebergTableDefinition,
        env: &dyn WriteEnv,
    ) -> Result<Table> {
        let draft = initial_metadata(name, "rest://", def, env.uuid(), env.now_millis())?;
        let schema = draft
            .current_schema()
            .cloned()
            .ok_or_else(|| Error::Invalid(format!("table {namespace}.{name} has no schema")))?;
        let spec = draft.spec(draft.default_spec_id.unwrap_or(0)).cloned();
        let request = CreateTableRequest {
            name: name.to_string(),
            location: None,
            schema,
            partition_spec: spec,
            write_order: None,
            stage_create: false,
            properties: draft.properties.clone(),
        };
        let handle = RestTable(TableHandle::new(self, namespace, name));
        let created = self
            .client
            .create_table(&handle.0.identifier.namespace, &request)
            .await?;
        handle.0.table(created, Rc::new(handle.clone()))
    }
}

/// One table of a REST catalog: where its metadata is loaded from.
#[derive(Clone)]
struct TableHandle {
    catalog: Rc<RestCatalog>,
    identifier: TableIdentifier,
}

impl TableHandle {
    fn new(catalog: &Rc<RestCatalog>, namespace: &str, name: &str) -> Self {
        TableHandle {
            catalog: catalog.clone(),
            identifier: TableIdentifier {
                namespace: namespace_levels(namespace),
                name: name.to_string(),
            },
        }
    }

    /// `namespace.name`.
    fn name(&self) -> String {
        format!(
            "{}.{}",
            self.identifier.namespace.join("."),
            self.identifier.name
        )
    }

    /// The table as the catalog has it now, committing through `commits`.
    async fn load(&self, commits: Rc<dyn MetadataCatalog>) -> Result<Table> {
        let loaded = self
            .catalog
            .client
            .load_table(&self.identifier.namespace, &self.identifier.name)
            .await?;
        self.table(loaded, commits)
    }

    /// The table a loadTable (or create) answer describes, committing through `commits`.
    fn table(&self, loaded: LoadTableResult, commits: Rc<dyn MetadataCatalog>) -> Result<Table> {
        let source = loaded
            .metadata_location
            .clone()
            .unwrap_or_else(|| format!("loadTable {}", self.name()));
        let metadata = parse_metadata(&source, &loaded.metadata)?;
        let (store, key) = self
            .catalog
            .stores
            .open(&metadata.location, &loaded.config)?;
        Ok(table_at(store, &key, &source, metadata, commits))
    }
}

/// The table whose metadata is `metadata` (read from `metadata_location`), in the folder `key`
/// of `store`, committing through `commits`.
fn table_at(
    store: Rc<dyn ObjectStore>,
    key: &str,
    metadata_location: &str,
    metadata: TableMetadata,
    commits: Rc<dyn MetadataCatalog>,
) -> Table {
    let metadata_key = Relocator::new(&metadata.location, key)
        .resolve(metadata_location, metadata_location)
        .unwrap_or_else(|_| metadata_location.to_string());
    Table::from_metadata(store, key, metadata_key, metadata).with_catalog(commits)
}

fn parse_metadata(source: &str, value: &serde_json::Value) -> Result<TableMetadata> {
    let bytes = serde_json::to_vec(value)
        .map_err(|e| Error::corrupt(source, format!("table metadata: {e}")))?;
    TableMetadata::parse(source, &bytes)
}

/// A table of a REST catalog whose [`Table`]s load and commit through it.
#[derive(Clone)]
struct RestTable(TableHandle);

impl RestTable {
    async fn load_fresh(&self) -> Result<Table> {
        self.0.load(Rc::new(self.clone())).await
    }
}

#[async_trait::async_trait(?Send)]
impl MetadataCatalog for RestTable {
    async fn load(&self, _table: &Table) -> Result<Table> {
        self.load_fresh().await
    }

    async fn commit(&self, base: &Table, next: &TableMetadata) -> Result<Option<Table>> {
        let (requirements, updates) = changes(base.metadata(), next);
        let request = CommitTableRequest {
            identifier: self.0.identifier.clone(),
            requirements,
            updates,
        };
        match self.0.catalog.client.commit_table(&request).await? {
            CommitOutcome::Committed(r) => {
                let table = parse_metadata(&r.metadata_location, &r.metadata).map(|m| {
                    let commits = Rc::new(self.clone());
                    table_at(
                        base.store().clone(),
                        base.key(),
                        &r.metadata_location,
                        m,
                        commits,
                    )
                });
                // Committed, but lakescope cannot read the answer: its files must stay.
                table.map(Some).map_err(|e| Error::CommitStateUnknown {
                    table: request.identifier.namespace.join(".") + "." + &request.identifier.name,
                    cause: format!("the catalog accepted the commit, but its answer: {e}"),
                })
            }
            CommitOutcome::Conflict(_) => Ok(None),
        }
    }
}

/// A table of a REST catalog loaded for reading ([`RestCatalog::load_table_for_reading`]): it
/// loads through the catalog and refuses every commit, changing nothing.
#[derive(Clone)]
struct ReadOnlyTable(TableHandle);

impl ReadOnlyTable {
    async fn load_fresh(&self) -> Result<Table> {
        self.0.load(Rc::new(self.clone())).await
    }
}

#[async_trait::async_trait(?Send)]
impl MetadataCatalog for ReadOnlyTable {
    async fn load(&self, _table: &Table) -> Result<Table> {
        self.load_fresh().await
    }

    async fn commit(&self, _base: &Table, _next: &TableMetadata) -> Result<Option<Table>> {
        Err(Error::Unsupported {
            file: self.0.name(),
            feature: "committing to a table loaded for reading (nothing was committed)".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::{append, create_table};
    use arrow_array::{ArrayRef, Int64Array, RecordBatch};
    use lakescope_format::spec::{DataType, TypeKind};
    use lakescope_format::write_env::FixedEnv;
    use lakescope_storage::transport::{CannedTransport, HttpTransport, ReqwestTransport};
    use lakescope_storage::MemoryStore;
    use lakescope_test_support::http_faults::{FaultServer, Reply};
    use serde_json::{json, Value};
    use std::sync::Arc;
    use std::time::Duration;

    fn ids(v: std::ops::Range<i64>) -> RecordBatch {
        let column: ArrayRef = Arc::new(Int64Array::from_iter_values(v));
        RecordBatch::try_from_iter(vec![("id", column)]).unwrap()
    }

    /// A table `db.t` at `s3://b/t` in a memory store: its first metadata (no snapshot) and the
    /// metadata after another writer's append of two rows (its files are in the store).
    async fn table_raced_by_another_writer(env: &FixedEnv) -> (Rc<MemoryStore>, Value, Value) {
        let store = Rc::new(MemoryStore::new());
        let def = IcebergTableDefinition {
            columns: vec![("id".into(), DataType::nullable(TypeKind::BigInt), None)],
            ..Default::default()
        };
        create_table(store.as_ref(), "t", "s3://b/t", &def, env)
            .await
            .unwrap();
        let v1 = store.get("t/metadata/v1.metadata.json").await.unwrap();
        let t = Table::open(store.clone(), "t").await.unwrap();
        append(&t, &[ids(10..12)], env).await.unwrap();
        let v2 = store.get("t/metadata/v2.metadata.json").await.unwrap();
        let json = |b: &[u8]| serde_json::from_slice::<Value>(b).unwrap();
        (store, json(&v1), json(&v2))
    }

    fn loaded(version: u32, metadata: &Value) -> String {
        json!({
            "metadata-location": format!("s3://b/t/metadata/v{version}.metadata.json"),
            "metadata": metadata,
        })
        .to_string()
    }

    /// The answers before an append's commit: the config, a loadTable of `base`, and the two
    /// loads of the append (before writing and before its first attempt).
    fn until_commit(base: &Value) -> Vec<(u16, String)> {
        let mut script = vec![(200, r#"{"defaults":{}}"#.to_string())];
        script.extend((0..3).map(|_| (200, loaded(1, base))));
        script
    }

    /// The table `db.t` loaded through a catalog answering [`until_commit`], then `answers`.
    async fn load(
        store: &Rc<MemoryStore>,
        base: &Value,
        answers: Vec<(u16, String)>,
    ) -> (Table, Rc<CannedTransport>) {
        let mut script = until_commit(base);
        script.extend(answers);
        let transport = Rc::new(CannedTransport::new(script));
        let table = load_at(store, "http://cat", transport.clone()).await;
        (table, transport)
    }

    /// The table `db.t` of the catalog at `uri`, over `transport`, its files in `store`.
    async fn load_at(
        store: &Rc<MemoryStore>,
        uri: &str,
        transport: Rc<dyn HttpTransport>,
    ) -> Table {
        let client = RestClient::connect(uri, &Default::default(), transport)
            .await
            .unwrap();
        let stores = Rc::new(WarehouseStores::new(store.clone(), "s3://b"));
        RestCatalog::new(client, stores)
            .load_table("db", "t")
            .await
            .unwrap()
    }

    fn commits(transport: &CannedTransport) -> Vec<Value> {
        transport
            .sent()
            .iter()
            .filter(|r| r.method == "POST")
            .map(|r| {
                assert_eq!(r.url, "http://cat/v1/namespaces/db/tables/t");
                serde_json::from_slice(&r.body).unwrap()
            })
            .collect()
    }

    fn of_type<'a>(items: &'a Value, key: &str, kind: &str) -> &'a Value {
        items
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i[key] == kind)
            .unwrap_or_else(|| panic!("no {kind} in {items}"))
    }

    fn manifest_list_key(body: &Value) -> String {
        let uri = of_type(&body["updates"], "action", "add-snapshot")["snapshot"]["manifest-list"]
            .as_str()
            .unwrap()
            .to_string();
        uri.strip_prefix("s3://b/").unwrap().to_string()
    }

    async fn keys(store: &MemoryStore) -> Vec<String> {
        let mut out = Vec::new();
        for dir in ["t/metadata", "t/data"] {
            if let Ok(listing) = store.list_dir(dir).await {
                out.extend(listing.files.into_iter().map(|f| f.path));
            }
        }
        out.sort();
        out
    }

    const CONFLICT: &str = r#"{"error":{"message":"Requirement failed: branch main has changed","type":"CommitFailedException","code":409}}"#;

    #[tokio::test]
    async fn a_409_is_planned_again_on_the_new_snapshot_and_the_lost_list_is_deleted() {
        let env = FixedEnv::new(1_700_000_000_000, 7);
        let (store, v1, v2) = table_raced_by_another_writer(&env).await;
        let theirs = v2["current-snapshot-id"].as_i64().unwrap();
        let (table, transport) = load(
            &store,
            &v1,
            vec![
                (409, CONFLICT.to_string()),
                (200, loaded(2, &v2)),
                (200, loaded(3, &v2)),
            ],
        )
        .await;
        append(&table, &[ids(0..3)], &env).await.unwrap();
        let bodies = commits(&transport);
        assert_eq!(bodies.len(), 2, "one retry after the 409");
        let (lost, won) = (&bodies[0], &bodies[1]);
        for body in [lost, won] {
            assert_eq!(
                body["identifier"],
                json!({"namespace": ["db"], "name": "t"})
            );
            assert_eq!(
                of_type(&body["requirements"], "type", "assert-table-uuid")["uuid"],
                v1["table-uuid"]
            );
        }
        let asserted =
            |b: &Value| of_type(&b["requirements"], "type", "assert-ref-snapshot-id").clone();
        assert_eq!(
            asserted(lost),
            json!({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": null})
        );
        assert_eq!(asserted(won)["snapshot-id"], theirs);
        let snapshot =
            |b: &Value| of_type(&b["updates"], "action", "add-snapshot")["snapshot"].clone();
        let (first, second) = (snapshot(lost), snapshot(won));
        assert_eq!(first.get("parent-snapshot-id"), None);
        assert_eq!(second["parent-snapshot-id"], theirs);
        assert_eq!(second["sequence-number"], 2);
        assert_eq!(first["snapshot-id"], second["snapshot-id"]);
        assert_eq!(second["summary"]["total-records"], "5");
        assert_eq!(
            of_type(&won["updates"], "action", "set-snapshot-ref"),
            &json!({"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": second["snapshot-id"]})
        );
        let files = keys(&store).await;
        assert!(!files.contains(&manifest_list_key(lost)), "{files:?}");
        assert!(files.contains(&manifest_list_key(won)), "{files:?}");
        assert!(
            files.iter().all(|k| !k.ends_with(".metadata.json")
                || k.ends_with("v1.metadata.json")
                || k.ends_with("v2.metadata.json")),
            "the server writes the metadata: {files:?}"
        );
    }

    #[tokio::test]
    async fn conflicts_beyond_the_tables_retries_give_up_and_leave_nothing() {
        let env = FixedEnv::new(1_700_000_000_000, 8);
        let (store, mut v1, _) = table_raced_by_another_writer(&env).await;
        v1["properties"]["commit.retry.num-retries"] = json!("1");
        let before = keys(&store).await;
        let (table, transport) = load(
            &store,
            &v1,
            vec![
                (409, CONFLICT.to_string()),
                (200, loaded(1, &v1)),
                (409, CONFLICT.to_string()),
            ],
        )
        .await;
        let err = append(&table, &[ids(0..3)], &env).await.unwrap_err();
        assert!(matches!(err, Error::Conflict { .. }), "{err}");
        assert!(
            err.to_string().contains("gave up after 2 attempts"),
            "{err}"
        );
        assert_eq!(commits(&transport).len(), 2);
        assert_eq!(
            keys(&store).await,
            before,
            "the files of the failed commit are deleted"
        );
    }

    #[tokio::test]
    async fn a_500_or_a_lost_answer_is_an_unknown_outcome_that_keeps_the_files() {
        for answer in [
            Some((
                500,
                r#"{"error":{"message":"boom","type":"ServerError","code":500}}"#,
            )),
            None,
        ] {
            let env = FixedEnv::new(1_700_000_000_000, 9);
            let (store, v1, _) = table_raced_by_another_writer(&env).await;
            let answers = answer
                .map(|(s, b)| (s, b.to_string()))
                .into_iter()
                .collect();
            let (table, transport) = load(&store, &v1, answers).await;
            let err = append(&table, &[ids(0..3)], &env).await.unwrap_err();
            let Error::CommitStateUnknown { table: name, cause } = &err else {
                panic!("{err}");
            };
            assert_eq!(name, "db.t");
            assert!(
                cause.contains("POST http://cat/v1/namespaces/db/tables/t"),
                "{cause}"
            );
            assert!(
                err.to_string().contains("may or may not have been applied"),
                "{err}"
            );
            let bodies = commits(&transport);
            assert_eq!(bodies.len(), 1, "an unknown outcome is not retried");
            assert!(keys(&store).await.contains(&manifest_list_key(&bodies[0])));
        }
    }

    #[tokio::test]
    async fn a_403_names_the_endpoint_and_table_and_commits_nothing() {
        let env = FixedEnv::new(1_700_000_000_000, 10);
        let (store, v1, _) = table_raced_by_another_writer(&env).await;
        let before = keys(&store).await;
        let forbidden =
            r#"{"error":{"message":"not allowed","type":"ForbiddenException","code":403}}"#;
        let (table, transport) = load(&store, &v1, vec![(403, forbidden.to_string())]).await;
        let err = append(&table, &[ids(0..3)], &env).await.unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(
                err,
                Error::Catalog {
                    status: Some(403),
                    ..
                }
            ),
            "{text}"
        );
        for part in [
            "POST http://cat/v1/namespaces/db/tables/t",
            "table db.t",
            "not allowed",
            "nothing was committed",
        ] {
            assert!(text.contains(part), "{part}: {text}");
        }
        assert_eq!(commits(&transport).len(), 1);
        assert_eq!(
            keys(&store).await,
            before,
            "the files of the refused commit are deleted"
        );
    }

    #[tokio::test]
    async fn a_table_loaded_for_reading_reads_as_loaded_and_refuses_every_commit() {
        let env = FixedEnv::new(1_700_000_000_000, 11);
        let (store, _, v2) = table_raced_by_another_writer(&env).await;
        let before = keys(&store).await;
        // the config, the load, and the append's two loads; no answer for a commit
        let transport = Rc::new(CannedTransport::new(until_commit(&v2)));
        let client = RestClient::connect("http://cat", &Default::default(), transport.clone())
            .await
            .unwrap();
        let stores = Rc::new(WarehouseStores::new(store.clone(), "s3://b"));
        let catalog = RestCatalog::new(client, stores);
        let table = catalog.load_table_for_reading("db", "t").await.unwrap();
        let written = Table::open(store.clone(), "t").await.unwrap();
        let as_json = |t: &Table| serde_json::to_value(t.metadata()).unwrap();
        assert_eq!(
            as_json(&table),
            as_json(&written),
            "the metadata the catalog sent"
        );
        assert_eq!(table.key(), "t");

        let err = append(&table, &[ids(0..3)], &env).await.unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Unsupported { .. }), "{text}");
        assert!(
            text.contains("db.t") && text.contains("loaded for reading"),
            "{text}"
        );
        assert!(commits(&transport).is_empty(), "no commit request is sent");
        assert_eq!(keys(&store).await, before, "the append's files are deleted");
    }

    /// [`until_commit`] as the fault server's replies, then `fault`.
    fn replies_until(base: &Value, fault: Reply) -> Vec<Reply> {
        let mut script: Vec<Reply> = until_commit(base)
            .into_iter()
            .map(|(s, b)| Reply::Answer(s, b))
            .collect();
        script.push(fault);
        script
    }

    #[tokio::test]
    async fn a_commit_meeting_a_5xx_cut_off_garbled_or_no_answer_keeps_its_files() {
        let committed =
            json!({"metadata-location": "s3://b/t/metadata/v2.metadata.json", "metadata": {}});
        for fault in [
            Reply::Answer(503, "upstream down".into()),
            Reply::Truncated(200, committed.to_string()),
            Reply::Answer(200, "<html>proxy</html>".into()),
            Reply::Silent,
        ] {
            let env = FixedEnv::new(1_700_000_000_000, 11);
            let (store, v1, _) = table_raced_by_another_writer(&env).await;
            let server = FaultServer::start(replies_until(&v1, fault.clone()));
            let transport = Rc::new(ReqwestTransport::new(Duration::from_millis(500)).unwrap());
            let table = load_at(&store, server.url(), transport).await;
            let err = append(&table, &[ids(0..3)], &env).await.unwrap_err();
            let Error::CommitStateUnknown { table: name, cause } = &err else {
                panic!("{fault:?}: {err}");
            };
            assert_eq!(name, "db.t");
            let endpoint = format!("POST {}/v1/namespaces/db/tables/t", server.url());
            assert!(cause.contains(&endpoint), "{fault:?}: {cause}");
            let posts: Vec<_> = server
                .requests()
                .into_iter()
                .filter(|r| r.method == "POST")
                .collect();
            assert_eq!(posts.len(), 1, "{fault:?}: not retried");
            let body: Value = serde_json::from_str(&posts[0].body).unwrap();
            assert!(
                keys(&store).await.contains(&manifest_list_key(&body)),
                "{fault:?}: the files are kept"
            );
        }
    }

    #[tokio::test]
    async fn a_commit_refused_with_501_commits_nothing() {
        let env = FixedEnv::new(1_700_000_000_000, 12);
        let (store, v1, _) = table_raced_by_another_writer(&env).await;
        let before = keys(&store).await;
        let server = FaultServer::start(replies_until(
            &v1,
            Reply::Answer(501, "no commits here".into()),
        ));
        let transport = Rc::new(ReqwestTransport::new(Duration::from_secs(5)).unwrap());
        let table = load_at(&store, server.url(), transport).await;
        let err = append(&table, &[ids(0..3)], &env).await.unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(
                err,
                Error::Catalog {
                    status: Some(501),
                    ..
                }
            ) && text.contains("no commits here")
                && text.contains("nothing was committed"),
            "{text}"
        );
        assert_eq!(
            keys(&store).await,
            before,
            "the refused commit's files are deleted"
        );
    }

    #[tokio::test]
    async fn listing_and_loading_name_the_endpoint_and_cause_of_bad_answers() {
        let cases = [
            (
                Reply::Answer(200, "<html>login</html>".into()),
                "unexpected answer",
            ),
            (
                Reply::Answer(200, r#"{"namespaces":3,"identifiers":3}"#.into()),
                "unexpected answer",
            ),
            (Reply::Answer(500, "boom".into()), "answered 500: boom"),
            (
                Reply::Truncated(200, r#"{"namespaces":[["a"]],"identifiers":[]}"#.into()),
                "error decoding response body",
            ),
            (Reply::Silent, "no response within 300ms"),
        ];
        for (fault, cause) in cases {
            let mut script = vec![Reply::Answer(200, "{}".into())];
            script.extend([fault.clone(), fault.clone(), fault.clone()]);
            let server = FaultServer::start(script);
            let transport = Rc::new(ReqwestTransport::new(Duration::from_millis(300)).unwrap());
            let client = RestClient::connect(server.url(), &Default::default(), transport)
                .await
                .unwrap();
            let stores = Rc::new(WarehouseStores::new(Rc::new(MemoryStore::new()), "s3://b"));
            let catalog = RestCatalog::new(client, stores);
            let base = server.url();
            let results = [
                (
                    catalog.list_namespaces().await.map(|_| ()),
                    format!("GET {base}/v1/namespaces"),
                ),
                (
                    catalog.list_tables("db").await.map(|_| ()),
                    format!("GET {base}/v1/namespaces/db/tables"),
                ),
                (
                    catalog.load_table("db", "t").await.map(|_| ()),
                    format!("GET {base}/v1/namespaces/db/tables/t"),
                ),
            ];
            for (result, endpoint) in results {
                let e = result.unwrap_err();
                assert!(matches!(e, Error::Catalog { .. }), "{fault:?}: {e}");
                let e = e.to_string();
                assert!(
                    e.starts_with(&endpoint) && e.contains(cause),
                    "{fault:?}: {e}"
                );
            }
        }
    }

    #[test]
    fn warehouse_tables_are_keys_under_the_root() {
        let stores = WarehouseStores::new(Rc::new(MemoryStore::new()), "file:///data/wh/");
        let none = BTreeMap::new();
        assert_eq!(
            stores.open("file:///data/wh/db/t", &none).unwrap().1,
            "db/t"
        );
        let Err(err) = stores.open("file:///data/whx/t", &none) else {
            panic!("a location outside the warehouse was accepted");
        };
        assert!(err.to_string().contains("outside the warehouse"), "{err}");
    }
}
