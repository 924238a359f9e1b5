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
use lakescope_paimon::write::WriteEnv;
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

    /// Loads a table; its writes commit through this catalog.
    pub async fn load_table(self: &Rc<Self>, namespace: &str, name: &str) -> Result<Table> {
        let handle = RestTable {
            catalog: self.clone(),
            identifier: TableIdentifier {
                namespace: namespace_levels(namespace),
                name: name.to_string(),
            },
        };
        handle.load_fresh().await
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
        let handle = RestTable {
            catalog: self.clone(),
            identifier: TableIdentifier {
                namespace: namespace_levels(namespace),
                name: name.to_string(),
            },
        };
        let created = self
            .client
            .create_table(&handle.identifier.namespace, &request)
            .await?;
        handle.table(created)
    }
}

/// One table of a REST catalog: what its [`Table`]s load and commit through.
#[derive(Clone)]
struct RestTable {
    catalog: Rc<RestCatalog>,
    identifier: TableIdentifier,
}

impl RestTable {
    async fn load_fresh(&self) -> Result<Table> {
        let loaded = self
            .catalog
            .client
            .load_table(&self.identifier.namespace, &self.identifier.name)
            .await?;
        self.table(loaded)
    }

    /// The table a loadTable (or create) answer describes.
    fn table(&self, loaded: LoadTableResult) -> Result<Table> {
        let name = format!(
            "{}.{}",
            self.identifier.namespace.join("."),
            self.identifier.name
        );
        let source = loaded
            .metadata_location
            .clone()
            .unwrap_or_else(|| format!("loadTable {name}"));
        let metadata = parse_metadata(&source, &loaded.metadata)?;
        let (store, key) = self
            .catalog
            .stores
            .open(&metadata.location, &loaded.config)?;
        self.table_at(store, &key, &source, metadata)
    }

    fn table_at(
        &self,
        store: Rc<dyn ObjectStore>,
        key: &str,
        metadata_location: &str,
        metadata: TableMetadata,
    ) -> Result<Table> {
        let metadata_key = Relocator::new(&metadata.location, key)
            .resolve(metadata_location, metadata_location)
            .unwrap_or_else(|_| metadata_location.to_string());
        Ok(Table::from_metadata(store, key, metadata_key, metadata)
            .with_catalog(Rc::new(self.clone())))
    }
}

fn parse_metadata(source: &str, value: &serde_json::Value) -> Result<TableMetadata> {
    let bytes = serde_json::to_vec(value)
        .map_err(|e| Error::corrupt(source, format!("table metadata: {e}")))?;
    TableMetadata::parse(source, &bytes)
}

#[async_trait::async_trait(?Send)]
impl MetadataCatalog for RestTable {
    async fn load(&self, _table: &Table) -> Result<Table> {
        self.load_fresh().await
    }

    async fn commit(&self, base: &Table, next: &TableMetadata) -> Result<Option<Table>> {
        let (requirements, updates) = changes(base.metadata(), next);
        let request = CommitTableRequest {
            identifier: self.identifier.clone(),
            requirements,
            updates,
        };
        match self.catalog.client.commit_table(&request).await? {
            CommitOutcome::Committed(r) => {
                let metadata = parse_metadata(&r.metadata_location, &r.metadata)?;
                let table = self.table_at(
                    base.store().clone(),
                    base.key(),
                    &r.metadata_location,
                    metadata,
                )?;
                Ok(Some(table))
            }
            CommitOutcome::Conflict(_) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_storage::MemoryStore;

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
