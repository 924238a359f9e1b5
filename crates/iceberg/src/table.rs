//! An opened Iceberg table: its folder in the store, current metadata, and point-in-time lookup.

use crate::location::{current_metadata_key, Relocator};
use crate::spec::{Schema, Snapshot, TableMetadata};
use crate::{Error, Result};
use lakescope_storage::ObjectStore;
use std::rc::Rc;

/// Where a table's metadata is loaded from and committed to (Java's `TableOperations`): the
/// Hadoop layout's `v<N>.metadata.json` files in the table folder
/// ([`crate::write::catalog::HadoopMetadata`], the default) or a catalog service (REST). Writers
/// plan a commit the same way for both; only this last, atomic step differs.
#[async_trait::async_trait(?Send)]
pub trait MetadataCatalog {
    /// The table as the catalog has it now.
    async fn load(&self, table: &Table) -> Result<Table>;
    /// Makes `next`, planned by a writer on `base` (as [`MetadataCatalog::load`] gave it), the
    /// table's metadata, atomically. `Ok(None)`: another writer committed first and nothing was
    /// applied (the writer plans again on a fresh load). An error after which the commit may
    /// have been applied is [`crate::Error::CommitStateUnknown`].
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

/// Which snapshot to read, and so (as Java's `SnapshotUtil.schemaFor`) with which schema:
/// the current state and the head of a branch read with the table's current schema, a snapshot
/// named by id, time or tag with its own ([`Table::read_schema_at`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotSelector {
    /// The current snapshot (`main`).
    Current,
    /// By id.
    Id(i64),
    /// The snapshot current at this time (`snapshot-log`).
    AsOfTimestamp(i64),
    /// The head of a branch (`main` is one); a tag of that name is an error.
    Branch(String),
    /// The snapshot of a tag; a branch of that name is an error.
    Tag(String),
    /// A branch or a tag, whichever the name is (for pickers and the CLI's diff, which take
    /// bare ref names); read as that kind of ref.
    Ref(String),
}

impl std::fmt::Display for SnapshotSelector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SnapshotSelector::Current => write!(f, "the current snapshot"),
            SnapshotSelector::Id(id) => write!(f, "snapshot {id}"),
            SnapshotSelector::AsOfTimestamp(ms) => write!(f, "the snapshot as of {ms} ms"),
            SnapshotSelector::Branch(n) => write!(f, "branch '{n}'"),
            SnapshotSelector::Tag(n) => write!(f, "tag '{n}'"),
            SnapshotSelector::Ref(n) => write!(f, "ref '{n}'"),
        }
    }
}

/// What a ref is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefKind {
    /// `branch`: a ref that commits can move forward (`main` is the table's main branch).
    Branch,
    /// `tag`: a ref fixed on one snapshot.
    Tag,
}

impl RefKind {
    /// The kind of a ref's `type` field (`branch` or `tag`; anything else reads as a branch,
    /// as Java's `SnapshotRef.isBranch` is the only other case).
    pub fn of(ref_type: &str) -> Self {
        if ref_type.eq_ignore_ascii_case("tag") {
            RefKind::Tag
        } else {
            RefKind::Branch
        }
    }

    fn name(self) -> &'static str {
        match self {
            RefKind::Branch => "branch",
            RefKind::Tag => "tag",
        }
    }
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

    /// Where the table is loaded from and committed to: its catalog service, else the Hadoop
    /// layout.
    pub fn metadata_catalog(&self) -> Rc<dyn MetadataCatalog> {
        match &self.catalog {
            Some(c) => c.clone(),
            None => Rc::new(crate::write::catalog::HadoopMetadata),
        }
    }

    /// The store.
    pub fn store(&self) -> &Rc<dyn ObjectStore> {
        &self.store
    }

    /// Key of the table folder.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The table for messages: its folder's key, or its location when it is the root of its
    /// store (a catalog's table opened on a store of its own).
    pub fn name(&self) -> &str {
        if self.key.is_empty() {
            &self.metadata.location
        } else {
            &self.key
        }
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

    /// The snapshot a selector names (`None`: the table has no current snapshot, or the
    /// branch `main` does not point at one yet).
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
            SnapshotSelector::Branch(name)
            | SnapshotSelector::Tag(name)
            | SnapshotSelector::Ref(name) => {
                let Some((_, id)) = self.named_ref(selector, name)? else {
                    // `main` of a table without snapshots: no ref yet, nothing to read
                    return Ok(None);
                };
                Some(
                    m.snapshot(id)
                        .ok_or_else(|| missing(format!("snapshot {id} of ref '{name}'")))?,
                )
            }
        })
    }

    /// The kind and snapshot id of the ref `name`, checked against what `selector` asks for;
    /// `None` for `main` before the first commit (Java's empty table has no `main` ref).
    fn named_ref(&self, selector: &SnapshotSelector, name: &str) -> Result<Option<(RefKind, i64)>> {
        let m = &self.metadata;
        let wanted = match selector {
            SnapshotSelector::Branch(_) => Some(RefKind::Branch),
            SnapshotSelector::Tag(_) => Some(RefKind::Tag),
            _ => None,
        };
        let Some(r) = m.refs.get(name) else {
            if name == "main" && wanted != Some(RefKind::Tag) {
                // v1 tables and old writers keep `current-snapshot-id` without refs
                return Ok(m.current_snapshot_id.map(|id| (RefKind::Branch, id)));
            }
            let what = wanted.map_or("branch or tag", RefKind::name);
            let known: Vec<String> = m
                .refs
                .iter()
                .map(|(n, r)| format!("{n} ({})", RefKind::of(&r.ref_type).name()))
                .collect();
            return Err(Error::not_found(
                format!("{what} '{name}' of {}", self.key),
                Some(format!(
                    "{}; refs: {}",
                    self.metadata_key,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )),
            ));
        };
        let kind = RefKind::of(&r.ref_type);
        if let Some(wanted) = wanted.filter(|w| *w != kind) {
            return Err(Error::Invalid(format!(
                "{}: '{name}' is a {} of the table, not a {}: read it as a {} (Iceberg reads a branch with the table's current schema, a tag with its snapshot's)",
                self.key,
                kind.name(),
                wanted.name(),
                kind.name()
            )));
        }
        Ok(Some((kind, r.snapshot_id)))
    }

    /// The schema rows at `selector` are read with, as Java's `SnapshotUtil.schemaFor`: the
    /// current state and a branch (`main` too) with the table's current schema; a snapshot
    /// named by id, time or tag with the schema it was written with.
    pub fn read_schema_at(&self, selector: &SnapshotSelector) -> Result<&Schema> {
        let by_ref = match selector {
            SnapshotSelector::Current | SnapshotSelector::Branch(_) => true,
            SnapshotSelector::Id(_)
            | SnapshotSelector::AsOfTimestamp(_)
            | SnapshotSelector::Tag(_) => false,
            SnapshotSelector::Ref(name) => {
                self.named_ref(selector, name)?.map(|(k, _)| k) != Some(RefKind::Tag)
            }
        };
        if by_ref {
            // a branch that does not exist is still an error
            self.snapshot(selector)?;
            self.read_schema(None)
        } else {
            self.read_schema(self.snapshot(selector)?)
        }
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
