//! A catalog service opened for browsing (the page's catalogs, whose writes go through the SQL
//! worker): it lists, locates and opens tables, and refuses the rest without linking the
//! service's DDL into the page's code.

use crate::catalog::{TableEntry, TableLocation};
use crate::catalog_backend::{refusal, CatalogBackend};
use crate::table::Format;
use crate::{Result, TableRef};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::WriteEnv;

/// `B`'s reading calls; every writing call is refused by name and changes nothing.
pub(crate) struct Browsing<B>(pub(crate) B);

#[async_trait::async_trait(?Send)]
impl<B: CatalogBackend> CatalogBackend for Browsing<B> {
    fn kind(&self) -> &'static str {
        self.0.kind()
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
        self.0.locate(table_ref).await
    }

    async fn open_iceberg(&self, table_ref: &TableRef) -> Result<Option<lakescope_iceberg::Table>> {
        self.0.open_iceberg(table_ref).await
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
