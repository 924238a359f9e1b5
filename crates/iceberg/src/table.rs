//! An opened Iceberg table: its folder in the store, current metadata, and point-in-time lookup.

use crate::location::{current_metadata_key, Relocator};
use crate::spec::{Schema, Snapshot, TableMetadata};
use crate::{Error, Result};
use lakescope_storage::ObjectStore;
use std::rc::Rc;

/// Where a table's metadata is loaded from and committed to when that is a catalog service
/// (REST) rather than the Hadoop layout's `v<N>.metadata.json` files in the table folder.
#[async_trait::async_trait(?Send)]
pub trait MetadataCatalog {
    /// The table as the catalog has it now.
    async fn load(&self, table: &Table) -> Result<Table>;
    /// Commits `next`, derived by a writer from `base`; `Ok(None)` when another writer committed
    /// first (the caller retries from the new state).
    async fn commit(&self, base: &Table, next: &TableMetadata) -> Result<Option<Table>>;
}

/// How to open a table.
#[derive(Debug, Clone, Default)]
pub struct OpenOptions {
    /// Read this metadata file (a store key) instead of the current one.
    pub metadata_key: Option<String>,
    /// The location prefix to re-root instead of the metadata's own `location` (for tables
    /// whose files were written under another location than the metadata says).
    pub location_override: Option<String>,
}

/// Which snapshot to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotSelector {
    /// The current snapshot (`main`).
    Current,
    /// By id.
    Id(i64),
    /// The snapshot current at this time (`snapshot-log`).
    AsOfTimestamp(i64),
    /// A branch or tag name.
    Ref(String),
}

/// An Iceberg table opened from a store.
#[derive(Clone)]
pub struct Table {
    store: Rc<dyn ObjectStore>,
    key: String,
    metadata_key: String,
    metadata: Rc<TableMetadata>,
    relocator: Relocator,
    catalog: Option<Rc<dyn MetadataCatalog>>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("key", &self.key)
            .field("metadata_key", &self.metadata_key)
            .finish()
    }
}

impl Table {
    /// Opens the table whose folder is `table_key` (holding `metadata/`).
    pub async fn open(store: Rc<dyn ObjectStore>, table_key: &str) -> Result<Self> {
        Self::open_with(store, table_key, &OpenOptions::default()).await
    }

    /// Opens the table with options (a given metadata file, a location override).
    pub async fn open_with(
        store: Rc<dyn ObjectStore>,
        table_key: &str,
        options: &OpenOptions,
    ) -> Result<Self> {
        let key = table_key.trim_matches('/').to_string();
        let metadata_key = match &options.metadata_key {
            Some(k) => k.clone(),
            None => current_metadata_key(store.as_ref(), &key).await?,
        };
        let bytes = store.get(&metadata_key).await?;
        let metadata = TableMetadata::parse(&metadata_key, &bytes)?;
        let location = options
            .location_override
            .clone()
            .unwrap_or_else(|| metadata.location.clone());
        let relocator = Relocator::new(&location, &key);
        Ok(Self {
            store,
            key,
            metadata_key,
            metadata: Rc::new(metadata),
            relocator,
            catalog: None,
        })
    }

    /// The table as of metadata just read or written at `metadata_key`.
    pub(crate) fn from_metadata(
        store: Rc<dyn ObjectStore>,
        table_key: &str,
        metadata_key: String,
        metadata: TableMetadata,
    ) -> Self {
        let key = table_key.trim_matches('/').to_string();
        let relocator = Relocator::new(&metadata.location, &key);
        Self {
            store,
            key,
            metadata_key,
            metadata: Rc::new(metadata),
            relocator,
            catalog: None,
        }
    }

    /// This table, loaded and committed through `catalog` from now on.
    pub fn with_catalog(mut self, catalog: Rc<dyn MetadataCatalog>) -> Self {
        self.catalog = Some(catalog);
        self
    }

    /// The catalog service the table is committed through (`None`: the Hadoop layout).
    pub fn catalog(&self) -> Option<&Rc<dyn MetadataCatalog>> {
        self.catalog.as_ref()
    }

    /// The store.
    pub fn store(&self) -> &Rc<dyn ObjectStore> {
        &self.store
    }

    /// Key of the table folder.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Key of the metadata file that was read.
    pub fn metadata_key(&self) -> &str {
        &self.metadata_key
    }

    /// The table metadata.
    pub fn metadata(&self) -> &TableMetadata {
        &self.metadata
    }

    /// The re-rooting of absolute URIs onto the store.
    pub fn relocator(&self) -> &Relocator {
        &self.relocator
    }

    /// The store key of a URI written in metadata; `context` names the file that holds it.
    pub fn resolve(&self, uri: &str, context: &str) -> Result<String> {
        self.relocator.resolve(uri, context)
    }

    /// The snapshot a selector names (`None`: the table has no current snapshot).
    pub fn snapshot(&self, selector: &SnapshotSelector) -> Result<Option<&Snapshot>> {
        let m = &self.metadata;
        let missing = |what: String| Error::not_found(what, Some(self.metadata_key.clone()));
        Ok(match selector {
            SnapshotSelector::Current => m.current_snapshot(),
            SnapshotSelector::Id(id) => Some(
                m.snapshot(*id)
                    .ok_or_else(|| missing(format!("snapshot {id}")))?,
            ),
            SnapshotSelector::AsOfTimestamp(ms) => Some(
                m.snapshot_at(*ms)
                    .ok_or_else(|| missing(format!("snapshot at or before {ms} ms")))?,
            ),
            SnapshotSelector::Ref(name) => {
                let r = m
                    .refs
                    .get(name)
                    .ok_or_else(|| missing(format!("branch or tag '{name}'")))?;
                Some(m.snapshot(r.snapshot_id).ok_or_else(|| {
                    missing(format!("snapshot {} of ref '{name}'", r.snapshot_id))
                })?)
            }
        })
    }

    /// The schema rows of `snapshot` are read with (its own schema id, else the current one).
    pub fn read_schema(&self, snapshot: Option<&Snapshot>) -> Result<&Schema> {
        let m = &self.metadata;
        snapshot
            .and_then(|s| m.snapshot_schema(s))
            .or_else(|| m.current_schema())
            .ok_or_else(|| Error::corrupt(&self.metadata_key, "no schema"))
    }
}
