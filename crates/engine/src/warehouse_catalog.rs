//! The filesystem warehouse as a [`CatalogBackend`]: `<name>.db/` folders of Paimon tables and
//! Iceberg namespace folders of one store, whose tables are created by writing their files.

use crate::catalog::{FoundTable, TableEntry, TableLocation};
use crate::catalog_backend::CatalogBackend;
use crate::table::Format;
use crate::{Result, TableRef};
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
}

impl WarehouseCatalog {
    /// The warehouse whose root is `store`'s.
    pub fn new(store: Rc<dyn ObjectStore>) -> Self {
        Self { store }
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
    /// [`CatalogBackend::open_iceberg`]'s folders.
    async fn find(&self, table_ref: &TableRef) -> Result<Option<FoundTable>> {
        if PaimonTable::exists_at(self.store.as_ref(), &table_ref.path()).await? {
            return Ok(Some(FoundTable::Paimon(self.locate(table_ref).await?)));
        }
        let iceberg = self.open_iceberg(table_ref).await?;
        Ok(iceberg.map(|table| FoundTable::Iceberg(Box::new(table))))
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
