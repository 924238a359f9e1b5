//! Opening a warehouse from the browser: URI checks, the catalog load, and plain-words errors.

use lakescope_engine::{Catalog, DatabaseEntry};
use lakescope_paimon::table::Table;
use lakescope_storage::{Error, HttpStore, IndexedStore, ObjectStore, INDEX_FILE_NAME};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

thread_local! {
    /// The catalog of the open warehouse (base URL, catalog).
    static CURRENT: RefCell<Option<(String, Catalog)>> = const { RefCell::new(None) };
    /// Opened Paimon tables by path (a table caches its manifests).
    static TABLES: RefCell<HashMap<String, Rc<Table>>> = RefCell::new(HashMap::new());
}

/// The catalog of the open warehouse.
pub fn catalog() -> Result<Catalog, String> {
    CURRENT
        .with(|c| c.borrow().as_ref().map(|(_, c)| c.clone()))
        .ok_or_else(|| "No warehouse is open.".to_string())
}

/// Opens (or returns the cached handle of) the Paimon table at `path` (`db.db/t`).
pub async fn table(path: &str) -> Result<Rc<Table>, String> {
    if let Some(t) = TABLES.with(|t| t.borrow().get(path).cloned()) {
        return Ok(t);
    }
    let store = catalog()?.store().clone();
    let table = Rc::new(
        Table::open(store, path)
            .await
            .map_err(|e| format!("Cannot open table {path}: {e}"))?,
    );
    TABLES.with(|t| t.borrow_mut().insert(path.to_string(), table.clone()));
    Ok(table)
}

/// Forgets cached table handles (reload: see new snapshots).
pub fn forget_tables() {
    TABLES.with(|t| t.borrow_mut().clear());
}

/// What kind of table lives at `path`, for the tree badge: (short label, title).
pub async fn table_kind(path: &str) -> (String, String) {
    let Ok(cat) = catalog() else {
        return ("?".into(), String::new());
    };
    if lakescope_iceberg::is_iceberg_table(cat.store().as_ref(), path).await {
        return ("iceberg".into(), "Apache Iceberg table".into());
    }
    match table(path).await {
        Ok(t) => {
            let schema = t.current_schema();
            if schema.primary_keys.is_empty() {
                ("append".into(), "Append table (no primary key)".into())
            } else {
                let engine = schema
                    .options
                    .get("merge-engine")
                    .cloned()
                    .unwrap_or_else(|| "deduplicate".into());
                let short = match engine.as_str() {
                    "deduplicate" => "dedup",
                    "partial-update" => "partial",
                    "aggregation" => "agg",
                    "first-row" => "first-row",
                    other => other,
                };
                (
                    format!("pk·{short}"),
                    format!(
                        "Primary key ({}), merge engine {engine}",
                        schema.primary_keys.join(", ")
                    ),
                )
            }
        }
        Err(e) => ("error".into(), e),
    }
}

/// The bundled demo lake, relative to the page.
pub const DEMO_WAREHOUSE: &str = "demo/warehouse/";

/// A warehouse whose catalog has been listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Warehouse {
    /// What the user typed.
    pub uri: String,
    /// The absolute base URL it resolved to (ends with `/`).
    pub base_url: String,
    /// Databases with their tables.
    pub databases: Vec<DatabaseEntry>,
}

impl Warehouse {
    /// Number of tables over all databases.
    pub fn table_count(&self) -> usize {
        self.databases.iter().map(|d| d.tables.len()).sum()
    }
}

/// Lists the databases and tables of the warehouse at `uri` (http(s) URL or page-relative path).
pub async fn open(uri: &str) -> Result<Warehouse, String> {
    let uri = uri.trim();
    if uri.is_empty() {
        return Err(format!(
            "Enter a warehouse URI, e.g. {DEMO_WAREHOUSE} (the bundled demo lake) or https://host/path/warehouse/"
        ));
    }
    if let Some((scheme, _)) = uri.split_once("://") {
        if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
            return Err(format!(
                "Cannot open {uri}: the browser app reads {scheme}:// warehouses only through an http(s) URL for now"
            ));
        }
    }
    let http = HttpStore::new(uri);
    let base_url = http.base_url().to_string();
    let store: Rc<dyn ObjectStore> = Rc::new(IndexedStore::new(http));
    let catalog = Catalog::new(store);
    let databases = catalog
        .tree()
        .await
        .map_err(|e| explain(uri, &base_url, &e))?;
    forget_tables();
    CURRENT.with(|c| *c.borrow_mut() = Some((base_url.clone(), catalog)));
    Ok(Warehouse {
        uri: uri.to_string(),
        base_url,
        databases,
    })
}

/// A sentence saying what failed and what to try.
fn explain(uri: &str, base_url: &str, error: &Error) -> String {
    match error {
        // IndexedStore reports a missing index as "cannot list": say it in the user's terms.
        Error::NotFound { .. } | Error::Unsupported { .. } => format!(
            "Could not list {uri}: there is no {INDEX_FILE_NAME} at {base_url} — static hosts cannot \
             list folders, so they need the index file at the warehouse root \
             (scripts/gen-index.py writes it)."
        ),
        Error::BadIndex { .. } => format!(
            "Could not list {uri}: {error} — regenerate it with scripts/gen-index.py."
        ),
        Error::PermissionDenied { .. } => format!("Could not list {uri}: {error}."),
        _ => format!(
            "Could not list {uri}: {error} — check the URL, and that the host allows this page's \
             origin (CORS)."
        ),
    }
}
