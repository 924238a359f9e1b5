//! The extension point of [`crate::Catalog`]: what a catalog (a filesystem warehouse, a REST
//! catalog service, the next one) implements to list, find, create and drop tables.

use crate::catalog::{FoundTable, TableEntry, TableLocation};
use crate::table::Format;
use crate::{Error, Result, TableRef};
use lakescope_iceberg::write::IcebergTableDefinition;
use lakescope_paimon::rest::SchemaChange;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::WriteEnv;
use lakescope_storage::ObjectStore;
use std::rc::Rc;

/// A catalog: where the names of databases and tables come from and where each table's files
/// are. To add a catalog, implement this trait and wrap it with [`crate::Catalog::with_backend`];
/// the filesystem warehouse ([`crate::warehouse_catalog::WarehouseCatalog`]) and the REST
/// catalogs ([`crate::catalog_services`]) are its implementations. The listing and locating
/// methods are required; what only some catalogs do (a warehouse store, creating and dropping
/// databases, tags, schema changes) refuses by default, naming the operation and
/// [`CatalogBackend::kind`], and changes nothing. Behind a trait object, so that a build that
/// never connects to a service (the explorer's first load) links none of the protocol clients.
#[async_trait::async_trait(?Send)]
pub trait CatalogBackend {
    /// What this catalog is, for errors ("a filesystem warehouse", "a Paimon REST catalog").
    fn kind(&self) -> &'static str;

    /// The store whose folders are the tables (a filesystem warehouse: its tables are read and
    /// written as files there). By default there is none: the tables are found by name with
    /// [`CatalogBackend::locate`] and [`CatalogBackend::open_iceberg`].
    fn store(&self) -> Result<&Rc<dyn ObjectStore>> {
        Err(Error::Invalid(format!(
            "this is {}: its tables are opened by name, not as folders of a warehouse",
            self.kind()
        )))
    }

    /// Database (namespace) names, sorted.
    async fn databases(&self) -> Result<Vec<String>>;

    /// The tables of a database, sorted by name.
    async fn tables(&self, database: &str) -> Result<Vec<TableEntry>>;

    /// The format of the table at `path` (a path of [`CatalogBackend::tables`]' entries), known
    /// to the catalog: a catalog service holds tables of its own format; a warehouse folder is
    /// probed (without Iceberg metadata it is taken for Paimon, and opening it says what is
    /// wrong).
    async fn format(&self, path: &str) -> Format;

    /// Where the files of the Paimon table `table_ref` names are (its branch and system table
    /// aside), and how its commits and tags go.
    async fn locate(&self, table_ref: &TableRef) -> Result<TableLocation>;

    /// The Iceberg table `table_ref` names, opened (`None`: not an Iceberg table).
    async fn open_iceberg(&self, table_ref: &TableRef) -> Result<Option<lakescope_iceberg::Table>>;

    /// The table `table_ref` names (its branch and system table aside), found in one lookup:
    /// a Paimon table located, an Iceberg table opened. When the catalog has no such table, the
    /// error is the catalog's own, for which [`Error::is_not_found`] holds (a warehouse folder
    /// without a schema, a service's `404`). By default the catalog is asked for an Iceberg
    /// table ([`CatalogBackend::open_iceberg`]), then for a Paimon table's location
    /// ([`CatalogBackend::locate`]).
    async fn find(&self, table_ref: &TableRef) -> Result<FoundTable> {
        if let Some(table) = self.open_iceberg(table_ref).await? {
            return Ok(FoundTable::Iceberg(Box::new(table)));
        }
        Ok(FoundTable::Paimon(self.locate(table_ref).await?))
    }

    /// Creates the Paimon table `<database>.<name>` (fails if it exists).
    async fn create_table(
        &self,
        database: &str,
        name: &str,
        def: &TableDefinition,
        env: &dyn WriteEnv,
    ) -> Result<()>;

    /// Creates a database (namespace).
    async fn create_database(&self, name: &str) -> Result<()> {
        Err(refusal(self.kind(), &format!("creating database {name}")))
    }

    /// Drops an empty database (namespace).
    async fn drop_database(&self, name: &str) -> Result<()> {
        Err(refusal(self.kind(), &format!("dropping database {name}")))
    }

    /// Creates the Iceberg table `<database>.<name>` (the catalog chooses its location).
    async fn create_iceberg_table(
        &self,
        database: &str,
        name: &str,
        _def: &IcebergTableDefinition,
        _env: &dyn WriteEnv,
    ) -> Result<()> {
        Err(refusal(
            self.kind(),
            &format!("creating Iceberg table {database}.{name}"),
        ))
    }

    /// Drops a table.
    async fn drop_table(&self, database: &str, name: &str) -> Result<()> {
        Err(refusal(
            self.kind(),
            &format!("dropping table {database}.{name}"),
        ))
    }

    /// Renames the Paimon table `from` to `to` (within this catalog).
    async fn rename_table(&self, from: &TableRef, to: &TableRef) -> Result<()> {
        Err(refusal(
            self.kind(),
            &format!("renaming table {from} to {to}"),
        ))
    }

    /// Creates a tag of a Paimon table at a snapshot (the latest when `None`).
    async fn create_tag(
        &self,
        table_ref: &TableRef,
        tag: &str,
        _snapshot_id: Option<i64>,
        _time_retained: Option<&str>,
    ) -> Result<()> {
        Err(refusal(
            self.kind(),
            &format!("{table_ref}: creating tag {tag}"),
        ))
    }

    /// Deletes a tag of a Paimon table.
    async fn delete_tag(&self, table_ref: &TableRef, tag: &str) -> Result<()> {
        Err(refusal(
            self.kind(),
            &format!("{table_ref}: deleting tag {tag}"),
        ))
    }

    /// Alters a Paimon table with schema changes, applied in order by the catalog.
    async fn alter_table(&self, table_ref: &TableRef, _changes: &[SchemaChange]) -> Result<()> {
        Err(refusal(
            self.kind(),
            &format!("{table_ref}: altering the table"),
        ))
    }
}

/// The refusal of `what`, an operation the catalog `kind` does not do.
pub(crate) fn refusal(kind: &str, what: &str) -> Error {
    Error::Invalid(format!(
        "{what} is not done through {kind} (nothing was changed)"
    ))
}
