//! Opening a warehouse (http(s), s3://, opfs://) or a REST catalog from the browser: the catalog
//! load, the page's table handles, and plain-words errors.

use crate::state::catalog_service::{self, CatalogSettings, ServiceKind};
use crate::workers::sql::Connection;
use futures::future::{FutureExt, LocalBoxFuture, Shared};
use lakescope_engine::catalog::TableLocation;
use lakescope_engine::table::{Format, Table as AnyTable};
use lakescope_engine::{Catalog, CatalogAddress, DatabaseEntry, TableEntry, TableRef};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table::{Snapshots, Table};
use lakescope_storage::browser::{self, scheme, Scheme};
use lakescope_storage::uri::StoreOptions;
use lakescope_storage::{
    CachingStore, Error, IoCounts, IoMeter, MeteredStore, ObjectStore, OpfsStore, INDEX_FILE_NAME,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// A Paimon table being opened (or opened), shared by every view that asks for it meanwhile.
type Opening = Shared<LocalBoxFuture<'static, Result<Rc<Table>, String>>>;

/// The open warehouse: base URL (a catalog service: its address), catalog, store options, and
/// which service it is (`None`: a warehouse).
type Current = (String, Catalog, StoreOptions, Option<OpenService>);

/// A catalog service the page has open: which protocol, and how the SQL worker opens it too.
#[derive(Clone)]
pub struct OpenService {
    kind: ServiceKind,
    console: Connection,
}

/// A catalog service's answer to where a table's files are, shared by every view that asks.
type Locating = Shared<LocalBoxFuture<'static, Result<TableLocation, String>>>;

/// A table's latest snapshot read, started at `.0` (page milliseconds), shared by every view
/// that asks meanwhile.
type LatestRead = (
    f64,
    Shared<LocalBoxFuture<'static, Result<Option<Snapshot>, String>>>,
);

/// How long after it started a read of the latest snapshot stands for "latest" for the next view
/// that asks: the Overview's read serves the Data tab opened right after it (one round trip less,
/// and both tabs show the same snapshot). Commits through the page forget it ([`forget_tables`]).
const LATEST_REUSE_MS: f64 = 2_000.0;

/// How long a table's latest snapshot, once read, is worth planning ahead of the read that
/// confirms it when the table is opened (see [`prefetch`]): a table committed to since has most of
/// its manifests in common with it, so an older guess wastes little.
const KNOWN_LATEST_MAX_AGE_MS: f64 = 300_000.0;

/// Bytes of immutable objects (schemas, snapshots, manifests, small data files) the page keeps
/// from a static host or OPFS: each is read once, although several views read them at once.
const CACHE_BYTES: u64 = 32 << 20;

/// Paimon table handles the page keeps open (each with its decoded manifests, at most
/// `lakescope_paimon::table::MANIFEST_CACHE_BYTES` encoded bytes per kind); the least recently
/// asked for is closed first.
const TABLE_HANDLES: usize = 16;

thread_local! {
    /// The open warehouse (see [`Current`]).
    static CURRENT: RefCell<Option<Current>> = const { RefCell::new(None) };
    /// A catalog service's table locations by table path (`db/t`).
    static LOCATIONS: RefCell<HashMap<String, Locating>> = RefCell::new(HashMap::new());
    /// The open warehouse's cache of immutable objects (cleared with the table handles).
    static CACHE: RefCell<Option<Rc<CachingStore<MeteredStore>>>> = const { RefCell::new(None) };
    /// The format of each table path, probed once per warehouse (see [`format`]).
    static FORMATS: RefCell<HashMap<String, Format>> = RefCell::new(HashMap::new());
    /// Opened Paimon tables by path (a table caches its manifests), with when each was last
    /// asked for: at most [`TABLE_HANDLES`].
    static TABLES: RefCell<HashMap<String, (u64, Opening)>> = RefCell::new(HashMap::new());
    /// Counts asks for table handles (the clock of [`TABLES`]).
    static TABLE_TICK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// Latest-snapshot reads by table path (see [`latest_snapshot`]).
    static LATEST: RefCell<HashMap<String, LatestRead>> = RefCell::new(HashMap::new());
    /// The latest snapshot each table's last latest-snapshot read found, and when (page ms).
    static KNOWN_LATEST: RefCell<HashMap<String, (f64, Snapshot)>> = RefCell::new(HashMap::new());
    /// Every request of every warehouse opened in this page, for progress lines.
    static METER: Arc<IoMeter> = Arc::new(IoMeter::default());
    /// Stops the running [`prefetch`].
    static PREFETCH: RefCell<Option<futures::future::AbortHandle>> = const { RefCell::new(None) };
}

/// The page's warehouse I/O so far (subtract two readings for what happened in between).
pub fn io() -> IoCounts {
    METER.with(|m| m.read())
}

/// The catalog of the open warehouse.
pub fn catalog() -> Result<Catalog, String> {
    CURRENT
        .with(|c| c.borrow().as_ref().map(|(_, c, _, _)| c.clone()))
        .ok_or_else(|| "No warehouse is open.".to_string())
}

/// The store of the open warehouse.
pub fn store() -> Result<Rc<dyn ObjectStore>, String> {
    catalog()?.store().cloned().map_err(|e| e.to_string())
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

/// The `TableRef` of a catalog service's table path (`db/t`, see `Catalog::tables`).
fn service_ref(path: &str) -> Result<TableRef, String> {
    let (database, table) = path
        .split_once('/')
        .ok_or_else(|| format!("{path}: not a table of a catalog service (database/table)"))?;
    Ok(TableRef {
        database: database.to_string(),
        table: table.to_string(),
        system: None,
    })
}

/// Where the catalog service keeps the table at `path` (`db/t`); asked once per table and
/// shared, until [`forget_tables`].
async fn locate(path: &str) -> Result<TableLocation, String> {
    let locating = match LOCATIONS.with(|l| l.borrow().get(path).cloned()) {
        Some(locating) => locating,
        None => {
            let catalog = catalog()?;
            let table_ref = service_ref(path)?;
            let locating = async move {
                catalog
                    .locate(&table_ref)
                    .await
                    .map_err(|e| format!("Cannot open table {table_ref}: {e}"))
            }
            .boxed_local()
            .shared();
            LOCATIONS.with(|l| l.borrow_mut().insert(path.to_string(), locating.clone()));
            locating
        }
    };
    let result = locating.clone().await;
    if result.is_err() {
        LOCATIONS.with(|l| forget_failed(l, path, |o| o.ptr_eq(&locating)));
    }
    result
}

/// The store and key of the Paimon table at `path`: a folder of the warehouse, or where the
/// catalog service says.
async fn paimon_files(path: &str) -> Result<(Rc<dyn ObjectStore>, String), String> {
    if service().is_none() {
        return Ok((store()?, path.to_string()));
    }
    let location = locate(path).await?;
    Ok((location.store, location.path))
}

/// The Iceberg table at `path`, opened: from the warehouse's folder, or loaded through the
/// Iceberg REST catalog.
pub async fn iceberg_table(path: &str) -> Result<lakescope_iceberg::Table, String> {
    if service().is_none() {
        return lakescope_iceberg::Table::open(store()?, path)
            .await
            .map_err(|e| {
                format!(
                    "Reading the Iceberg metadata of {path} failed: {e}. Check that metadata/ \
                     holds the table's *.metadata.json files and that the warehouse listing is \
                     up to date."
                )
            });
    }
    let table_ref = service_ref(path)?;
    match catalog()?.open_iceberg(&table_ref).await {
        Ok(Some(table)) => Ok(table),
        Ok(None) => Err(format!("{table_ref} is not an Iceberg table")),
        Err(e) => Err(format!(
            "Cannot load table {table_ref} from the catalog: {e}"
        )),
    }
}

/// The format of the table at `path`, decided once per table: an Iceberg REST catalog holds
/// only Iceberg tables, a Paimon REST catalog none; a warehouse folder is probed for Iceberg
/// metadata the first time.
pub async fn format(path: &str) -> Format {
    if let Some(known) = FORMATS.with(|f| f.borrow().get(path).copied()) {
        return known;
    }
    let iceberg = match service() {
        Some(kind) => kind == ServiceKind::Iceberg,
        None => match store() {
            Ok(s) => lakescope_iceberg::is_iceberg_table(s.as_ref(), path).await,
            Err(_) => return Format::Paimon,
        },
    };
    let format = if iceberg {
        Format::Iceberg
    } else {
        Format::Paimon
    };
    FORMATS.with(|f| f.borrow_mut().insert(path.to_string(), format));
    format
}

/// Whether the table at `path` is an Iceberg table (see [`format`]).
pub async fn is_iceberg(path: &str) -> bool {
    format(path).await == Format::Iceberg
}

/// The table at `path` behind the engine's format-neutral API: a Paimon table's shared handle
/// ([`table`]), an Iceberg table's metadata ([`iceberg_table`]).
pub async fn any_table(path: &str) -> Result<AnyTable, String> {
    Ok(match format(path).await {
        Format::Paimon => AnyTable::Paimon(table(path).await?),
        Format::Iceberg => AnyTable::Iceberg(Rc::new(iceberg_table(path).await?)),
    })
}

/// Opens (or returns the cached handle of) the Paimon table at `path` (`db.db/t`); views that
/// ask while it is being opened share that open.
pub async fn table(path: &str) -> Result<Rc<Table>, String> {
    let tick = TABLE_TICK.with(|t| {
        t.set(t.get() + 1);
        t.get()
    });
    let cached = TABLES.with(|t| {
        t.borrow_mut().get_mut(path).map(|(used, opening)| {
            *used = tick;
            opening.clone()
        })
    });
    let opening = match cached {
        Some(opening) => opening,
        None => {
            let key = path.to_string();
            let opening = async move {
                if service().is_some() {
                    let location = locate(&key).await?;
                    return location
                        .open()
                        .await
                        .map(Rc::new)
                        .map_err(|e| format!("Cannot open table {key}: {e}"));
                }
                Table::open(store()?, &key)
                    .await
                    .map(Rc::new)
                    .map_err(|e| format!("Cannot open table {key}: {e}"))
            }
            .boxed_local()
            .shared();
            TABLES.with(|t| {
                let mut tables = t.borrow_mut();
                tables.insert(path.to_string(), (tick, opening.clone()));
                while tables.len() > TABLE_HANDLES {
                    let oldest = tables.iter().min_by_key(|(_, (used, _))| *used);
                    let Some(oldest) = oldest.map(|(k, _)| k.clone()) else {
                        break;
                    };
                    tables.remove(&oldest);
                }
            });
            opening
        }
    };
    let result = opening.clone().await;
    if result.is_err() {
        TABLES.with(|t| forget_failed(t, path, |(_, o)| o.ptr_eq(&opening)));
    }
    result
}

/// The latest snapshot of the Paimon table at `path` (`None`: it has none), read without opening
/// the table (see `Snapshots::latest`). A read started less than [`LATEST_REUSE_MS`] ago is
/// shared, finished or not; it goes on when the view that started it goes away.
pub async fn latest_snapshot(path: &str) -> Result<Option<Snapshot>, String> {
    let now = js_sys::Date::now();
    let recent = LATEST.with(|l| {
        l.borrow()
            .get(path)
            .filter(|(started, _)| now - started < LATEST_REUSE_MS)
            .map(|(_, read)| read.clone())
    });
    let read = match recent {
        Some(read) => read,
        None => {
            let key = path.to_string();
            let read = async move {
                let (store, table_key) = paimon_files(&key).await?;
                let latest = Snapshots::new(store.as_ref(), &table_key)
                    .latest()
                    .await
                    .map_err(|e| format!("Cannot read the latest snapshot of {key}: {e}"))?;
                if let Some(snapshot) = &latest {
                    let found = (js_sys::Date::now(), snapshot.clone());
                    KNOWN_LATEST.with(|k| k.borrow_mut().insert(key.clone(), found));
                }
                Ok(latest)
            }
            .boxed_local()
            .shared();
            LATEST.with(|l| l.borrow_mut().insert(path.to_string(), (now, read.clone())));
            read
        }
    };
    let result = read.clone().await;
    if result.is_err() {
        LATEST.with(|l| forget_failed(l, path, |(_, r)| r.ptr_eq(&read)));
    }
    result
}

/// Drops `path`'s entry of `shared` if it is still the read that failed (`is_failed`), so that
/// the next view tries again; a newer read that replaced it meanwhile stays.
fn forget_failed<V>(
    shared: &RefCell<HashMap<String, V>>,
    path: &str,
    is_failed: impl FnOnce(&V) -> bool,
) {
    let mut reads = shared.borrow_mut();
    if reads.get(path).is_some_and(is_failed) {
        reads.remove(path);
    }
}

/// Forgets cached table handles and cached objects (reload, or after a commit: see new
/// snapshots; a dropped and re-created table or a rollback can write an object name again).
pub fn forget_tables() {
    TABLES.with(|t| t.borrow_mut().clear());
    FORMATS.with(|f| f.borrow_mut().clear());
    LOCATIONS.with(|l| l.borrow_mut().clear());
    LATEST.with(|l| l.borrow_mut().clear());
    KNOWN_LATEST.with(|k| k.borrow_mut().clear());
    CACHE.with(|c| {
        if let Some(cache) = c.borrow().as_ref() {
            cache.clear();
        }
    });
}

/// What kind of table lives at `path`, for the tree badge: (short label, title).
pub async fn table_kind(path: &str) -> (String, String) {
    if is_iceberg(path).await {
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

/// Starts reading what every view of the Paimon table at `path` reads first: the table, its
/// latest snapshot and that snapshot's manifests (a link to a table: while the page draws the
/// catalog; a click on a table: before the page draws it). The table keeps the manifests it
/// decoded. A snapshot read as latest in the last [`KNOWN_LATEST_MAX_AGE_MS`] (see
/// [`read_latest_snapshots`]) is planned at once, beside the read that finds the latest now: the
/// views still wait for that read, and plan what it finds, so a newer snapshot only costs the
/// guess's requests. A prefetch of another table stops this one; any prefetch stops the warm-up.
pub fn prefetch(path: &str) {
    crate::state::warm_up::stop();
    let path = path.to_string();
    let (abort, registration) = futures::future::AbortHandle::new_pair();
    if let Some(previous) = PREFETCH.with(|p| p.replace(Some(abort))) {
        previous.abort();
    }
    let work = async move {
        if is_iceberg(&path).await {
            return;
        }
        let guess = recent_latest(&path);
        let plan_guess = async {
            if let (Some(snapshot), Ok(t)) = (&guess, table(&path).await) {
                let _ = plan(&t, snapshot, &PartitionFilter::All).await;
            }
        };
        let plan_latest = async {
            if let (Ok(t), Ok(Some(snapshot))) =
                futures::join!(table(&path), latest_snapshot(&path))
            {
                if guess.as_ref().map(|g| g.id) != Some(snapshot.id) {
                    let _ = plan(&t, &snapshot, &PartitionFilter::All).await;
                }
            }
        };
        futures::join!(plan_guess, plan_latest);
    };
    leptos::task::spawn_local(async move {
        let _ = futures::future::Abortable::new(work, registration).await;
    });
}

/// The snapshot `path`'s latest-snapshot read found less than [`KNOWN_LATEST_MAX_AGE_MS`] ago.
fn recent_latest(path: &str) -> Option<Snapshot> {
    let now = js_sys::Date::now();
    KNOWN_LATEST.with(|k| {
        k.borrow()
            .get(path)
            .filter(|(found, _)| now - found < KNOWN_LATEST_MAX_AGE_MS)
            .map(|(_, snapshot)| snapshot.clone())
    })
}

/// Reads the latest snapshot of each Paimon table at `paths`, [`IDLE_READS_AT_ONCE`] at a time
/// (the page is idle: a table opened later plans it while confirming it, see [`prefetch`]).
/// Failures are left to the views that read these tables. A catalog service's tables are not
/// read ahead (each would cost the service a lookup).
pub async fn read_latest_snapshots(paths: &[String]) {
    let Ok(warehouse) = store() else { return };
    for group in paths.chunks(IDLE_READS_AT_ONCE) {
        futures::future::join_all(group.iter().map(|path| {
            let store = warehouse.clone();
            async move {
                if !lakescope_iceberg::is_iceberg_table(store.as_ref(), path).await {
                    let _ = latest_snapshot(path).await;
                }
            }
        }))
        .await;
    }
}

/// Tables whose latest snapshot [`read_latest_snapshots`] reads at a time (three small requests
/// each on a static host; HTTP/1.1 allows six connections per host).
const IDLE_READS_AT_ONCE: usize = 2;

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
    let cache = Rc::new(
        CachingStore::new(
            MeteredStore::new(
                browser::open(uri, &uncached).map_err(|e| format!("Cannot open {uri}: {e}."))?,
                METER.with(Arc::clone),
            ),
            capacity,
        )
        .with_background(Rc::new(leptos::task::spawn_local)),
    );
    let store: Rc<dyn ObjectStore> = cache.clone();
    let mut base_url = store.describe();
    if !base_url.ends_with('/') {
        base_url.push('/');
    }
    let catalog = Catalog::new(store);
    let databases = catalog.tree().await.map_err(|e| match e {
        lakescope_engine::Error::Storage(e) => explain(uri, kind, &base_url, options, &e),
        other => other.to_string(),
    })?;
    forget_tables();
    CACHE.with(|c| *c.borrow_mut() = Some(cache));
    CURRENT.with(|c| *c.borrow_mut() = Some((base_url.clone(), catalog, options.clone(), None)));
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
    CURRENT.with(|c| {
        *c.borrow_mut() = Some((uri.to_string(), catalog, options.clone(), Some(service)))
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
