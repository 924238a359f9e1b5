//! The filesystem warehouse as a [`CatalogBackend`]: `<name>.db/` folders of Paimon tables and
//! Iceberg namespace folders of one store, whose tables are created by writing their files.

use crate::catalog::{FoundTable, TableEntry, TableLocation};
use crate::catalog_backend::CatalogBackend;
use crate::served_location::file_uri;
use crate::table::Format;
use crate::{Error, Result, TableRef};
use lakescope_iceberg::write::{HadoopCatalog, IcebergTableDefinition};
use lakescope_paimon::table::Table as PaimonTable;
use lakescope_paimon::write::catalog_ops::{drop_table, rename_table};
use lakescope_paimon::write::schema::{create_table, TableDefinition};
use lakescope_paimon::write::WriteEnv;
use lakescope_storage::{join, ObjectStore};
use std::rc::Rc;

/// A filesystem warehouse: its databases are folders named `<db>.db` (Paimon) and namespace
/// folders holding Iceberg tables; a table is a sub-folder (`<db>.db/<t>` with a `schema/`
/// folder, or `<ns>/<t>` with Iceberg metadata).
pub struct WarehouseCatalog {
    store: Rc<dyn ObjectStore>,
    /// The warehouse's absolute URI, under which Iceberg metadata records the locations of the
    /// tables created here (`None`: not known, so no Iceberg table is created).
    uri: Option<String>,
}

impl WarehouseCatalog {
    /// The warehouse whose root is `store`'s.
    pub fn new(store: Rc<dyn ObjectStore>) -> Self {
        Self { store, uri: None }
    }

    /// The warehouse at `uri` (a path or a URI, as a catalog's `'warehouse'` option gives it)
    /// whose root is `store`'s: the Iceberg tables created in it record their locations under
    /// `uri` (a path as a `file://` URI).
    pub fn at(store: Rc<dyn ObjectStore>, uri: &str) -> Self {
        Self {
            store,
            uri: Some(file_uri(uri)),
        }
    }

    /// The warehouse as a Hadoop catalog at the store's root, known as `uri`.
    fn hadoop(uri: &str) -> HadoopCatalog {
        HadoopCatalog::new("", uri)
    }
}

#[async_trait::async_trait(?Send)]
impl CatalogBackend for WarehouseCatalog {
    fn kind(&self) -> &'static str {
        "a filesystem warehouse, whose databases and tables are folders"
    }

    fn store(&self) -> Result<&Rc<dyn ObjectStore>> {
        Ok(&self.store)
    }

    /// Folders named `<db>.db`, and namespace folders that hold an Iceberg table.
    async fn databases(&self) -> Result<Vec<String>> {
        let store = &self.store;
        let root = store.list_dir("").await?;
        let mut dbs: Vec<String> = root
            .dirs
            .iter()
            .filter_map(|d| d.strip_suffix(".db"))
            .map(str::to_string)
            .collect();
        for d in root.dirs.iter().filter(|d| !d.ends_with(".db")) {
            if !crate::iceberg_scan::tables(store.as_ref(), d)
                .await?
                .is_empty()
            {
                dbs.push(d.clone());
            }
        }
        dbs.sort();
        dbs.dedup();
        Ok(dbs)
    }

    /// Sub-folders of `<database>.db` that hold a `schema/` folder, and the Iceberg tables of
    /// the namespace folder `<database>`.
    async fn tables(&self, database: &str) -> Result<Vec<TableEntry>> {
        let store = &self.store;
        let db_path = format!("{database}.db");
        let listing = store.list_dir(&db_path).await?;
        let mut tables = Vec::new();
        for name in listing.dirs {
            let path = join(&db_path, &name);
            let inner = store.list_dir(&path).await?;
            if inner.dirs.iter().any(|d| d == "schema") {
                tables.push(TableEntry {
                    name,
                    path,
                    format: Format::Paimon,
                });
            }
        }
        tables.extend(crate::iceberg_scan::tables(store.as_ref(), database).await?);
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(tables)
    }

    /// Iceberg when the folder holds Iceberg metadata, else Paimon.
    async fn format(&self, path: &str) -> Format {
        if lakescope_iceberg::is_iceberg_table(self.store.as_ref(), path).await {
            Format::Iceberg
        } else {
            Format::Paimon
        }
    }

    /// The warehouse store and the folder `<db>.db/<t>`; snapshots are written as files.
    async fn locate(&self, table_ref: &TableRef) -> Result<TableLocation> {
        Ok(TableLocation {
            store: self.store.clone(),
            path: table_ref.path(),
            snapshot_commit: None,
            tag_source: None,
        })
    }

    /// The folder `<ns>/<t>` or `<ns>.db/<t>`, probed for Iceberg metadata.
    async fn open_iceberg(&self, table_ref: &TableRef) -> Result<Option<lakescope_iceberg::Table>> {
        match crate::iceberg_scan::locate(self.store.as_ref(), table_ref).await {
            Some(key) => Ok(Some(
                lakescope_iceberg::Table::open(self.store.clone(), &key).await?,
            )),
            None => Ok(None),
        }
    }

    /// The folder `<db>.db/<t>` when it holds a Paimon schema, else the Iceberg table of
    /// [`CatalogBackend::open_iceberg`]'s folders; neither: the missing Paimon table's error
    /// (the one opening `<db>.db/<t>` gives).
    async fn find(&self, table_ref: &TableRef) -> Result<FoundTable> {
        let path = table_ref.path();
        if PaimonTable::exists_at(self.store.as_ref(), &path).await? {
            return Ok(FoundTable::Paimon(self.locate(table_ref).await?));
        }
        match self.open_iceberg(table_ref).await? {
            Some(table) => Ok(FoundTable::Iceberg(Box::new(table))),
            None => Err(lakescope_paimon::Error::table_not_found(&path).into()),
        }
    }

    /// Writes the table's `schema/schema-0`.
    async fn create_table(
        &self,
        database: &str,
        name: &str,
        def: &TableDefinition,
        env: &dyn WriteEnv,
    ) -> Result<()> {
        let table = TableRef {
            database: database.to_string(),
            table: name.to_string(),
            system: None,
        };
        create_table(self.store.as_ref(), &table.path(), def, env).await?;
        Ok(())
    }

    /// Writes the Iceberg namespace's marker, as Java's `HadoopCatalog` (a Paimon database,
    /// a `<name>.db` folder, exists once a table is written in it).
    async fn create_database(&self, name: &str) -> Result<()> {
        // a namespace's marker records no location: the warehouse's URI is not needed
        Self::hadoop("")
            .create_namespace(self.store.as_ref(), name)
            .await?;
        Ok(())
    }

    /// Writes the first metadata file of the Iceberg table `<database>/<name>` (its namespace's
    /// marker first, when it has none), its location under the warehouse's URI.
    async fn create_iceberg_table(
        &self,
        database: &str,
        name: &str,
        def: &IcebergTableDefinition,
        env: &dyn WriteEnv,
    ) -> Result<()> {
        let Some(uri) = &self.uri else {
            return Err(Error::Invalid(format!(
                "creating Iceberg table {database}.{name} needs the warehouse's URI, which its metadata records the table's location under; this warehouse was opened without one (nothing was created)"
            )));
        };
        let hadoop = Self::hadoop(uri);
        let store = self.store.as_ref();
        hadoop.create_namespace(store, database).await?;
        hadoop.create_table(store, database, name, def, env).await?;
        Ok(())
    }

    /// Deletes the Paimon table folder `<database>.db/<name>` (refused when it holds none).
    async fn drop_table(&self, database: &str, name: &str) -> Result<()> {
        let table = TableRef {
            database: database.to_string(),
            table: name.to_string(),
            system: None,
        };
        drop_table(self.store.as_ref(), &table.path()).await?;
        Ok(())
    }

    /// Moves the Paimon table folder of `from` to that of `to`.
    async fn rename_table(&self, from: &TableRef, to: &TableRef) -> Result<()> {
        rename_table(self.store.as_ref(), &from.path(), &to.path()).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_iceberg::write::catalog::NAMESPACE_MARKER;
    use lakescope_paimon::spec::types::DataType;
    use lakescope_paimon::write::FixedEnv;
    use lakescope_storage::MemoryStore;

    fn definition() -> IcebergTableDefinition {
        IcebergTableDefinition {
            columns: vec![("id".into(), DataType::parse("INT").unwrap(), None)],
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn creates_an_iceberg_namespace_and_table_located_under_the_warehouse_uri() {
        let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
        let warehouse = WarehouseCatalog::at(store.clone(), "/data/lake");
        warehouse.create_database("ns").await.unwrap();
        assert!(store.head(&format!("ns/{NAMESPACE_MARKER}")).await.is_ok());

        // a table in a namespace without a marker gets one first
        let env = FixedEnv::new(1, 1);
        warehouse
            .create_iceberg_table("other", "t", &definition(), &env)
            .await
            .unwrap();
        assert!(store
            .head(&format!("other/{NAMESPACE_MARKER}"))
            .await
            .is_ok());
        let table_ref: TableRef = "other.t".parse().unwrap();
        let table = warehouse.open_iceberg(&table_ref).await.unwrap().unwrap();
        assert_eq!(table.metadata().location, "file:///data/lake/other/t");
        assert_eq!(warehouse.databases().await.unwrap(), ["other"]);

        let again = warehouse
            .create_iceberg_table("other", "t", &definition(), &env)
            .await
            .unwrap_err();
        assert!(again.to_string().contains("already exists"), "{again}");
    }

    #[tokio::test]
    async fn refuses_an_iceberg_table_without_the_warehouse_uri_and_writes_nothing() {
        let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
        let warehouse = WarehouseCatalog::new(store.clone());
        let refused = warehouse
            .create_iceberg_table("ns", "t", &definition(), &FixedEnv::new(1, 1))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("Iceberg table ns.t needs the warehouse's URI"),
            "{refused}"
        );
        assert!(store.list_dir("").await.unwrap().dirs.is_empty());
    }
}
