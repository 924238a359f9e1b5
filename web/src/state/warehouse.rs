//! Opening a warehouse (http(s), s3://, opfs://) or a REST catalog from the browser: the catalog
//! load, the page's table handles, and plain-words errors.

use crate::state::catalog_service::{self, CatalogSettings, ServiceKind};
use crate::workers::sql::Connection;
use lakescope_engine::open_tables::{OpenTables, TableBadge};
use lakescope_engine::table::{Format, Table as AnyTable};
use lakescope_engine::{Catalog, CatalogAddress, DatabaseEntry, TableEntry};
use lakescope_storage::browser::{self, scheme, Scheme};
use lakescope_storage::clock::system_clock;
use lakescope_storage::uri::StoreOptions;
use lakescope_storage::{
    CachingStore, Error, IoCounts, IoMeter, MeteredStore, ObjectStore, OpfsStore, PersistentCache,
    INDEX_FILE_NAME,
};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// The open warehouse: base URL (a catalog service: its address), its open tables (with the
/// catalog), store options, and which service it is (`None`: a warehouse).
type Current = (String, OpenTables, StoreOptions, Option<OpenService>);

/// A catalog service the page has open: which protocol, and how the SQL worker opens it too.
#[derive(Clone)]
pub struct OpenService {
    kind: ServiceKind,
    console: Connection,
}

/// Bytes of immutable objects (schemas, snapshots, manifests, small data files) the page keeps
/// from a static host or OPFS: each is read once, although several views read them at once.
const CACHE_BYTES: u64 = 32 << 20;

/// Bytes of uniquely named objects (manifests, manifest lists, data files) of web hosts and S3
/// kept across visits in the browser's Cache API, for all warehouses of the page's origin
/// (`PersistentCache`, oldest out first). Off when `localStorage["lakescope.object-cache"]` is
/// `"off"`.
const PERSISTENT_CACHE_BYTES: u64 = 256 << 20;

/// [`PERSISTENT_CACHE_BYTES`] for a warehouse of kind `kind`, or 0 (off: OPFS is local already).
fn persistent_cache_bytes(kind: Scheme) -> u64 {
    let off = web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item("lakescope.object-cache").ok().flatten())
        .is_some_and(|v| v == "off");
    match kind {
        Scheme::Http | Scheme::S3 if !off => PERSISTENT_CACHE_BYTES,
        _ => 0,
    }
}

thread_local! {
    /// The open warehouse (see [`Current`]).
    static CURRENT: RefCell<Option<Current>> = const { RefCell::new(None) };
    /// The open warehouse's cache of immutable objects (cleared with the table handles).
    static CACHE: RefCell<Option<Rc<CachingStore<PersistentCache<MeteredStore>>>>> =
        const { RefCell::new(None) };
    /// Every request of every warehouse opened in this page, for progress lines.
    static METER: Arc<IoMeter> = Arc::new(IoMeter::default());
    /// Stops the running [`prefetch`].
    static PREFETCH: RefCell<Option<futures::future::AbortHandle>> = const { RefCell::new(None) };
}

/// The page's warehouse I/O so far (subtract two readings for what happened in between).
pub fn io() -> IoCounts {
    METER.with(|m| m.read())
}

/// The open tables of the open warehouse (the engine's shared handles, formats and latest
/// snapshots: `lakescope_engine::open_tables`).
pub fn tables() -> Result<OpenTables, String> {
    CURRENT
        .with(|c| c.borrow().as_ref().map(|(_, t, _, _)| t.clone()))
        .ok_or_else(|| "No warehouse is open.".to_string())
}

/// The catalog of the open warehouse.
pub fn catalog() -> Result<Catalog, String> {
    Ok(tables()?.catalog().clone())
}

/// Which catalog service is open (`None`: a warehouse, or nothing).
pub fn service() -> Option<ServiceKind> {
    CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|(_, _, _, service)| service.as_ref().map(|s| s.kind))
    })
}

/// The open warehouse's base URL and options, for the SQL worker's uploads and compaction,
/// which write files into a warehouse: a REST catalog is refused by name (see
/// [`read_only_note`]).
pub fn connection() -> Result<(String, StoreOptions), String> {
    match console()? {
        Connection::Warehouse { base_url, options } => Ok((base_url, options)),
        Connection::Catalog { .. } => Err(read_only_note("write files")),
    }
}

/// What the SQL console's session opens as its current catalog: the open warehouse, or the open
/// REST catalog service (with the secrets the page holds), whose tables its statements commit
/// through.
pub fn console() -> Result<Connection, String> {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some((_, _, _, Some(service))) => Ok(service.console.clone()),
        Some((base_url, _, options, None)) => Ok(Connection::Warehouse {
            base_url: base_url.clone(),
            options: options.clone(),
        }),
        None => Err("No warehouse is open.".to_string()),
    })
}

/// Whether the open warehouse takes writes from the page's buttons: `opfs://` and `s3://` (a
/// static web host is read-only; an S3 bucket without write access fails the write with the
/// store's error; a REST catalog's tables are written only by the SQL tab, see
/// [`read_only_note`]).
pub fn is_writable() -> bool {
    connection().is_ok_and(|(url, _)| {
        ["opfs://", "s3://", "s3a://"]
            .iter()
            .any(|s| url.starts_with(s))
    })
}

/// Why the open warehouse takes no writes from the page's buttons, in the user's words
/// (`action`: what the user wanted to do, e.g. "insert files").
pub fn read_only_note(action: &str) -> String {
    match service() {
        Some(kind) => format!(
            "The page cannot {action} through a REST catalog yet: use the SQL tab (its INSERT, \
             UPDATE, DELETE, CALL sys.create_tag and DDL statements commit through the {} \
             catalog), or `lakescope insert` with --catalog-token.",
            kind.name()
        ),
        None => {
            format!("Read-only warehouse: open an opfs:// copy or an S3 warehouse to {action}.")
        }
    }
}

/// The table at `path` behind the engine's format-neutral API: a Paimon table's shared handle,
/// an Iceberg table's metadata (`OpenTables::table`).
pub async fn any_table(path: &str) -> Result<AnyTable, String> {
    let tables = tables()?;
    // decided once per table, so asking here costs nothing more
    let warehouse_iceberg = service().is_none() && tables.format(path).await == Format::Iceberg;
    tables.table(path).await.map_err(|e| {
        if warehouse_iceberg {
            format!(
                "Reading the Iceberg metadata of {path} failed: {e}. Check that metadata/ \
                 holds the table's *.metadata.json files and that the warehouse listing is \
                 up to date."
            )
        } else {
            e.to_string()
        }
    })
}

/// The latest snapshot of the Paimon table at `path` (`None`: it has none), shared with the
/// views that ask within a moment (`OpenTables::latest_snapshot`).
pub async fn latest_snapshot(
    path: &str,
) -> Result<Option<lakescope_engine::open_tables::Snapshot>, String> {
    let tables = tables()?;
    tables
        .latest_snapshot(path)
        .await
        .map_err(|e| e.to_string())
}

/// Forgets cached table handles and cached objects (reload, or after a commit: see new
/// snapshots; a dropped and re-created table or a rollback can write an object name again).
pub fn forget_tables() {
    if let Ok(tables) = tables() {
        tables.forget();
    }
    CACHE.with(|c| {
        if let Some(cache) = c.borrow().as_ref() {
            cache.clear();
        }
    });
}

/// What kind of table lives at `path`, for the tree badge: (short label, title).
pub async fn table_kind(path: &str) -> (String, String) {
    match tables() {
        Ok(tables) => {
            let TableBadge { label, title } = tables.badge(path).await;
            (label, title)
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
    /// The absolute base URL, `s3://bucket/prefix/` or `opfs://name/` it resolved to (ends with `/`).
    pub base_url: String,
    /// Databases with their tables.
    pub databases: Vec<DatabaseEntry>,
}

impl Warehouse {
    /// Number of tables over all databases.
    pub fn table_count(&self) -> usize {
        self.databases.iter().map(|d| d.tables.len()).sum()
    }

    /// The table `db.table` of the catalog.
    pub fn find_table(&self, name: &str) -> Option<(&str, &TableEntry)> {
        let (db, table) = name.split_once('.')?;
        let database = self.databases.iter().find(|d| d.name == db)?;
        let entry = database.tables.iter().find(|t| t.name == table)?;
        Some((&database.name, entry))
    }
}

/// Starts reading what every view of the Paimon table at `path` reads first (its handle, its
/// latest snapshot and that snapshot's manifests: `OpenTables::prefetch`), when a link to a
/// table shows or a table is clicked. A prefetch of another table stops this one; any prefetch
/// stops the warm-up.
pub fn prefetch(path: &str) {
    crate::state::warm_up::stop();
    let Ok(tables) = tables() else { return };
    let path = path.to_string();
    let (abort, registration) = futures::future::AbortHandle::new_pair();
    if let Some(previous) = PREFETCH.with(|p| p.replace(Some(abort))) {
        previous.abort();
    }
    leptos::task::spawn_local(async move {
        let work = tables.prefetch(&path);
        let _ = futures::future::Abortable::new(work, registration).await;
    });
}

/// Reads the latest snapshot of the Paimon tables at `paths` while the page is idle
/// (`OpenTables::read_latest_snapshots`).
pub async fn read_latest_snapshots(paths: &[String]) {
    if let Ok(tables) = tables() {
        tables.read_latest_snapshots(paths).await;
    }
}

/// Lists the databases and tables of the warehouse at `uri`: an http(s) URL or page-relative
/// path, `s3://bucket/prefix` (reached as `options` say) or `opfs://name`.
pub async fn open(
    uri: &str,
    options: &StoreOptions,
    settings: &CatalogSettings,
) -> Result<Warehouse, String> {
    let uri = uri.trim();
    if uri.is_empty() {
        return Err(format!(
            "Enter a warehouse URI, e.g. {DEMO_WAREHOUSE} (the bundled demo lake), \
             https://host/path/warehouse/, s3://bucket/warehouse or opfs://my-lake, or a REST \
             catalog: paimon+rest://HOST:PORT/WAREHOUSE or iceberg+rest://HOST:PORT?prefix=P"
        ));
    }
    match CatalogAddress::parse(uri) {
        Ok(CatalogAddress::Warehouse(_)) => {}
        Ok(address) => return open_service(uri, &address, options, settings).await,
        Err(e) => return Err(format!("Cannot open {uri}: {e}.")),
    }
    let kind = scheme(uri).map_err(|e| format!("Cannot open {uri}: {e}."))?;
    if kind == Scheme::Opfs {
        let opfs = OpfsStore::from_uri(uri).map_err(|e| format!("Cannot open {uri}: {e}."))?;
        let exists = opfs
            .exists()
            .await
            .map_err(|e| format!("Cannot open {uri}: {e}."))?;
        if !exists {
            return Err(format!(
                "There is no warehouse {uri} in this browser yet: create it empty, or copy the \
                 demo lake into it (buttons under the warehouse bar)."
            ));
        }
    }
    // The page's one cache, cleared by `forget_tables` (so not the s3 store's own): s3 keeps its
    // configured size, static hosts and OPFS a smaller one.
    let capacity = match kind {
        Scheme::S3 => options.cache_bytes,
        _ => options.cache_bytes.min(CACHE_BYTES),
    };
    let uncached = StoreOptions {
        cache_bytes: 0,
        ..options.clone()
    };
    // Reads go on when the view that started them closes (the Overview a click on the Data tab
    // replaces): the Data tab takes them over instead of sending them again.
    let metered = MeteredStore::new(
        browser::open(uri, &uncached).map_err(|e| format!("Cannot open {uri}: {e}."))?,
        METER.with(Arc::clone),
    );
    let root = metered.describe();
    let cache = Rc::new(
        CachingStore::new(
            PersistentCache::new(metered, &root, persistent_cache_bytes(kind)),
            capacity,
        )
        .with_background(Rc::new(leptos::task::spawn_local)),
    );
    let store: Rc<dyn ObjectStore> = cache.clone();
    let mut base_url = store.describe();
    if !base_url.ends_with('/') {
        base_url.push('/');
    }
    let catalog = Catalog::browse(store);
    let databases = catalog.tree().await.map_err(|e| match e {
        lakescope_engine::Error::Storage(e) => explain(uri, kind, &base_url, options, &e),
        other => other.to_string(),
    })?;
    forget_tables();
    CACHE.with(|c| *c.borrow_mut() = Some(cache));
    let tables = OpenTables::new(catalog, system_clock());
    CURRENT.with(|c| *c.borrow_mut() = Some((base_url.clone(), tables, options.clone(), None)));
    Ok(Warehouse {
        uri: uri.to_string(),
        base_url,
        databases,
    })
}

/// Connects to the REST catalog at `address` (typed as `uri`) and lists its databases and
/// tables; its tables' files are opened with `options` (S3 settings) and `settings`.
async fn open_service(
    uri: &str,
    address: &CatalogAddress,
    options: &StoreOptions,
    settings: &CatalogSettings,
) -> Result<Warehouse, String> {
    let meter = METER.with(Arc::clone);
    let (catalog, kind) = catalog_service::open(address, options, settings, meter).await?;
    let service = OpenService {
        kind,
        console: Connection::Catalog {
            address: address.clone(),
            secrets: catalog_service::secrets(settings),
            options: options.clone(),
            served: catalog_service::served(settings),
        },
    };
    let databases = match catalog.tree().await {
        Ok(databases) => databases,
        Err(e) => return Err(catalog_service::explain(uri, address, &e).await),
    };
    forget_tables();
    CACHE.with(|c| *c.borrow_mut() = None);
    let tables = OpenTables::new(catalog, system_clock());
    CURRENT.with(|c| {
        *c.borrow_mut() = Some((uri.to_string(), tables, options.clone(), Some(service)))
    });
    Ok(Warehouse {
        uri: uri.to_string(),
        base_url: uri.to_string(),
        databases,
    })
}

/// A sentence saying what failed and what to try.
fn explain(
    uri: &str,
    kind: Scheme,
    base_url: &str,
    options: &StoreOptions,
    error: &Error,
) -> String {
    match kind {
        Scheme::S3 => explain_s3(uri, options, error),
        Scheme::Opfs | Scheme::Memory => format!("Could not list {uri}: {error}."),
        Scheme::Http => explain_http(uri, base_url, error),
    }
}

fn explain_s3(uri: &str, options: &StoreOptions, error: &Error) -> String {
    let endpoint = options
        .s3_endpoint
        .clone()
        .unwrap_or_else(|| "AWS S3".to_string());
    let origin = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default();
    match error {
        Error::PermissionDenied { .. } => {
            let what = if options.presign_endpoint.is_some() {
                "the presign endpoint's URLs were refused: check that server's credentials"
            } else if options.credentials.is_some() {
                "check the access key ID, the secret key, the session token and the region"
            } else {
                "no credentials were given: enter access keys or a presign endpoint, unless the \
                 bucket is public"
            };
            format!(
                "Access denied to {uri} (HTTP 403): {what}. The bucket's CORS rules must also allow \
                 this page ({origin}). Details: {error}."
            )
        }
        Error::NotFound { .. } => format!(
            "The bucket of {uri} does not exist at {endpoint}: check the bucket name, the endpoint \
             and path-style addressing."
        ),
        Error::Io { message, .. }
            if message.contains("network error") || message.contains("CORS") =>
        {
            format!(
                "Could not reach {endpoint} for {uri}: the server is not running, the bucket does \
                 not exist (a browser sees a missing bucket as a CORS failure), or the bucket's \
                 CORS rules do not allow this page's origin ({origin}) with the methods GET, PUT, \
                 DELETE and HEAD (README: \"S3 from the browser\"). Details: {error}."
            )
        }
        _ => format!("Could not list {uri}: {error}."),
    }
}

fn explain_http(uri: &str, base_url: &str, error: &Error) -> String {
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
