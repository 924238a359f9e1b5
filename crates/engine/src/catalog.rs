//! Catalogs: a filesystem warehouse, a Paimon REST or an Iceberg REST catalog service, each a
//! [`CatalogBackend`] behind one [`Catalog`] that lists databases and tables and finds a
//! table's files.

use crate::browsing_catalog::Browsing;
use crate::catalog_backend::CatalogBackend;
use crate::catalog_services::{IcebergService, PaimonService};
use crate::table::Format;
use crate::warehouse_catalog::WarehouseCatalog;
use crate::{Result, TableRef};
use lakescope_iceberg::rest::RestCatalog as IcebergRest;
use lakescope_iceberg::write::IcebergTableDefinition;
use lakescope_paimon::commit::SnapshotCommit;
use lakescope_paimon::rest::{RestCatalog as PaimonRest, SchemaChange};
use lakescope_paimon::table::TagSource;
use lakescope_paimon::write::WriteEnv;
use lakescope_storage::ObjectStore;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A table found in a database folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TableEntry {
    /// Table name.
    pub name: String,
    /// Key of the table folder relative to the warehouse root (a REST catalog's table:
    /// `<database>/<table>`, found through the catalog).
    pub path: String,
    /// The table's format, as the catalog knows it.
    pub format: Format,
}

/// A database with its tables.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DatabaseEntry {
    /// Database name (folder name without `.db`).
    pub name: String,
    /// Tables, sorted by name.
    pub tables: Vec<TableEntry>,
}

/// Opens stores: a warehouse by its URI (a path, `file://`, `s3://…`), and a table that a
/// catalog service located, at its absolute location with the storage settings the service
/// vends for it. The CLI, the app and the SQL worker each provide one for their platform.
pub trait StoreOpener {
    /// The store rooted at `uri`, with this opener's own options.
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>>;

    /// The store rooted at a table's `location` with the settings a catalog `vended` for it (a
    /// data token, a loadTable config; possibly empty). By default vended settings are refused:
    /// an opener that cannot apply them must not read with other credentials instead.
    fn open_vended(
        &self,
        location: &str,
        vended: &BTreeMap<String, String>,
    ) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        if vended.is_empty() {
            return self.open(location);
        }
        Err(lakescope_storage::Error::Unsupported {
            store: location.to_string(),
            operation: "storage credentials vended by a catalog".to_string(),
        })
    }

    /// How to reach the catalog service at `uri` (a REST catalog a SQL session connects to).
    /// By default there is none: a build that opens only warehouses refuses, naming the
    /// service.
    fn catalog_transport(
        &self,
        uri: &str,
    ) -> lakescope_storage::Result<Rc<dyn lakescope_storage::transport::HttpTransport>> {
        Err(lakescope_storage::Error::Unsupported {
            store: uri.to_string(),
            operation: "connecting to a REST catalog service from this build".to_string(),
        })
    }
}

/// Where a table's files are: a store and the key of the table folder in it, and how its
/// commits create snapshots.
#[derive(Clone)]
pub struct TableLocation {
    /// The store holding the table.
    pub store: Rc<dyn ObjectStore>,
    /// Key of the table folder in `store` (empty: its root).
    pub path: String,
    /// The catalog service's snapshot commit (`None`: snapshot files are created on `store`).
    pub snapshot_commit: Option<Rc<dyn SnapshotCommit>>,
    /// The catalog service's tags of the table (`None`: only its `tag/` folder).
    pub tag_source: Option<Rc<dyn TagSource>>,
}

impl TableLocation {
    /// The table, opened; its commits go through the catalog's snapshot commit and its tags
    /// are read from the catalog's.
    pub async fn open(self) -> Result<lakescope_paimon::table::Table> {
        let mut table = lakescope_paimon::table::Table::open(self.store, self.path).await?;
        if let Some(commit) = self.snapshot_commit {
            table = table.with_snapshot_commit(commit);
        }
        if let Some(source) = self.tag_source {
            table = table.with_tag_source(source);
        }
        Ok(table)
    }
}

/// A table a catalog found by name ([`Catalog::find`]): its format is the catalog's answer.
#[derive(Clone)]
pub enum FoundTable {
    /// A Paimon table: where its files are, and how its commits and tags go.
    Paimon(TableLocation),
    /// An Iceberg table, opened (its commits go through its metadata catalog).
    Iceberg(Box<lakescope_iceberg::Table>),
}

/// The tables of a warehouse or a catalog service: one [`CatalogBackend`] behind the calls the
/// app, the CLI and the SQL session make.
#[derive(Clone)]
pub struct Catalog {
    backend: Rc<dyn CatalogBackend>,
}

impl Catalog {
    /// A catalog over the given warehouse store.
    pub fn new(store: Rc<dyn ObjectStore>) -> Self {
        Self::with_backend(Rc::new(WarehouseCatalog::new(store)))
    }

    /// The filesystem warehouse at `uri` (a path or a URI) whose root is `store`: as
    /// [`Catalog::new`], and the Iceberg tables it creates record their locations under `uri`.
    pub fn warehouse(store: Rc<dyn ObjectStore>, uri: &str) -> Self {
        Self::with_backend(Rc::new(WarehouseCatalog::at(store, uri)))
    }

    /// The filesystem warehouse whose root is `store`, opened for browsing: its tables are
    /// listed, located and read, and its DDL is refused by name (the explorer page, whose writes
    /// go through its SQL worker, links none of it).
    pub fn browse(store: Rc<dyn ObjectStore>) -> Self {
        Self::with_backend(Rc::new(Browsing(WarehouseCatalog::new(store))))
    }

    /// A catalog over any [`CatalogBackend`] (the extension point for a new kind of catalog).
    pub fn with_backend(backend: Rc<dyn CatalogBackend>) -> Self {
        Self { backend }
    }

    /// A Paimon REST catalog; `stores` opens the store of each table it loads.
    pub fn paimon_rest(service: PaimonRest, stores: Rc<dyn StoreOpener>) -> Self {
        Self::with_backend(Rc::new(PaimonService {
            service,
            stores,
            clock: lakescope_storage::clock::system_clock(),
        }))
    }

    /// An Iceberg REST catalog (its tables' stores come with it).
    pub fn iceberg_rest(service: Rc<IcebergRest>) -> Self {
        Self::with_backend(Rc::new(IcebergService(service)))
    }

    /// The backend the calls go to.
    pub(crate) fn backend(&self) -> &dyn CatalogBackend {
        self.backend.as_ref()
    }

    /// The warehouse store; a catalog service has none (its tables are found by name with
    /// [`Catalog::locate`]).
    pub fn store(&self) -> Result<&Rc<dyn ObjectStore>> {
        self.backend.store()
    }

    /// Whether the tables are those of a catalog service (Paimon or Iceberg REST), found by
    /// name rather than as folders of a warehouse store.
    pub fn is_service(&self) -> bool {
        self.backend.store().is_err()
    }

    /// The Iceberg table `table_ref` names, opened (`None`: not an Iceberg table; a Paimon
    /// REST catalog's tables are Paimon tables). A warehouse folder is probed; an Iceberg REST
    /// catalog loads the table through the service.
    pub async fn open_iceberg(
        &self,
        table_ref: &TableRef,
    ) -> Result<Option<lakescope_iceberg::Table>> {
        self.backend.open_iceberg(table_ref).await
    }

    /// The format of the table at `path` (a path of [`Catalog::tables`]' entries), as the
    /// catalog knows it: a catalog service's tables are of its format, a warehouse folder is
    /// probed for Iceberg metadata.
    pub async fn format(&self, path: &str) -> Format {
        self.backend.format(path).await
    }

    /// Where the files of the table `table_ref` names are (its branch and system table aside).
    pub async fn locate(&self, table_ref: &TableRef) -> Result<TableLocation> {
        self.backend.locate(table_ref).await
    }

    /// The table `table_ref` names (its branch and system table aside), found: a Paimon table
    /// located, an Iceberg table opened; `None` when the catalog has no such table.
    pub async fn find(&self, table_ref: &TableRef) -> Result<Option<FoundTable>> {
        match self.backend.find(table_ref).await {
            Ok(found) => Ok(Some(found)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Renames the Paimon table `from` to `to` (a warehouse's folder is moved).
    pub async fn rename_table(&self, from: &TableRef, to: &TableRef) -> Result<()> {
        self.backend.rename_table(from, to).await
    }

    /// Creates a database (namespace): through the catalog service, or a warehouse's Iceberg
    /// namespace marker.
    pub async fn create_database(&self, name: &str) -> Result<()> {
        self.backend.create_database(name).await
    }

    /// Drops an empty database (namespace) through the catalog service.
    pub async fn drop_database(&self, name: &str) -> Result<()> {
        self.backend.drop_database(name).await
    }

    /// Creates an Iceberg table: through the catalog service (which chooses its location), or
    /// as the first metadata file in a warehouse opened with [`Catalog::warehouse`] (its
    /// namespace's marker written first, when missing).
    pub async fn create_iceberg_table_with(
        &self,
        env: &dyn WriteEnv,
        database: &str,
        name: &str,
        def: &IcebergTableDefinition,
    ) -> Result<()> {
        self.backend
            .create_iceberg_table(database, name, def, env)
            .await
    }

    /// Drops a table (a warehouse's Paimon folder, or through the catalog service).
    pub async fn drop_table(&self, database: &str, name: &str) -> Result<()> {
        self.backend.drop_table(database, name).await
    }

    /// Creates a tag of a Paimon table through the catalog service (its tags endpoint).
    pub async fn create_tag(
        &self,
        table_ref: &TableRef,
        tag: &str,
        snapshot_id: Option<i64>,
        time_retained: Option<&str>,
    ) -> Result<()> {
        self.backend
            .create_tag(table_ref, tag, snapshot_id, time_retained)
            .await
    }

    /// Deletes a tag of a Paimon table through the catalog service (its tag endpoint).
    pub async fn delete_tag(&self, table_ref: &TableRef, tag: &str) -> Result<()> {
        self.backend.delete_tag(table_ref, tag).await
    }

    /// Alters a Paimon table through the catalog service (its alterTable endpoint): `changes`
    /// (see [`lakescope_paimon::rest::schema_changes`]) applied in order.
    pub async fn alter_table(&self, table_ref: &TableRef, changes: &[SchemaChange]) -> Result<()> {
        self.backend.alter_table(table_ref, changes).await
    }

    /// Database names (folders named `<db>.db`, and Iceberg namespace folders; a catalog
    /// service's databases), sorted.
    pub async fn databases(&self) -> Result<Vec<String>> {
        self.backend.databases().await
    }

    /// Tables of a database: sub-folders that hold a `schema/` folder (a catalog service's
    /// tables of that database).
    pub async fn tables(&self, database: &str) -> Result<Vec<TableEntry>> {
        self.backend.tables(database).await
    }

    /// Every database with its tables.
    pub async fn tree(&self) -> Result<Vec<DatabaseEntry>> {
        let mut out = Vec::new();
        for name in self.databases().await? {
            let tables = self.tables(&name).await?;
            out.push(DatabaseEntry { name, tables });
        }
        Ok(out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use bytes_stub::put;
    use lakescope_storage::MemoryStore;

    mod bytes_stub {
        use lakescope_storage::ObjectStore;
        pub async fn put(s: &dyn ObjectStore, k: &str) {
            s.put(k, b"{}".to_vec().into()).await.unwrap();
        }
    }

    /// An Iceberg table definition of one INT column `id`.
    pub(crate) fn one_int_column() -> IcebergTableDefinition {
        IcebergTableDefinition {
            columns: vec![(
                "id".into(),
                lakescope_paimon::spec::types::DataType::parse("INT").unwrap(),
                None,
            )],
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn lists_databases_and_tables() {
        let mem = MemoryStore::new();
        put(&mem, "a.db/t1/schema/schema-0").await;
        put(&mem, "a.db/t2/schema/schema-0").await;
        put(&mem, "a.db/not_a_table/x").await;
        put(&mem, "b.db/t3/schema/schema-0").await;
        put(&mem, "stray/file").await;
        let cat = Catalog::new(Rc::new(mem));
        let tree = cat.tree().await.unwrap();
        assert_eq!(tree.len(), 2);
        assert_eq!(tree[0].name, "a");
        let names: Vec<_> = tree[0].tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["t1", "t2"]);
        assert_eq!(tree[1].tables[0].path, "b.db/t3");
    }

    #[tokio::test]
    async fn lists_iceberg_namespaces() {
        let mem = MemoryStore::new();
        put(&mem, "a.db/t1/schema/schema-0").await;
        put(&mem, "ns/ice/metadata/00001-x.metadata.json").await;
        put(&mem, "ns/not_a_table/data/x").await;
        put(&mem, "other/file").await;
        let cat = Catalog::new(Rc::new(mem));
        let tree = cat.tree().await.unwrap();
        let names: Vec<_> = tree.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, vec!["a", "ns"]);
        assert_eq!(tree[1].tables[0].path, "ns/ice");
    }

    #[tokio::test]
    async fn a_table_is_opened_as_its_format_and_a_missing_one_says_which_folder_lacks_a_schema() {
        let mem = MemoryStore::new();
        put(&mem, "a.db/t1/schema/schema-0").await;
        let cat = Catalog::warehouse(Rc::new(mem), "/wh");
        let def = one_int_column();
        let env = lakescope_paimon::write::FixedEnv::new(1, 1);
        cat.create_iceberg_table_with(&env, "ns", "ice", &def)
            .await
            .unwrap();
        let ice: TableRef = "ns.ice".parse().unwrap();
        assert!(matches!(
            cat.find(&ice).await,
            Ok(Some(FoundTable::Iceberg(_)))
        ));
        let paimon: TableRef = "a.t1".parse().unwrap();
        assert!(matches!(
            cat.find(&paimon).await,
            Ok(Some(FoundTable::Paimon(_)))
        ));

        let missing: TableRef = "a.nope".parse().unwrap();
        assert!(matches!(cat.find(&missing).await, Ok(None)));
        let err = cat.table(&missing).await.unwrap_err();
        assert!(err.is_not_found());
        assert_eq!(
            err.to_string(),
            "Paimon table a.db/nope not found (no schema file under a.db/nope/schema)"
        );
    }

    #[tokio::test]
    async fn a_warehouse_opened_for_browsing_finds_a_paimon_table_without_an_iceberg_probe() {
        use lakescope_storage::{RequestTrace, TracedStore};
        let mem: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
        put(mem.as_ref(), "a.db/t1/schema/schema-0").await;
        let def = one_int_column();
        let env = lakescope_paimon::write::FixedEnv::new(1, 1);
        Catalog::warehouse(mem.clone(), "/wh")
            .create_iceberg_table_with(&env, "ns", "ice", &def)
            .await
            .unwrap();
        let trace = Rc::new(RequestTrace::default());
        let traced: Rc<dyn ObjectStore> = Rc::new(TracedStore::new(mem, trace.clone()));
        let paimon: TableRef = "a.t1".parse().unwrap();
        let requests_of = |catalog: Catalog, table: TableRef| {
            let trace = trace.clone();
            async move {
                trace.clear();
                let found = catalog.find(&table).await.unwrap();
                let paths: Vec<(&str, String)> = trace
                    .requests()
                    .into_iter()
                    .map(|r| (r.operation, r.path))
                    .collect();
                (found, paths)
            }
        };
        let (found, writing) = requests_of(Catalog::new(traced.clone()), paimon.clone()).await;
        assert!(matches!(found, Some(FoundTable::Paimon(_))));
        let (found, browsing) = requests_of(Catalog::browse(traced.clone()), paimon).await;
        assert!(matches!(found, Some(FoundTable::Paimon(_))));
        assert_eq!(
            browsing, writing,
            "the same lookup as the read-write catalog"
        );
        assert!(
            !browsing.iter().any(|(_, path)| path.starts_with("a/t1")),
            "no Iceberg probe of a/t1: {browsing:?}"
        );
        // an Iceberg table is still found
        let ice: TableRef = "ns.ice".parse().unwrap();
        let (found, _) = requests_of(Catalog::browse(traced), ice).await;
        assert!(matches!(found, Some(FoundTable::Iceberg(_))));
    }

    /// Opens every location as an empty in-memory store (and counts the opens).
    #[derive(Default)]
    struct MemoryStores(std::cell::Cell<usize>);

    impl StoreOpener for MemoryStores {
        fn open(&self, _uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
            self.0.set(self.0.get() + 1);
            Ok(Rc::new(MemoryStore::new()))
        }
    }

    #[tokio::test]
    async fn a_paimon_rest_catalog_lists_locates_and_creates_through_the_service() {
        use lakescope_paimon::rest::{RestCatalog, RestOptions};
        use lakescope_paimon::write::FixedEnv;
        use lakescope_storage::transport::CannedTransport;
        let transport = Rc::new(CannedTransport::new([
            (200, r#"{"defaults":{"prefix":"p"}}"#),
            (200, r#"{"databases":["d"]}"#),
            (200, r#"{"tables":["t"]}"#),
            (200, r#"{"name":"t","path":"file:///wh/d/t","schemaId":0}"#),
            (200, ""),
        ]));
        let options = RestOptions {
            warehouse: "wh".into(),
            ..RestOptions::default()
        };
        let service = RestCatalog::connect("http://h", &options, transport.clone())
            .await
            .unwrap();
        let stores = Rc::new(MemoryStores::default());
        let cat = Catalog::paimon_rest(service, stores.clone());
        assert!(
            cat.store().is_err(),
            "a catalog service has no warehouse store"
        );
        let tree = cat.tree().await.unwrap();
        assert_eq!(
            (tree[0].name.as_str(), tree[0].tables[0].name.as_str()),
            ("d", "t")
        );
        let t: TableRef = "d.t".parse().unwrap();
        let location = cat.locate(&t).await.unwrap();
        assert_eq!((location.path.as_str(), stores.0.get()), ("", 1));
        let asked = transport.asked();
        assert_eq!(asked[3], "http://h/v1/p/databases/d/tables/t");

        // its tables are located with the service's snapshot commit
        assert!(location.snapshot_commit.is_some());
        // a table is created through the service's createTable (the service owns its tables)
        let env = FixedEnv::new(1, 1);
        let def = crate::write::Definition {
            columns: vec![(
                "id".into(),
                lakescope_paimon::spec::types::DataType::parse("INT").unwrap(),
                None,
            )],
            ..Default::default()
        };
        cat.create_table_with(&env, "d", "u", &def).await.unwrap();
        let asked = transport.asked();
        assert_eq!(asked[4], "http://h/v1/p/databases/d/tables");
        assert_eq!(asked.len(), 5);
        let sent = transport.sent();
        let body: serde_json::Value = serde_json::from_slice(&sent[4].body).unwrap();
        assert_eq!(
            (
                sent[4].method,
                &body["identifier"]["object"],
                &body["schema"]["fields"][0]["name"]
            ),
            ("POST", &serde_json::json!("u"), &serde_json::json!("id"))
        );
    }
}
