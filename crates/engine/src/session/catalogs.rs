//! Catalogs of a session (warehouses, REST catalog services, Flink's in-memory one): CREATE/USE CATALOG and DATABASE, SHOW TABLES, and resolving table names.

use super::{at, show, Outcome, Session, StatementError, StatementResult, DEFAULT_DATABASE};
pub use crate::catalog::StoreOpener;
use crate::catalog::{FoundTable, TableLocation};
use crate::catalog_address::{CatalogAddress, CatalogSecrets};
use crate::table_ref::{normalize_suffix, split_suffix, BRANCH_PREFIX};
use crate::{Catalog, TableRef};
use lakescope_sql::ast::{CreateDatabase, CreateTable, Ident, ObjectName, OptionEntry};
use lakescope_sql::Pos;
use lakescope_storage::ObjectStore;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// The kind of a catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogKind {
    /// Flink's in-memory catalog: tables with a `'connector'`.
    Memory,
    /// A Paimon filesystem catalog.
    Paimon,
    /// An Iceberg Hadoop catalog.
    Iceberg,
}

/// A table registered in the session itself (in-memory catalog tables, TEMPORARY tables).
#[derive(Clone)]
pub(super) enum SessionTable {
    /// `'connector' = 'paimon'` with `'path'`: a real Paimon table at that path.
    Paimon {
        store: Rc<dyn ObjectStore>,
        path: String,
    },
    /// Any other connector: only Flink can read or write it; with the CREATE TABLE it was
    /// declared with (SHOW CREATE TABLE and DESCRIBE show it back).
    Connector(String, Box<CreateTable>),
}

/// A catalog of the session.
pub(super) struct SessionCatalog {
    pub(super) kind: CatalogKind,
    /// The engine catalog its tables are listed, found and created through: a filesystem
    /// warehouse ([`Catalog::new`]) or a REST catalog service, whose tables' commits go through
    /// it. `None`: Flink's in-memory catalog.
    pub(super) catalog: Option<Catalog>,
    /// Databases created in this session (object stores have no empty folders).
    pub(super) databases: BTreeSet<String>,
    /// Session tables by (database, table).
    pub(super) tables: BTreeMap<(String, String), SessionTable>,
}

impl SessionCatalog {
    /// Flink's `default_catalog` with its `default_database`.
    pub(super) fn memory() -> Self {
        Self {
            kind: CatalogKind::Memory,
            catalog: None,
            databases: BTreeSet::from([DEFAULT_DATABASE.to_string()]),
            tables: BTreeMap::new(),
        }
    }

    /// The engine catalog (the warehouse, or the catalog service).
    pub(super) fn warehouse(&self) -> Option<Catalog> {
        self.catalog.clone()
    }

    /// The REST catalog service, if this catalog is one.
    pub(super) fn service(&self) -> Option<&Catalog> {
        self.catalog.as_ref().filter(|c| c.is_service())
    }

    /// Database names: those in the warehouse and those created in this session.
    pub(super) async fn databases(&self) -> crate::Result<Vec<String>> {
        let mut names = self.databases.clone();
        if let Some(catalog) = &self.catalog {
            names.extend(catalog.databases().await?);
        }
        Ok(names.into_iter().collect())
    }

    /// Table names of a database.
    pub(super) async fn tables(&self, database: &str) -> crate::Result<Vec<String>> {
        let mut names: BTreeSet<String> = self
            .tables
            .keys()
            .filter(|(db, _)| db == database)
            .map(|(_, t)| t.clone())
            .collect();
        if let Some(catalog) = &self.catalog {
            names.extend(catalog.tables(database).await?.into_iter().map(|t| t.name));
        }
        Ok(names.into_iter().collect())
    }

    /// The table the engine catalog finds by name (a Paimon table located, an Iceberg table
    /// opened; a REST catalog's through the service), `None` when it has no such table.
    async fn find(&self, table_ref: &TableRef, pos: Pos) -> StatementResult<Option<Location>> {
        let Some(catalog) = &self.catalog else {
            return Ok(None);
        };
        let found = catalog.find(table_ref).await.map_err(|e| at(pos, e))?;
        Ok(found.map(|found| match found {
            FoundTable::Paimon(location) => Location::Paimon(location),
            FoundTable::Iceberg(table) => Location::Iceberg(table),
        }))
    }
}

/// Where a table's data is.
#[derive(Clone)]
pub(super) enum Location {
    /// A Paimon table: store, the table folder's key in it, and (a REST catalog's table) the
    /// catalog's snapshot commit.
    Paimon(TableLocation),
    /// An Iceberg table, opened (its writes commit through its metadata catalog: the
    /// warehouse's files, or the REST catalog service).
    Iceberg(Box<lakescope_iceberg::Table>),
    /// A table of a connector only Flink can run.
    Connector(String),
}

/// A table name resolved against the session.
#[derive(Clone)]
pub(super) struct Resolved {
    pub(super) catalog: String,
    pub(super) database: String,
    pub(super) table: String,
    /// What follows `$`: a system table (lower case), a branch `branch_<name>` (the name's
    /// case kept) or a branch's system table `branch_<name>$<system>`.
    pub(super) system: Option<String>,
    /// Where it is; `None` if it does not exist.
    pub(super) location: Option<Location>,
    /// Whether its catalog is a REST catalog service.
    pub(super) service: bool,
}

impl Resolved {
    /// `catalog.database.table`.
    pub(super) fn qualified(&self) -> String {
        format!("{}.{}.{}", self.catalog, self.database, self.table)
    }

    /// The branch named by `t$branch_<name>` (`None`: the table itself, `main`).
    pub(super) fn branch(&self) -> Option<&str> {
        self.system
            .as_deref()
            .and_then(|s| split_suffix(s).0)
            .filter(|b| *b != lakescope_paimon::table::MAIN_BRANCH)
    }

    /// The system table named (`snapshots` of `t$snapshots` or `t$branch_dev$snapshots`).
    pub(super) fn system_table(&self) -> Option<&str> {
        self.system.as_deref().and_then(|s| split_suffix(s).1)
    }

    /// Refuses `verb` (a write: INSERT, UPDATE, DELETE, ALTER, DROP, CALL) on anything but the
    /// table's main branch: a branch named by `t$branch_<name>` or by a `'branch'` hint, or a
    /// system table. lakescope writes only to `main`, and a write meant for a branch must never
    /// land there.
    pub(super) fn refuse_non_main(
        &self,
        hints: &[OptionEntry],
        pos: Pos,
        verb: &str,
    ) -> StatementResult<()> {
        let hinted = hints
            .iter()
            .find(|h| h.key == "branch")
            .map(|h| h.value.trim())
            .filter(|b| *b != lakescope_paimon::table::MAIN_BRANCH);
        if let Some(b) = self.branch().or(hinted) {
            return Err(StatementError::new(
                pos,
                format!(
                    "{verb} branch '{b}' of {} is not supported: lakescope writes only to the main branch, and a write meant for a branch must not land on main (nothing was written)",
                    self.qualified()
                ),
            ));
        }
        if let Some(s) = self.system_table() {
            return Err(StatementError::new(
                pos,
                format!(
                    "{verb} {}${s}: system tables are read-only (nothing was written)",
                    self.qualified()
                ),
            ));
        }
        Ok(())
    }

    /// Refuses `verb` (a statement lakescope does not yet run through a REST catalog service)
    /// on a table of one: the service owns its tables' schemas, tags and folders, and a write
    /// around it would not be seen by its other clients.
    pub(super) fn refuse_service(&self, pos: Pos, verb: &str) -> StatementResult<()> {
        if !self.service {
            return Ok(());
        }
        Err(StatementError::new(
            pos,
            format!(
                "{verb} {} through REST catalog {} is not supported yet (nothing was changed); INSERT, UPDATE and DELETE commit through it",
                self.qualified(),
                self.catalog
            ),
        ))
    }

    /// This table read on the branch a `'branch'` hint names (Paimon's `branch` table option, the
    /// Flink Iceberg connector's `branch` read option), as `t$branch_<name>` would; a name that
    /// already names another branch is an error.
    pub(super) fn with_branch_hint(mut self, hints: &[OptionEntry]) -> StatementResult<Self> {
        let Some(h) = hints.iter().find(|h| h.key == "branch") else {
            return Ok(self);
        };
        let wanted = h.value.trim();
        if wanted.is_empty() || wanted.contains('$') {
            return Err(StatementError::new(
                h.value_pos,
                format!("'branch' = '{}' is not a branch name", h.value),
            ));
        }
        let named = self.system.as_deref().and_then(|s| split_suffix(s).0);
        if let Some(named) = named {
            if named == wanted {
                return Ok(self);
            }
            return Err(StatementError::new(
                h.value_pos,
                format!(
                    "{}$branch_{named} is read with 'branch' = '{wanted}': name one branch",
                    self.qualified()
                ),
            ));
        }
        let system = self.system_table().map(str::to_string);
        self.system = match (wanted, system) {
            (lakescope_paimon::table::MAIN_BRANCH, s) => s,
            (b, None) => Some(format!("{BRANCH_PREFIX}{b}")),
            (b, Some(s)) => Some(format!("{BRANCH_PREFIX}{b}${s}")),
        };
        Ok(self)
    }

    /// The location of an existing table, or Flink's "not found" error.
    pub(super) fn existing(&self, pos: Pos) -> StatementResult<&Location> {
        self.location.as_ref().ok_or_else(|| {
            StatementError::new(
                pos,
                format!(
                    "Object '{}' not found within '{}.{}'",
                    self.table, self.catalog, self.database
                ),
            )
        })
    }
}

fn option<'a>(options: &'a [OptionEntry], key: &str) -> Option<&'a OptionEntry> {
    options.iter().find(|o| o.key == key)
}

fn done(message: &str) -> Outcome {
    Outcome::Done(format!("[INFO] {message}"))
}

impl Session {
    pub(super) fn catalog(&self, name: &str, pos: Pos) -> StatementResult<&SessionCatalog> {
        self.catalogs.get(name).ok_or_else(|| {
            StatementError::new(pos, format!("A catalog with name [{name}] does not exist."))
        })
    }

    /// The catalog of `target` (its REST catalog service, or its warehouse) and the table
    /// `target` names in it (its branch and system table aside), for the statements a service
    /// carries out (tags, ALTER TABLE).
    pub(super) fn service_table(
        &self,
        target: &Resolved,
        pos: Pos,
    ) -> StatementResult<(Catalog, TableRef)> {
        let Some(service) = self.catalog(&target.catalog, pos)?.warehouse() else {
            return Err(StatementError::new(
                pos,
                "the catalog has no warehouse or service",
            ));
        };
        let table_ref = TableRef {
            database: target.database.clone(),
            table: target.table.clone(),
            system: None,
        };
        Ok((service, table_ref))
    }

    pub(super) fn catalog_mut(
        &mut self,
        name: &str,
        pos: Pos,
    ) -> StatementResult<&mut SessionCatalog> {
        self.catalogs.get_mut(name).ok_or_else(|| {
            StatementError::new(pos, format!("A catalog with name [{name}] does not exist."))
        })
    }

    /// CREATE CATALOG: a warehouse (Paimon filesystem, Iceberg Hadoop), a REST catalog service
    /// (Paimon `'metastore' = 'rest'`, Iceberg `'catalog-type' = 'rest'`: connected to now, its
    /// token kept in memory only), or Flink's in-memory catalog. The options were validated.
    pub(super) async fn create_catalog(
        &mut self,
        name: &Ident,
        options: &[OptionEntry],
    ) -> StatementResult<Outcome> {
        if self.catalogs.contains_key(&name.name) {
            return Err(StatementError::new(
                name.pos,
                format!("Catalog {} already exists.", name.name),
            ));
        }
        let is = |key: &str, value: &str| {
            option(options, key).is_some_and(|o| o.value.eq_ignore_ascii_case(value))
        };
        let kind = match option(options, "type").map(|o| o.value.to_ascii_lowercase()) {
            Some(t) if t == "paimon" => CatalogKind::Paimon,
            Some(t) if t == "iceberg" => CatalogKind::Iceberg,
            _ => CatalogKind::Memory,
        };
        let rest = match kind {
            CatalogKind::Paimon => is("metastore", "rest"),
            CatalogKind::Iceberg => is("catalog-type", "rest"),
            CatalogKind::Memory => false,
        };
        let mut catalog = SessionCatalog::memory();
        catalog.kind = kind;
        if rest {
            catalog.databases = BTreeSet::new();
            catalog.catalog = Some(self.connect(name, kind, options).await?);
        } else if kind != CatalogKind::Memory {
            catalog.databases = BTreeSet::from(["default".to_string()]);
            let warehouse = option(options, "warehouse").ok_or_else(|| {
                StatementError::new(
                    name.pos,
                    "a Paimon or Iceberg catalog needs a 'warehouse' option",
                )
            })?;
            let store = self
                .opener
                .open(&warehouse.value)
                .map_err(|e| at(warehouse.value_pos, e))?;
            catalog.catalog = Some(Catalog::warehouse(store, &warehouse.value));
        }
        self.catalogs.insert(name.name.clone(), catalog);
        Ok(done("Execute statement succeeded."))
    }

    /// Connects to the REST catalog service the options of catalog `name` describe (as the CLI
    /// does for a `paimon+rest://` or `iceberg+rest://` address).
    async fn connect(
        &self,
        name: &Ident,
        kind: CatalogKind,
        options: &[OptionEntry],
    ) -> StatementResult<Catalog> {
        let uri = option(options, "uri")
            .ok_or_else(|| StatementError::new(name.pos, "a REST catalog needs a 'uri' option"))?;
        let text = |key: &str| option(options, key).map(|o| o.value.clone());
        let address = match kind {
            CatalogKind::Iceberg => CatalogAddress::IcebergRest {
                uri: uri.value.clone(),
                warehouse: text("warehouse"),
                prefix: text("prefix"),
                oauth: ["oauth2-server-uri", "scope"]
                    .into_iter()
                    .filter_map(|k| text(k).map(|v| (k.to_string(), v)))
                    .collect(),
            },
            _ => CatalogAddress::PaimonRest {
                uri: uri.value.clone(),
                warehouse: text("warehouse").unwrap_or_default(),
            },
        };
        let secrets = CatalogSecrets {
            token: text("token"),
            credential: text("credential"),
        };
        self.connect_address(&name.name, &address, secrets)
            .await
            .map_err(|message| StatementError::new(uri.value_pos, message))
    }

    /// Connects to the catalog service at `address` for catalog `name` with the opener's
    /// transport; the error says why, without the secrets.
    async fn connect_address(
        &self,
        name: &str,
        address: &CatalogAddress,
        secrets: CatalogSecrets,
    ) -> Result<Catalog, String> {
        let service_uri = match address {
            CatalogAddress::PaimonRest { uri, .. } | CatalogAddress::IcebergRest { uri, .. } => uri,
            CatalogAddress::Warehouse(uri) => {
                return Err(format!("catalog {name}: {uri} is not a catalog service"))
            }
        };
        let refused =
            |e: &dyn std::fmt::Display| format!("catalog {name}: {e} (nothing was created)");
        let transport = self
            .opener
            .catalog_transport(service_uri)
            .map_err(|e| refused(&e))?;
        address
            .open(secrets, transport, self.opener.clone())
            .await
            .map_err(|e| refused(&e))
    }

    /// Connects to the catalog service at `address` as catalog `name` and makes it current
    /// (database `default`), as `CREATE CATALOG name WITH ('type'='paimon', 'metastore'='rest',
    /// …); USE CATALOG name` (or Iceberg's `'catalog-type'='rest'`) would: its tables' commits go
    /// through the service. The app's SQL console opens the page's catalog this way.
    pub async fn open_service(
        &mut self,
        name: &str,
        address: &CatalogAddress,
        secrets: CatalogSecrets,
    ) -> StatementResult<()> {
        let kind = match address {
            CatalogAddress::IcebergRest { .. } => CatalogKind::Iceberg,
            _ => CatalogKind::Paimon,
        };
        let service = self
            .connect_address(name, address, secrets)
            .await
            .map_err(|message| StatementError::new(Pos::default(), message))?;
        let mut catalog = SessionCatalog::memory();
        catalog.kind = kind;
        catalog.databases = BTreeSet::new();
        catalog.catalog = Some(service);
        self.catalogs.insert(name.to_string(), catalog);
        self.current_catalog = name.to_string();
        self.current_database = "default".to_string();
        Ok(())
    }

    /// USE CATALOG: its default database becomes current (`default`, or Flink's `default_database`).
    pub(super) fn use_catalog(&mut self, name: &Ident) -> StatementResult<Outcome> {
        let catalog = self.catalog(&name.name, name.pos)?;
        self.current_database = match catalog.kind {
            CatalogKind::Memory => DEFAULT_DATABASE.to_string(),
            _ => "default".to_string(),
        };
        self.current_catalog = name.name.clone();
        Ok(done("Execute statement succeeded."))
    }

    /// `db` or `catalog.db` → (catalog, database).
    fn database_name(&self, name: &ObjectName) -> StatementResult<(String, String)> {
        match name.parts.as_slice() {
            [db] => Ok((self.current_catalog.clone(), db.clone())),
            [catalog, db] => Ok((catalog.clone(), db.clone())),
            _ => Err(StatementError::new(
                name.pos,
                format!("'{name}' is not a database name (expected db or catalog.db)"),
            )),
        }
    }

    /// CREATE DATABASE.
    pub(super) async fn create_database(
        &mut self,
        c: &CreateDatabase,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let (catalog_name, db) = self.database_name(&c.name)?;
        let catalog = self.catalog(&catalog_name, c.name.pos)?;
        let exists = catalog
            .databases()
            .await
            .map_err(|e| at(pos, e))?
            .contains(&db);
        if exists {
            if c.if_not_exists {
                return Ok(done("Execute statement succeeded."));
            }
            return Err(StatementError::new(
                c.name.pos,
                format!("Database {db} already exists in Catalog {catalog_name}."),
            ));
        }
        // A catalog service keeps its databases and an Iceberg warehouse its namespaces'
        // markers; a Paimon warehouse's database is a folder, which an object store has only
        // once a table is written in it: the session remembers it meanwhile.
        let service = catalog.service().is_some();
        if service || catalog.kind == CatalogKind::Iceberg {
            let Some(keeper) = &catalog.catalog else {
                return Err(StatementError::new(
                    c.name.pos,
                    format!("catalog {catalog_name} has no warehouse"),
                ));
            };
            keeper
                .create_database(&db)
                .await
                .map_err(|e| at(c.name.pos, e))?;
        }
        if service {
            return Ok(done("Execute statement succeeded."));
        }
        self.catalog_mut(&catalog_name, pos)?.databases.insert(db);
        Ok(done("Execute statement succeeded."))
    }

    /// DROP DATABASE.
    pub(super) async fn drop_database(
        &mut self,
        name: &ObjectName,
        if_exists: bool,
        cascade: bool,
    ) -> StatementResult<Outcome> {
        let (catalog_name, db) = self.database_name(name)?;
        let catalog = self.catalog(&catalog_name, name.pos)?;
        let databases = catalog.databases().await.map_err(|e| at(name.pos, e))?;
        if !databases.contains(&db) {
            if if_exists {
                return Ok(done("Execute statement succeeded."));
            }
            return Err(StatementError::new(
                name.pos,
                format!("Database {db} does not exist in Catalog {catalog_name}."),
            ));
        }
        let tables = catalog.tables(&db).await.map_err(|e| at(name.pos, e))?;
        if !tables.is_empty() && !cascade {
            return Err(StatementError::new(
                name.pos,
                format!("Database {db} in catalog {catalog_name} is not empty."),
            ));
        }
        for table in tables {
            let object = ObjectName {
                parts: vec![catalog_name.clone(), db.clone(), table],
                pos: name.pos,
            };
            self.drop_table(&object, false, true).await?;
        }
        let catalog = self.catalog_mut(&catalog_name, name.pos)?;
        if let Some(service) = catalog.service() {
            service
                .drop_database(&db)
                .await
                .map_err(|e| at(name.pos, e))?;
        }
        catalog.databases.remove(&db);
        Ok(done("Execute statement succeeded."))
    }

    /// USE db / USE catalog.db.
    pub(super) async fn use_database(&mut self, name: &ObjectName) -> StatementResult<Outcome> {
        let (catalog_name, db) = self.database_name(name)?;
        let catalog = self.catalog(&catalog_name, name.pos)?;
        let databases = catalog.databases().await.map_err(|e| at(name.pos, e))?;
        if !databases.contains(&db) {
            return Err(StatementError::new(
                name.pos,
                format!(
                    "A database with name [{db}] does not exist in the catalog: [{catalog_name}]."
                ),
            ));
        }
        self.current_catalog = catalog_name;
        self.current_database = db;
        Ok(done("Execute statement succeeded."))
    }

    /// SHOW TABLES [FROM db].
    pub(super) async fn show_tables(
        &self,
        db: Option<&ObjectName>,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let (catalog_name, db) = match db {
            Some(name) => self.database_name(name)?,
            None => (self.current_catalog.clone(), self.current_database.clone()),
        };
        let catalog = self.catalog(&catalog_name, pos)?;
        let tables = catalog.tables(&db).await.map_err(|e| at(pos, e))?;
        Ok(show::names("table name", tables))
    }

    /// Resolves `t`, `db.t` or `catalog.db.t` (with an optional `$system` suffix).
    pub(super) async fn resolve(&self, name: &ObjectName) -> StatementResult<Resolved> {
        let (catalog_name, database, table) = match name.parts.as_slice() {
            [t] => (
                self.current_catalog.clone(),
                self.current_database.clone(),
                t.clone(),
            ),
            [db, t] => (self.current_catalog.clone(), db.clone(), t.clone()),
            [c, db, t] => (c.clone(), db.clone(), t.clone()),
            _ => {
                return Err(StatementError::new(
                    name.pos,
                    format!("'{name}' is not a table name (expected t, db.t or catalog.db.t)"),
                ))
            }
        };
        let (table, system) = match table.split_once('$') {
            Some((t, s)) => (t.to_string(), Some(normalize_suffix(s))),
            None => (table, None),
        };
        let catalog = self.catalog(&catalog_name, name.pos)?;
        let location = match catalog.tables.get(&(database.clone(), table.clone())) {
            Some(SessionTable::Paimon { store, path }) => Some(Location::Paimon(TableLocation {
                store: store.clone(),
                path: path.clone(),
                snapshot_commit: None,
                tag_source: None,
            })),
            Some(SessionTable::Connector(c, _)) => Some(Location::Connector(c.clone())),
            None => {
                let table_ref = TableRef {
                    database: database.clone(),
                    table: table.clone(),
                    system: None,
                };
                catalog.find(&table_ref, name.pos).await?
            }
        };
        let service = catalog.service().is_some();
        Ok(Resolved {
            catalog: catalog_name,
            database,
            table,
            system,
            location,
            service,
        })
    }
}
