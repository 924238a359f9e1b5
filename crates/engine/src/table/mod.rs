//! A table of either format behind one read API: what the app's Overview, Schema, Snapshots and
//! Files tabs show ([`Table::overview`], [`Table::schemas`], [`Table::snapshots`],
//! [`Table::files`]), as plain serde data, and the Diff tab's rows ([`Table::diff`]).

mod diff;
mod files;
mod overview;
mod scan;
mod schemas;
mod snapshots;
mod tags;

pub use diff::{DiffRead, TableDiff};
pub use files::{DataFile, FileDetail, Files};
pub use overview::{Overview, OverviewDetail};
pub use scan::{first_rows_request, TableRows, TableScan};
pub use schemas::{paimon_schema_changes, Field, SchemaChange, SchemaVersion, Schemas};
pub use snapshots::{Commit, CommitDetail, SnapshotLog};
pub use tags::Rollback;

use crate::catalog::FoundTable;
use crate::versions::{iceberg_versions, paimon_versions, Versions};
use crate::{Catalog, Result, TableRef, Version};
use lakescope_iceberg::Table as IcebergTable;
use lakescope_paimon::diff::DiffProgress;
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table::Table as PaimonTable;
use std::rc::Rc;

/// The table format of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Format {
    /// Apache Paimon.
    Paimon,
    /// Apache Iceberg.
    Iceberg,
}

/// An opened table: its format is fixed when it is opened, every read below asks the handle.
#[derive(Clone, Debug)]
pub enum Table {
    /// A Paimon table (the handle of one branch).
    Paimon(Rc<PaimonTable>),
    /// An Iceberg table (one metadata file).
    Iceberg(Rc<IcebergTable>),
}

impl Table {
    /// The table's format.
    pub fn format(&self) -> Format {
        match self {
            Table::Paimon(_) => Format::Paimon,
            Table::Iceberg(_) => Format::Iceberg,
        }
    }

    /// The facts of the Overview tab (a Paimon table's latest snapshot read here).
    pub async fn overview(&self) -> Result<Overview> {
        match self {
            Table::Paimon(t) => {
                let latest = t.latest_snapshot().await?;
                overview::paimon(t, latest).await
            }
            Table::Iceberg(t) => Ok(overview::iceberg(t)),
        }
    }

    /// The facts of the Overview tab of a Paimon table whose latest snapshot the caller has
    /// already read (`None`: it has none); an Iceberg table's metadata names its own.
    pub async fn overview_with_latest(&self, latest: Option<Snapshot>) -> Result<Overview> {
        match self {
            Table::Paimon(t) => overview::paimon(t, latest).await,
            Table::Iceberg(t) => Ok(overview::iceberg(t)),
        }
    }

    /// Every schema version, oldest first, with the changes from the one before.
    pub async fn schemas(&self) -> Result<Schemas> {
        match self {
            Table::Paimon(t) => schemas::paimon(t).await,
            Table::Iceberg(t) => Ok(schemas::iceberg(t)),
        }
    }

    /// The snapshots in commit order with their refs (Paimon: the table's tags).
    pub async fn snapshots(&self) -> Result<SnapshotLog> {
        match self {
            Table::Paimon(t) => snapshots::paimon(t).await,
            Table::Iceberg(t) => Ok(snapshots::iceberg(t)),
        }
    }

    /// The live files at version `at` (`name`: the table's name in errors; a Paimon branch is
    /// read on the handle of that branch).
    pub async fn files(&self, name: &TableRef, at: &Version) -> Result<Files> {
        match self {
            Table::Paimon(t) => files::paimon(t, name, at).await,
            Table::Iceberg(t) => files::iceberg(t, name, at).await,
        }
    }

    /// The rows that changed from version `from` (`None`: the empty table) to `to`, reporting
    /// to `progress` (`name`: the table's name in errors and in branch refs).
    pub async fn diff(
        &self,
        name: &TableRef,
        from: Option<&Version>,
        to: &Version,
        progress: &mut dyn FnMut(DiffProgress),
    ) -> Result<TableDiff> {
        match self {
            Table::Paimon(t) => diff::paimon(t, from, to, progress).await,
            Table::Iceberg(t) => diff::iceberg(t, name, from, to, progress).await,
        }
    }

    /// The versions the table offers to read (snapshots, tags, branches).
    pub async fn versions(&self) -> Result<Versions> {
        match self {
            Table::Paimon(t) => paimon_versions(t).await,
            Table::Iceberg(t) => Ok(iceberg_versions(t)),
        }
    }
}

impl Catalog {
    /// Opens the table `table_ref` names as the format it is, decided once here by the
    /// catalog's one lookup ([`Catalog::find`]'s): a warehouse folder with a Paimon schema is
    /// Paimon, one with Iceberg metadata or an Iceberg REST catalog's table is Iceberg (its
    /// system table and branch aside: those are read through [`Catalog::scan`]). A missing
    /// table's error is the catalog's own (a warehouse's "Paimon table ... not found", a
    /// service's `404`).
    pub async fn table(&self, table_ref: &TableRef) -> Result<Table> {
        Ok(match self.backend().find(table_ref).await? {
            FoundTable::Iceberg(t) => Table::Iceberg(Rc::new(*t)),
            FoundTable::Paimon(location) => Table::Paimon(Rc::new(location.open().await?)),
        })
    }
}
