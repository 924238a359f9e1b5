//! A Flink SQL session: catalogs, the current catalog and database, session options, and running statements.

mod alter_service;
mod as_of;
mod catalogs;
mod console;
mod convert;
mod ddl;
mod dml;
mod engine;
mod iceberg;
mod preview;
mod procedures;
mod query;
mod report;
mod show;

pub use catalogs::{CatalogKind, StoreOpener};
pub use console::{ConsoleEvent, ConsoleRequest};
pub use engine::{ColumnsNeeded, QueryEngine, QueryInput, QueryOutput};
pub use preview::PreviewOutcome;
pub use report::{ReportColumn, ReportOutcome, StatementReport};

use catalogs::SessionCatalog;
pub(crate) use convert::paimon_type;
use lakescope_paimon::write::WriteEnv;
use lakescope_sql::{ErrorKind, Parsed, Pos, SqlError, Statement};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Flink's in-memory catalog and database every session starts in.
pub const DEFAULT_CATALOG: &str = "default_catalog";
/// The database of [`DEFAULT_CATALOG`].
pub const DEFAULT_DATABASE: &str = "default_database";

/// Why a statement failed, with where in the script (the offending token when known, else the
/// statement's start).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StatementError {
    /// Line and column in the script.
    pub pos: Pos,
    /// What went wrong and what to do.
    pub message: String,
}

impl StatementError {
    /// An error at `pos`.
    pub fn new(pos: Pos, message: impl Into<String>) -> Self {
        Self {
            pos,
            message: message.into(),
        }
    }
}

impl From<SqlError> for StatementError {
    fn from(e: SqlError) -> Self {
        let message = match e.kind {
            ErrorKind::Syntax => format!("syntax error: {}", e.message),
            ErrorKind::Validation | ErrorKind::Unsupported => e.message,
        };
        Self {
            pos: e.pos,
            message,
        }
    }
}

/// Result of running one statement.
pub type StatementResult<T> = std::result::Result<T, StatementError>;

/// What a statement produced.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// A statement without rows, with a short confirmation (`[INFO] ...` in Flink's client).
    Done(String),
    /// Rows (queries, SHOW, DESCRIBE).
    Rows(QueryOutput),
}

/// A SQL session, as Flink's SQL client keeps one.
pub struct Session {
    catalogs: BTreeMap<String, SessionCatalog>,
    current_catalog: String,
    current_database: String,
    options: BTreeMap<String, String>,
    opener: Rc<dyn StoreOpener>,
    query_engine: Rc<dyn QueryEngine>,
    env: Rc<dyn WriteEnv>,
}

impl Session {
    /// A session in `default_catalog.default_database` that opens warehouses with `opener`,
    /// runs queries on `query_engine`, and takes time and ids from `env`.
    pub fn new(
        opener: Rc<dyn StoreOpener>,
        query_engine: Rc<dyn QueryEngine>,
        env: Rc<dyn WriteEnv>,
    ) -> Self {
        let mut catalogs = BTreeMap::new();
        catalogs.insert(DEFAULT_CATALOG.to_string(), SessionCatalog::memory());
        Self {
            catalogs,
            current_catalog: DEFAULT_CATALOG.to_string(),
            current_database: DEFAULT_DATABASE.to_string(),
            options: BTreeMap::new(),
            opener,
            query_engine,
            env,
        }
    }

    /// The current catalog's name.
    pub fn current_catalog(&self) -> &str {
        &self.current_catalog
    }

    /// The current database's name.
    pub fn current_database(&self) -> &str {
        &self.current_database
    }

    /// Creates the Paimon catalog `name` over the warehouse at `uri` and makes it current
    /// (database `default`), as `CREATE CATALOG name WITH ('type'='paimon', 'warehouse'=uri);
    /// USE CATALOG name` would.
    pub async fn open_warehouse(&mut self, name: &str, uri: &str) -> StatementResult<()> {
        let pos = Pos::default();
        let option = |key: &str, value: &str| lakescope_sql::ast::OptionEntry {
            key: key.into(),
            value: value.into(),
            key_pos: pos,
            value_pos: pos,
        };
        let name = lakescope_sql::ast::Ident {
            name: name.into(),
            pos,
        };
        let create = Statement::CreateCatalog {
            name: name.clone(),
            options: vec![option("type", "paimon"), option("warehouse", uri)],
        };
        for statement in [create, Statement::UseCatalog(name)] {
            self.execute_one(&statement).await?;
        }
        Ok(())
    }

    /// Runs one parsed statement (validates it first).
    pub async fn execute(&mut self, parsed: &Parsed) -> StatementResult<Outcome> {
        let statement = parsed.statement.as_ref().map_err(|e| e.clone())?;
        self.execute_statement(statement, parsed.pos).await
    }

    /// Runs a statement built in code rather than parsed from a script.
    pub async fn execute_one(&mut self, statement: &Statement) -> StatementResult<Outcome> {
        self.execute_statement(statement, Pos::default()).await
    }

    async fn execute_statement(
        &mut self,
        statement: &Statement,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        match statement {
            Statement::CreateCatalog { name, options } => {
                lakescope_sql::validate(statement, &Default::default())?;
                self.create_catalog(name, options).await
            }
            Statement::UseCatalog(name) => self.use_catalog(name),
            Statement::ShowCatalogs => Ok(show::names(
                "catalog name",
                self.catalogs.keys().cloned().collect(),
            )),
            Statement::ShowCurrentCatalog => Ok(show::names(
                "current catalog name",
                vec![self.current_catalog.clone()],
            )),
            Statement::ShowCurrentDatabase => Ok(show::names(
                "current database name",
                vec![self.current_database.clone()],
            )),
            Statement::CreateDatabase(c) => self.create_database(c, pos).await,
            Statement::DropDatabase {
                if_exists,
                name,
                cascade,
            } => self.drop_database(name, *if_exists, *cascade).await,
            Statement::UseDatabase(name) => self.use_database(name).await,
            Statement::ShowDatabases => {
                let names = self.catalog(&self.current_catalog, pos)?.databases().await;
                Ok(show::names("database name", names.map_err(|e| at(pos, e))?))
            }
            Statement::ShowTables(db) => self.show_tables(db.as_ref(), pos).await,
            Statement::ShowCreateTable(name) => self.show_create_table(name).await,
            Statement::Describe(name) => self.describe(name).await,
            Statement::CreateTable(t) => self.create_table(t, pos).await,
            Statement::AlterTable(a) => self.alter_table(a, statement, pos).await,
            Statement::DropTable {
                temporary,
                if_exists,
                name,
            } => self.drop_table(name, *temporary, *if_exists).await,
            Statement::Insert(i) => {
                lakescope_sql::validate(statement, &Default::default())?;
                self.insert(i, pos).await
            }
            Statement::Update(r) | Statement::Delete(r) => {
                let is_delete = matches!(statement, Statement::Delete(_));
                self.row_level(r, is_delete, pos).await
            }
            Statement::Query(q) => {
                lakescope_sql::validate(statement, &Default::default())?;
                Ok(Outcome::Rows(self.query(q, pos).await?))
            }
            Statement::Set(None) => Ok(show::key_values(&self.options)),
            Statement::Set(Some(entry)) => {
                self.options.insert(entry.key.clone(), entry.value.clone());
                Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()))
            }
            Statement::Reset(None) => {
                self.options.clear();
                Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()))
            }
            Statement::Reset(Some((key, _))) => {
                self.options.remove(key);
                Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()))
            }
            Statement::Call { procedure, args } => {
                lakescope_sql::validate(statement, &Default::default())?;
                self.call(procedure, args, pos).await
            }
        }
    }

    /// Runs every statement of a script in order. Without `keep_going` the first failure stops
    /// the run. `report` sees each statement with its outcome; returns how many failed.
    pub async fn run_script(
        &mut self,
        script: &str,
        keep_going: bool,
        report: &mut dyn FnMut(&Parsed, &StatementResult<Outcome>),
    ) -> usize {
        let mut failed = 0;
        for parsed in statements(script) {
            let result = self.execute(&parsed).await;
            report(&parsed, &result);
            if result.is_err() {
                failed += 1;
                if !keep_going {
                    break;
                }
            }
        }
        failed
    }
}

/// The statements of a script as [`Session::run_script`] runs them: in order, numbered from 1,
/// each with its text and where it starts (a statement that does not parse is kept, to fail
/// when run).
pub fn statements(script: &str) -> Vec<Parsed> {
    lakescope_sql::parse_script(script)
}

/// An engine error as a statement error at `pos`.
pub(crate) fn at(pos: Pos, e: impl std::fmt::Display) -> StatementError {
    StatementError::new(pos, e.to_string())
}
