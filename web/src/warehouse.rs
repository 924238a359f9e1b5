//! Opening a warehouse from the browser: URI checks, the catalog load, and plain-words errors.

use lakescope_engine::{Catalog, DatabaseEntry};
use lakescope_storage::{Error, HttpStore, IndexedStore, ObjectStore, INDEX_FILE_NAME};
use std::rc::Rc;

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
    let databases = Catalog::new(store)
        .tree()
        .await
        .map_err(|e| explain(uri, &base_url, &e))?;
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

/// The `?warehouse=` parameter of the page URL, if any.
pub fn uri_from_page() -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    params.get("warehouse").filter(|s| !s.trim().is_empty())
}

/// Records `uri` as the page's `?warehouse=` parameter so the view can be linked and reloaded.
pub fn remember_uri(uri: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(href) = window.location().href() else {
        return;
    };
    let Ok(url) = web_sys::Url::new(&href) else {
        return;
    };
    url.search_params().set("warehouse", uri);
    if let Ok(history) = window.history() {
        // Failing to update the address bar is harmless: the view itself is already right.
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url.href()));
    }
}
