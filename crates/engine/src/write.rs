//! Writing Paimon tables through the catalog: CREATE TABLE, INSERT INTO and INSERT OVERWRITE
//! (a REST catalog's tables are created and commit through the service).

use crate::{Catalog, Result, TableRef};
use arrow_array::RecordBatch;
use lakescope_paimon::commit::{next_sequence_number, CommitOptions};
use lakescope_paimon::table::Table;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::table_write::write_overwrite;
use lakescope_paimon::write::{write, WriteEnv};
use lakescope_paimon::write_commit::commit_write;

pub use lakescope_paimon::commit::{CommitOutcome, Overwrite};
pub use lakescope_paimon::write::schema::TableDefinition as Definition;
/// The writers' environment of a native build: the system clock, random ids, blocking waits
/// (a browser build has `browser_env::BrowserEnv`).
#[cfg(not(target_arch = "wasm32"))]
pub use lakescope_paimon::write::SystemEnv;

/// The definition of a Paimon table whose columns are the fields of `schema` (each with the
/// Paimon type of its Arrow type, as `CREATE TABLE AS` gives a query's columns: `Utf8` is
/// `STRING`, a non-nullable field `NOT NULL`), with primary key `primary_keys` and `options`.
pub fn definition_from_arrow(
    schema: &arrow_schema::Schema,
    primary_keys: &[&str],
    options: &[(&str, &str)],
) -> Result<Definition> {
    let columns = schema
        .fields()
        .iter()
        .map(|f| {
            let kind = crate::session::paimon_type(f.name(), f.data_type(), f.is_nullable(), &[])
                .map_err(crate::Error::Invalid)?;
            Ok((f.name().clone(), kind, None))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Definition {
        columns,
        partition_keys: Vec::new(),
        primary_keys: primary_keys.iter().map(|k| k.to_string()).collect(),
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        comment: None,
    })
}

impl Catalog {
    /// Creates a Paimon table `<database>.<name>`: writes `schema/schema-0` in a warehouse, or
    /// asks the REST catalog service to create it (fails if it exists).
    pub async fn create_table_with(
        &self,
        env: &dyn WriteEnv,
        database: &str,
        name: &str,
        def: &TableDefinition,
    ) -> Result<TableRef> {
        let table = TableRef {
            database: database.to_string(),
            table: name.to_string(),
            system: None,
        };
        self.backend()
            .create_table(database, name, def, env)
            .await?;
        Ok(table)
    }

    /// Writes `batches` into the table and commits them in one snapshot: APPEND, or OVERWRITE
    /// of the partitions `overwrite` selects. Rows of primary-key tables may carry a
    /// `_VALUE_KIND` Int8 column (0 `+I`, 1 `-U`, 2 `+U`, 3 `-D`) or the `rowkind.field` column.
    pub async fn insert_with(
        &self,
        env: &dyn WriteEnv,
        table_ref: &TableRef,
        batches: &[RecordBatch],
        overwrite: Option<Overwrite>,
    ) -> Result<CommitOutcome> {
        let table = self.open_for_write(table_ref).await?;
        insert_into_table(env, &table, batches, overwrite).await
    }

    /// The table `table_ref` names, opened for writing: only its main branch, and through a
    /// REST catalog with commits that go through the service's commit endpoint.
    pub async fn open_for_write(&self, table_ref: &TableRef) -> Result<Table> {
        refuse_non_main_write(table_ref)?;
        self.open_table(table_ref).await
    }
}

/// `Ok` when `table_ref` names the table itself; a branch (`t$branch_dev`) or system table is
/// refused: lakescope writes only to the main branch, and a write meant for a branch must never
/// land on it.
pub fn refuse_non_main_write(table_ref: &TableRef) -> Result<()> {
    let branch = table_ref
        .branch()
        .filter(|b| *b != lakescope_paimon::table::MAIN_BRANCH);
    match (branch, table_ref.system_table()) {
        (None, None) => Ok(()),
        (Some(b), _) => Err(crate::Error::Invalid(format!(
            "{table_ref}: writing to branch '{b}' is not supported: lakescope writes only to the main branch of {}.{} (nothing was written)",
            table_ref.database, table_ref.table
        ))),
        (None, Some(s)) => Err(crate::Error::Invalid(format!(
            "{table_ref}: system table ${s} is read-only (nothing was written)"
        ))),
    }
}

/// Writes `batches` into an open table and commits them in one snapshot (see
/// [`Catalog::insert_with`]).
pub async fn insert_into_table(
    env: &dyn WriteEnv,
    table: &Table,
    batches: &[RecordBatch],
    overwrite: Option<Overwrite>,
) -> Result<CommitOutcome> {
    let first_sequence = next_sequence_number(table).await?;
    let message = match overwrite {
        Some(_) => write_overwrite(table, env, batches, first_sequence).await?,
        None => write(table, env, batches, first_sequence).await?,
    };
    let options = CommitOptions::for_table(table, env.uuid())?;
    Ok(commit_write(table, env, options, message, overwrite).await?)
}

#[cfg(not(target_arch = "wasm32"))]
impl Catalog {
    /// [`Catalog::create_table_with`] with the system clock.
    pub async fn create_table(
        &self,
        database: &str,
        name: &str,
        def: &TableDefinition,
    ) -> Result<TableRef> {
        let env = SystemEnv::default();
        self.create_table_with(&env, database, name, def).await
    }

    /// INSERT INTO: appends (or upserts, for primary-key tables) `batches`; returns the snapshot id.
    pub async fn append(&self, table: &TableRef, batches: &[RecordBatch]) -> Result<i64> {
        Ok(self.insert(table, batches, None).await?.snapshot.id)
    }

    /// INSERT INTO, or INSERT OVERWRITE when `overwrite` is set, with the system clock.
    pub async fn insert(
        &self,
        table: &TableRef,
        batches: &[RecordBatch],
        overwrite: Option<Overwrite>,
    ) -> Result<CommitOutcome> {
        let env = SystemEnv::default();
        self.insert_with(&env, table, batches, overwrite).await
    }
}
