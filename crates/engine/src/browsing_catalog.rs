//! A catalog opened for browsing (the page's warehouse or catalog service, whose writes go
//! through the SQL worker): it lists, locates and opens tables, and refuses the rest without
//! linking the catalog's DDL or a service's commit protocol into the page's code.

use crate::catalog::{FoundTable, TableEntry, TableLocation};
use crate::catalog_backend::{refusal, CatalogBackend};
use crate::catalog_services::{IcebergService, PaimonService};
use crate::table::Format;
use crate::warehouse_catalog::WarehouseCatalog;
use crate::{Result, TableRef};
use lakescope_paimon::commit::SnapshotCommit;
use lakescope_paimon::spec::manifest::ManifestEntry;
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::WriteEnv;
use lakescope_storage::ObjectStore;
use std::rc::Rc;

/// `B`'s reading calls; every writing call, and every commit to a table it opens, is refused
/// by name and changes nothing.
pub(crate) struct Browsing<B>(pub(crate) B);

/// How a catalog service finds a table for reading only: located or loaded without the
/// service's commit protocol.
#[async_trait::async_trait(?Send)]
pub(crate) trait Browse: CatalogBackend {
    /// [`CatalogBackend::locate`], the table's commits refused.
    async fn locate_for_reading(&self, table_ref: &TableRef) -> Result<TableLocation>;

    /// [`CatalogBackend::open_iceberg`], the table's commits refused.
    async fn open_iceberg_for_reading(
        &self,
        table_ref: &TableRef,
    ) -> Result<Option<lakescope_iceberg::Table>>;

    /// [`CatalogBackend::find`], the table's commits refused: by default an Iceberg table,
    /// then a Paimon table's location, as the trait's default looks them up.
    async fn find_for_reading(&self, table_ref: &TableRef) -> Result<FoundTable> {
        if let Some(table) = self.open_iceberg_for_reading(table_ref).await? {
            return Ok(FoundTable::Iceberg(Box::new(table)));
        }
        Ok(FoundTable::Paimon(
            self.locate_for_reading(table_ref).await?,
        ))
    }
}

#[async_trait::async_trait(?Send)]
impl Browse for PaimonService {
    async fn locate_for_reading(&self, table_ref: &TableRef) -> Result<TableLocation> {
        let (location, _) = self.locate_files(table_ref).await?;
        let commit = ReadOnlyCommit {
            table: table_ref.to_string(),
        };
        Ok(TableLocation {
            snapshot_commit: Some(Rc::new(commit)),
            ..location
        })
    }

    async fn open_iceberg_for_reading(
        &self,
        table_ref: &TableRef,
    ) -> Result<Option<lakescope_iceberg::Table>> {
        self.open_iceberg(table_ref).await
    }
}

#[async_trait::async_trait(?Send)]
impl Browse for IcebergService {
    async fn locate_for_reading(&self, table_ref: &TableRef) -> Result<TableLocation> {
        self.locate(table_ref).await
    }

    async fn open_iceberg_for_reading(
        &self,
        table_ref: &TableRef,
    ) -> Result<Option<lakescope_iceberg::Table>> {
        let table = self
            .0
            .load_table_for_reading(&table_ref.database, &table_ref.table)
            .await?;
        Ok(Some(table))
    }
}

/// A warehouse's tables are files of its store: located and opened as for writing (the page
/// commits nothing to them: its writes go through the SQL worker).
#[async_trait::async_trait(?Send)]
impl Browse for WarehouseCatalog {
    async fn locate_for_reading(&self, table_ref: &TableRef) -> Result<TableLocation> {
        self.locate(table_ref).await
    }

    async fn open_iceberg_for_reading(
        &self,
        table_ref: &TableRef,
    ) -> Result<Option<lakescope_iceberg::Table>> {
        self.open_iceberg(table_ref).await
    }

    /// The warehouse's own lookup: a `<db>.db/<t>` folder with a Paimon schema first, so
    /// opening a Paimon table sends no Iceberg probe (two listings on a store without an index).
    async fn find_for_reading(&self, table_ref: &TableRef) -> Result<FoundTable> {
        self.find(table_ref).await
    }
}

/// The snapshot commit of a Paimon table opened for browsing: refuses, so nothing is written.
struct ReadOnlyCommit {
    /// The table, for the error.
    table: String,
}

#[async_trait::async_trait(?Send)]
impl SnapshotCommit for ReadOnlyCommit {
    async fn commit(
        &self,
        _table: &lakescope_paimon::table::Table,
        _base: Option<&Snapshot>,
        _snapshot: &Snapshot,
        _entries: &[ManifestEntry],
    ) -> lakescope_paimon::Result<bool> {
        Err(lakescope_paimon::Error::unsupported(
            &self.table,
            "committing to a table of a catalog opened for browsing (the SQL tab commits through the catalog; nothing was committed)",
        ))
    }
}

#[async_trait::async_trait(?Send)]
impl<B: Browse> CatalogBackend for Browsing<B> {
    fn kind(&self) -> &'static str {
        self.0.kind()
    }

    fn store(&self) -> Result<&Rc<dyn ObjectStore>> {
        self.0.store()
    }

    async fn databases(&self) -> Result<Vec<String>> {
        self.0.databases().await
    }

    async fn tables(&self, database: &str) -> Result<Vec<TableEntry>> {
        self.0.tables(database).await
    }

    async fn format(&self, path: &str) -> Format {
        self.0.format(path).await
    }

    async fn locate(&self, table_ref: &TableRef) -> Result<TableLocation> {
        self.0.locate_for_reading(table_ref).await
    }

    async fn open_iceberg(&self, table_ref: &TableRef) -> Result<Option<lakescope_iceberg::Table>> {
        self.0.open_iceberg_for_reading(table_ref).await
    }

    async fn find(&self, table_ref: &TableRef) -> Result<FoundTable> {
        self.0.find_for_reading(table_ref).await
    }

    async fn create_table(
        &self,
        database: &str,
        name: &str,
        _def: &TableDefinition,
        _env: &dyn WriteEnv,
    ) -> Result<()> {
        Err(refusal(
            self.kind(),
            &format!("creating table {database}.{name} (opened for browsing: the SQL tab writes through the catalog)"),
        ))
    }
}
