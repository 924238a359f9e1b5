//! The REST catalog services behind [`crate::Catalog`]: Paimon REST and Iceberg REST, each a
//! [`CatalogBackend`] that lists and finds tables through its protocol client.

use crate::catalog::{StoreOpener, TableEntry, TableLocation};
use crate::catalog_backend::CatalogBackend;
use crate::table::Format;
use crate::token_store::TokenStore;
use crate::{Error, Result, TableRef};
use lakescope_iceberg::rest::{RestCatalog as IcebergRest, TableStores};
use lakescope_iceberg::write::IcebergTableDefinition;
use lakescope_paimon::rest::{
    RestCatalog as PaimonRest, RestSnapshotCommit, RestTable, RestTagSource, SchemaChange,
};
use lakescope_paimon::write::schema::{initial_schema, TableDefinition};
use lakescope_paimon::write::WriteEnv;
use lakescope_storage::clock::Clock;
use lakescope_storage::ObjectStore;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A Paimon REST catalog: tables are folders wherever the service says, opened by `stores` with
/// the data token it vends when `data-token.enabled` (fetched again before it expires); their snapshots are committed through the
/// service's commit endpoint and their tags are read from its tags endpoints.
pub(crate) struct PaimonService {
    pub(crate) service: PaimonRest,
    pub(crate) stores: Rc<dyn StoreOpener>,
    /// The clock data tokens expire on.
    pub(crate) clock: Clock,
}

impl PaimonService {
    /// Where the files of the table `table_ref` names are (its store, opened with the data
    /// token when the service vends one) and how its tags are read, without a snapshot commit;
    /// the service's answer for the table comes with it.
    pub(crate) async fn locate_files(
        &self,
        table_ref: &TableRef,
    ) -> Result<(TableLocation, RestTable)> {
        let (database, name) = (&table_ref.database, &table_ref.table);
        let table = self.service.table(database, name).await?;
        let store: Rc<dyn ObjectStore> = if self.service.data_token_enabled() {
            Rc::new(
                TokenStore::open(
                    self.service.clone(),
                    database,
                    name,
                    &table.path,
                    self.stores.clone(),
                    self.clock.clone(),
                )
                .await?,
            )
        } else {
            self.stores.open_vended(&table.path, &BTreeMap::new())?
        };
        let tags = RestTagSource::new(self.service.clone(), database, &table.name);
        let location = TableLocation {
            store,
            path: String::new(),
            snapshot_commit: None,
            tag_source: Some(Rc::new(tags)),
        };
        Ok((location, table))
    }
}

#[async_trait::async_trait(?Send)]
impl CatalogBackend for PaimonService {
    fn kind(&self) -> &'static str {
        "a Paimon REST catalog"
    }

    async fn databases(&self) -> Result<Vec<String>> {
        Ok(self.service.databases().await?)
    }

    async fn tables(&self, database: &str) -> Result<Vec<TableEntry>> {
        Ok(service_tables(
            database,
            self.service.tables(database).await?,
            Format::Paimon,
        ))
    }

    /// A Paimon REST catalog holds Paimon tables.
    async fn format(&self, _: &str) -> Format {
        Format::Paimon
    }

    async fn locate(&self, table_ref: &TableRef) -> Result<TableLocation> {
        let (location, table) = self.locate_files(table_ref).await?;
        let commit = RestSnapshotCommit::new(self.service.clone(), &table_ref.database, &table);
        Ok(TableLocation {
            snapshot_commit: Some(Rc::new(commit)),
            ..location
        })
    }

    async fn open_iceberg(&self, _: &TableRef) -> Result<Option<lakescope_iceberg::Table>> {
        Ok(None)
    }

    async fn create_database(&self, name: &str) -> Result<()> {
        Ok(self.service.create_database(name).await?)
    }

    async fn drop_database(&self, name: &str) -> Result<()> {
        Ok(self.service.drop_database(name).await?)
    }

    async fn create_table(
        &self,
        database: &str,
        name: &str,
        def: &TableDefinition,
        env: &dyn WriteEnv,
    ) -> Result<()> {
        // the schema a filesystem catalog would write as schema-0 (validated, ids assigned)
        let schema = initial_schema(def, env.now_millis())?;
        Ok(self.service.create_table(database, name, &schema).await?)
    }

    async fn create_iceberg_table(
        &self,
        database: &str,
        name: &str,
        _: &IcebergTableDefinition,
        _: &dyn WriteEnv,
    ) -> Result<()> {
        Err(Error::Invalid(format!(
            "{database}.{name}: a Paimon REST catalog holds Paimon tables, not Iceberg tables (nothing was created)"
        )))
    }

    async fn drop_table(&self, database: &str, name: &str) -> Result<()> {
        Ok(self.service.drop_table(database, name).await?)
    }

    async fn create_tag(
        &self,
        table_ref: &TableRef,
        tag: &str,
        snapshot_id: Option<i64>,
        time_retained: Option<&str>,
    ) -> Result<()> {
        let (database, table) = (&table_ref.database, &table_ref.table);
        Ok(self
            .service
            .create_tag(database, table, tag, snapshot_id, time_retained)
            .await?)
    }

    async fn delete_tag(&self, table_ref: &TableRef, tag: &str) -> Result<()> {
        let (database, table) = (&table_ref.database, &table_ref.table);
        Ok(self.service.delete_tag(database, table, tag).await?)
    }
    async fn alter_table(&self, table_ref: &TableRef, changes: &[SchemaChange]) -> Result<()> {
        let (database, table) = (&table_ref.database, &table_ref.table);
        Ok(self.service.alter_table(database, table, changes).await?)
    }
}

/// An Iceberg REST catalog: namespaces and tables from the service, each table loaded through
/// it (metadata, location, vended credentials).
pub(crate) struct IcebergService(pub(crate) Rc<IcebergRest>);

#[async_trait::async_trait(?Send)]
impl CatalogBackend for IcebergService {
    fn kind(&self) -> &'static str {
        "an Iceberg REST catalog"
    }

    async fn databases(&self) -> Result<Vec<String>> {
        Ok(self.0.list_namespaces().await?)
    }

    async fn tables(&self, database: &str) -> Result<Vec<TableEntry>> {
        Ok(service_tables(
            database,
            self.0.list_tables(database).await?,
            Format::Iceberg,
        ))
    }

    /// An Iceberg REST catalog holds Iceberg tables.
    async fn format(&self, _: &str) -> Format {
        Format::Iceberg
    }

    async fn locate(&self, table_ref: &TableRef) -> Result<TableLocation> {
        Err(Error::Invalid(format!(
            "{table_ref}: an Iceberg REST catalog holds Iceberg tables; this operation works on Paimon tables"
        )))
    }

    async fn open_iceberg(&self, table_ref: &TableRef) -> Result<Option<lakescope_iceberg::Table>> {
        let table = self
            .0
            .load_table(&table_ref.database, &table_ref.table)
            .await?;
        Ok(Some(table))
    }

    async fn create_database(&self, name: &str) -> Result<()> {
        Ok(self.0.create_namespace(name).await?)
    }

    async fn drop_database(&self, name: &str) -> Result<()> {
        Ok(self.0.drop_namespace(name).await?)
    }

    async fn create_table(
        &self,
        database: &str,
        name: &str,
        _: &TableDefinition,
        _: &dyn WriteEnv,
    ) -> Result<()> {
        Err(Error::Invalid(format!(
            "{database}.{name}: an Iceberg REST catalog holds Iceberg tables, not Paimon tables (nothing was created)"
        )))
    }

    async fn create_iceberg_table(
        &self,
        database: &str,
        name: &str,
        def: &IcebergTableDefinition,
        env: &dyn WriteEnv,
    ) -> Result<()> {
        self.0.create_table(database, name, def, env).await?;
        Ok(())
    }

    async fn drop_table(&self, database: &str, name: &str) -> Result<()> {
        Ok(self.0.drop_table(database, name).await?)
    }

    async fn alter_table(&self, table_ref: &TableRef, _: &[SchemaChange]) -> Result<()> {
        Err(Error::Invalid(format!(
            "{table_ref}: an Iceberg REST catalog holds Iceberg tables; Paimon schema changes do not apply (nothing was changed)"
        )))
    }
}

/// A catalog service's tables of `database` by name, all of `format`: their paths are
/// `<database>/<table>`.
fn service_tables(database: &str, names: Vec<String>, format: Format) -> Vec<TableEntry> {
    names
        .into_iter()
        .map(|name| TableEntry {
            path: format!("{database}/{name}"),
            name,
            format,
        })
        .collect()
}

/// An Iceberg REST catalog's [`TableStores`]: each table's location opened by a [`StoreOpener`]
/// with the credentials its loadTable config vends.
pub struct OpenerStores(pub Rc<dyn StoreOpener>);

impl TableStores for OpenerStores {
    fn open(
        &self,
        location: &str,
        config: &BTreeMap<String, String>,
    ) -> lakescope_iceberg::Result<(Rc<dyn ObjectStore>, String)> {
        let store = self.0.open_vended(location, config)?;
        Ok((store, String::new()))
    }
}
