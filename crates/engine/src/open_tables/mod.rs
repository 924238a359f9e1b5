//! The tables a viewer (the app) keeps open over one catalog: shared table handles, each table's
//! format decided once, a catalog service's table locations, and latest-snapshot reads shared
//! for a moment ([`latest`]) that let a table's plan start before its views ask ([`prefetch`]),
//! each kept for a bounded number of tables ([`bounded`]).

mod bounded;
mod latest;
mod prefetch;

use bounded::Bounded;

use crate::catalog::TableLocation;
use crate::table::{Format, Table as AnyTable};
use crate::versions::{paimon_branch_versions, Versions};
use crate::{Catalog, Error, Result, TableRef};
use futures::future::{FutureExt, LocalBoxFuture, Shared};
use lakescope_iceberg::Table as IcebergTable;
use lakescope_paimon::table::Table as PaimonTable;
use lakescope_storage::clock::Clock;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// A Paimon snapshot, as [`OpenTables::latest_snapshot`] reads it.
pub use lakescope_paimon::spec::snapshot::Snapshot;

/// Paimon table handles kept open (each with its decoded manifests, at most
/// `lakescope_paimon::table::MANIFEST_CACHE_BYTES` decoded bytes per kind); the least recently
/// asked for is closed first.
pub const TABLE_HANDLES: usize = 16;

/// Tables whose format, catalog location, latest-snapshot read and last known latest snapshot
/// are kept (each a small entry); the least recently asked for is forgotten first, and asked
/// again when needed.
pub const TABLE_ENTRIES: usize = 256;

/// A result several callers await together: the failure is shared, not copied.
type SharedResult<T> = std::result::Result<T, Arc<Error>>;

/// A Paimon table being opened (or opened), shared by every caller that asks for it meanwhile.
type Opening = Shared<LocalBoxFuture<'static, SharedResult<Rc<PaimonTable>>>>;

/// A catalog service's answer to where a table's files are, shared by every caller that asks.
type Locating = Shared<LocalBoxFuture<'static, SharedResult<TableLocation>>>;

/// A table's latest snapshot read, started at `.0` (epoch milliseconds), shared by every caller
/// that asks meanwhile.
type LatestRead = (
    i64,
    Shared<LocalBoxFuture<'static, SharedResult<Option<Snapshot>>>>,
);

/// What a table is, for a catalog tree's badge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableBadge {
    /// A short label (`iceberg`, `append`, `pk·dedup`, …; `error` when it cannot be opened).
    pub label: String,
    /// A sentence saying what the label means (or why the table cannot be opened).
    pub title: String,
}

/// The open tables of one catalog (a warehouse or a catalog service), shared by clones.
/// Table paths are a warehouse's folders (`db.db/t`, an Iceberg `ns/t`) or a catalog service's
/// `db/t` (see [`Catalog::tree`]).
#[derive(Clone)]
pub struct OpenTables {
    inner: Rc<Inner>,
}

struct Inner {
    catalog: Catalog,
    clock: Clock,
    /// A catalog service's table locations by table path: at most [`TABLE_ENTRIES`].
    locations: RefCell<Bounded<Locating>>,
    /// The format of each table path, probed once (see [`OpenTables::format`]): at most
    /// [`TABLE_ENTRIES`].
    formats: RefCell<Bounded<Format>>,
    /// Opened Paimon tables by path: at most [`TABLE_HANDLES`].
    tables: RefCell<Bounded<Opening>>,
    /// Latest-snapshot reads by table path (see [`OpenTables::latest_snapshot`]): at most
    /// [`TABLE_ENTRIES`].
    latest: RefCell<Bounded<LatestRead>>,
    /// The latest snapshot each table's last latest-snapshot read found, and when (epoch ms):
    /// at most [`TABLE_ENTRIES`].
    known_latest: RefCell<Bounded<(i64, Snapshot)>>,
}

impl OpenTables {
    /// The open tables of `catalog`, none yet (each table's format is the catalog's answer,
    /// [`Catalog::format`]). `clock` times the sharing of latest-snapshot reads.
    pub fn new(catalog: Catalog, clock: Clock) -> Self {
        Self {
            inner: Rc::new(Inner {
                catalog,
                clock,
                locations: RefCell::new(Bounded::new(TABLE_ENTRIES)),
                formats: RefCell::new(Bounded::new(TABLE_ENTRIES)),
                tables: RefCell::new(Bounded::new(TABLE_HANDLES)),
                latest: RefCell::new(Bounded::new(TABLE_ENTRIES)),
                known_latest: RefCell::new(Bounded::new(TABLE_ENTRIES)),
            }),
        }
    }

    /// The catalog the tables are opened from.
    pub fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }

    /// Forgets every handle, format, location and latest snapshot (a reload, or after a commit:
    /// the next ask sees new snapshots).
    pub fn forget(&self) {
        self.inner.tables.borrow_mut().clear();
        self.inner.formats.borrow_mut().clear();
        self.inner.locations.borrow_mut().clear();
        self.inner.latest.borrow_mut().clear();
        self.inner.known_latest.borrow_mut().clear();
    }

    /// The format of the table at `path`, asked of the catalog once per table
    /// ([`Catalog::format`]: a catalog service's tables are of its format; a warehouse folder
    /// is probed for Iceberg metadata the first time).
    pub async fn format(&self, path: &str) -> Format {
        if let Some(known) = self.inner.formats.borrow_mut().get(path).copied() {
            return known;
        }
        let format = self.inner.catalog.format(path).await;
        self.inner.formats.borrow_mut().insert(path, format);
        format
    }

    /// The table at `path` behind the format-neutral API: a Paimon table's shared handle
    /// ([`OpenTables::paimon`]), an Iceberg table's metadata ([`OpenTables::iceberg`]).
    pub async fn table(&self, path: &str) -> Result<AnyTable> {
        Ok(match self.format(path).await {
            Format::Paimon => AnyTable::Paimon(self.paimon(path).await?),
            Format::Iceberg => AnyTable::Iceberg(Rc::new(self.iceberg(path).await?)),
        })
    }

    /// The Iceberg table at `path`, opened: from the warehouse's folder, or loaded through the
    /// Iceberg REST catalog (each time: its metadata is one file).
    pub async fn iceberg(&self, path: &str) -> Result<IcebergTable> {
        let catalog = &self.inner.catalog;
        if !catalog.is_service() {
            return Ok(IcebergTable::open(catalog.store()?.clone(), path).await?);
        }
        let table_ref = service_ref(path)?;
        match catalog.open_iceberg(&table_ref).await {
            Ok(Some(table)) => Ok(table),
            Ok(None) => Err(Error::Invalid(format!(
                "{table_ref} is not an Iceberg table"
            ))),
            Err(e) => Err(e.context(format!("Cannot load table {table_ref} from the catalog"))),
        }
    }

    /// Opens (or returns the shared handle of) the Paimon table at `path`; callers that ask
    /// while it is being opened share that open, a failed open is tried again by the next.
    pub async fn paimon(&self, path: &str) -> Result<Rc<PaimonTable>> {
        let inner = &self.inner;
        let cached = inner.tables.borrow_mut().get(path).cloned();
        let opening = match cached {
            Some(opening) => opening,
            None => {
                let opening = self.open_paimon(path);
                inner.tables.borrow_mut().insert(path, opening.clone());
                opening
            }
        };
        let result = opening.clone().await;
        if result.is_err() {
            forget_failed(&inner.tables, path, |o| o.ptr_eq(&opening));
        }
        result.map_err(Error::Shared)
    }

    /// The shared open of the Paimon table at `path`: a folder of the warehouse, or where the
    /// catalog service says.
    fn open_paimon(&self, path: &str) -> Opening {
        let this = self.clone();
        let key = path.to_string();
        async move {
            let location = this.locate(&key).await?;
            location
                .open()
                .await
                .map(Rc::new)
                .map_err(|e| Arc::new(e.context(format!("Cannot open table {key}"))))
        }
        .boxed_local()
        .shared()
    }

    /// Where the files of the Paimon table at `path` are: the warehouse's folder, or the
    /// catalog service's answer (asked once per table and shared, until [`OpenTables::forget`]).
    async fn locate(&self, path: &str) -> SharedResult<TableLocation> {
        let catalog = &self.inner.catalog;
        if !catalog.is_service() {
            let store = catalog.store().map_err(Arc::new)?;
            return Ok(TableLocation {
                store: store.clone(),
                path: path.to_string(),
                snapshot_commit: None,
                tag_source: None,
            });
        }
        let cached = self.inner.locations.borrow_mut().get(path).cloned();
        let locating = match cached {
            Some(locating) => locating,
            None => {
                let catalog = catalog.clone();
                let key = path.to_string();
                let locating = async move {
                    let table_ref = service_ref(&key).map_err(Arc::new)?;
                    catalog
                        .locate(&table_ref)
                        .await
                        .map_err(|e| Arc::new(e.context(format!("Cannot open table {table_ref}"))))
                }
                .boxed_local()
                .shared();
                self.inner
                    .locations
                    .borrow_mut()
                    .insert(path, locating.clone());
                locating
            }
        };
        let result = locating.clone().await;
        if result.is_err() {
            forget_failed(&self.inner.locations, path, |o| o.ptr_eq(&locating));
        }
        result
    }

    /// What kind of table lives at `path`, for a catalog tree's badge.
    pub async fn badge(&self, path: &str) -> TableBadge {
        if self.format(path).await == Format::Iceberg {
            return TableBadge {
                label: "iceberg".into(),
                title: "Apache Iceberg table".into(),
            };
        }
        let table = match self.paimon(path).await {
            Ok(table) => table,
            Err(e) => {
                return TableBadge {
                    label: "error".into(),
                    title: e.to_string(),
                }
            }
        };
        let schema = table.current_schema();
        if schema.primary_keys.is_empty() {
            return TableBadge {
                label: "append".into(),
                title: "Append table (no primary key)".into(),
            };
        }
        let engine = schema
            .options
            .get("merge-engine")
            .cloned()
            .unwrap_or_else(|| "deduplicate".into());
        let short = match engine.as_str() {
            "deduplicate" => "dedup",
            "partial-update" => "partial",
            "aggregation" => "agg",
            "first-row" => "first-row",
            other => other,
        };
        TableBadge {
            label: format!("pk·{short}"),
            title: format!(
                "Primary key ({}), merge engine {engine}",
                schema.primary_keys.join(", ")
            ),
        }
    }
}

/// The `TableRef` of a catalog service's table path (`db/t`, see [`Catalog::tree`]).
fn service_ref(path: &str) -> Result<TableRef> {
    let (database, table) = path.split_once('/').ok_or_else(|| {
        Error::Invalid(format!(
            "{path}: not a table of a catalog service (database/table)"
        ))
    })?;
    Ok(TableRef {
        database: database.to_string(),
        table: table.to_string(),
        system: None,
    })
}

/// Drops `path`'s entry of `shared` if it is still the read that failed (`is_failed`), so that
/// the next caller tries again; a newer read that replaced it meanwhile stays.
fn forget_failed<V>(shared: &RefCell<Bounded<V>>, path: &str, is_failed: impl FnOnce(&V) -> bool) {
    let mut reads = shared.borrow_mut();
    if reads.peek(path).is_some_and(is_failed) {
        reads.remove(path);
    }
}

impl OpenTables {
    /// The column names of the current schema of the table at `path`.
    pub async fn current_columns(&self, path: &str) -> Result<Vec<String>> {
        if self.format(path).await == Format::Iceberg {
            let table = self.iceberg(path).await?;
            let schema = table.read_schema(None)?;
            return Ok(schema.fields.iter().map(|f| f.name.clone()).collect());
        }
        let table = self.paimon(path).await?;
        Ok(table
            .current_schema()
            .fields
            .iter()
            .map(|f| f.name.clone())
            .collect())
    }

    /// The own snapshots and tags of branch `branch` of the Paimon table at `path`.
    pub async fn branch_versions(&self, path: &str, branch: &str) -> Result<Versions> {
        let table = self.paimon(path).await?;
        paimon_branch_versions(&table, branch).await
    }
}

#[cfg(test)]
mod tests;
