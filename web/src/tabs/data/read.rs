//! The Data tab's read: a query streamed batch by batch into the grid's frame, with the status
//! line's state, and a BLOB cell's download.

use crate::app::Selection;
use crate::state::warehouse;
use crate::tabs::panel::table_ref;
use crate::util::{download_bytes, yield_to_browser, Frame};
use crate::widgets::grid::BlobDownload;
use crate::workers::scan_pool::{self, Flow};
use crate::workers::scan_serve::PoolWarehouse;
use crate::workers::sql::Connection;
use lakescope_engine::blob::BlobRef;
use lakescope_engine::scan::parse_filter;
use lakescope_engine::shared_read::SharedRead;
use lakescope_engine::table::Format;
use lakescope_engine::Version;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

/// What the grid reads: the route's version, filter, columns and audit-log switch.
#[derive(Clone, PartialEq)]
pub struct Query {
    pub at: Version,
    pub filter: String,
    pub cols: String,
    pub audit: bool,
}

/// Where the grid's read stands (the status line).
#[derive(Clone, PartialEq)]
pub enum Status {
    Idle,
    Loading {
        rows: usize,
        split: usize,
        splits: usize,
    },
    Done {
        rows: usize,
        ms: f64,
        snapshot: Option<i64>,
        cancelled: bool,
        /// Splits the scan workers read.
        by_workers: usize,
        /// The bound of held rows' bytes the read stopped at ([`held_bytes_bound`]).
        held_at: Option<u64>,
    },
    Failed(String),
}

/// Milliseconds since the epoch (the browser's clock).
pub fn now() -> f64 {
    js_sys::Date::now()
}

/// A BLOB cell's download: its bytes are fetched only then (one range read of the `.blob` file,
/// checked as `read::blob::fetch` checks it); an error shows in the status line.
pub fn blob_download(status: RwSignal<Status>) -> BlobDownload {
    Arc::new(move |reference: BlobRef| {
        spawn_local(async move {
            let fetched = match warehouse::catalog() {
                Ok(catalog) => catalog
                    .fetch_blob(&reference)
                    .await
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e),
            };
            match fetched {
                Ok(bytes) => {
                    let file = reference.file.rsplit('/').next().unwrap_or("blob");
                    download_bytes(&format!("{file}-{}.bin", reference.offset), &bytes);
                }
                Err(e) => status.set(Status::Failed(e)),
            }
        })
    })
}

/// Bytes of data files a read must have before the scan workers share it (the page reads
/// smaller ones alone: on the demo lake's tables, a few MiB, workers made reads slower).
const POOL_MIN_BYTES: u64 = 16 * 1024 * 1024;

/// Minimum milliseconds between two grid updates while rows stream in.
const GRID_REFRESH_MS: f64 = 250.0;

/// MiB of rows (Arrow memory) the Data tab holds unless the address asks for another bound
/// (`?grid-mib=N`): a read stops there and says so. A page's wasm memory ends at 4 GiB, the
/// caches and a merge's own batches live beside the rows, and an export copies them again as
/// text; the perf tables of docs/benchmarks.md (5,000,000 rows) fit.
const HELD_MIB: f64 = 512.0;

thread_local! {
    static HELD_BOUND: std::cell::OnceCell<u64> = const { std::cell::OnceCell::new() };
}

/// Bytes of rows the Data tab holds at most: `?grid-mib=N` of the address the page was loaded
/// at (a positive number of MiB), else [`HELD_MIB`].
pub fn held_bytes_bound() -> u64 {
    HELD_BOUND.with(|bound| {
        *bound.get_or_init(|| {
            let mib = crate::util::address_param("grid-mib")
                .and_then(|m| m.trim().parse::<f64>().ok())
                .filter(|m| m.is_finite() && *m > 0.0)
                .unwrap_or(HELD_MIB);
            (mib * 1024.0 * 1024.0) as u64
        })
    })
}

/// How a read ended: its rows, the snapshot read, the splits the scan workers read, and the
/// bound of held bytes it stopped at.
pub struct Loaded {
    pub rows: usize,
    pub snapshot: Option<i64>,
    pub by_workers: usize,
    pub held_at: Option<u64>,
}

/// Reads the query into `frame`, batch by batch (the first merged batch shows at once, an Iceberg
/// table's first data file's rows too; a Paimon branch is read whole by the engine). A Paimon
/// table of a warehouse is read by the page and the scan workers at once
/// (`workers::scan_pool`), its rows in the same order.
pub async fn load(
    sel: &Selection,
    q: &Query,
    frame: RwSignal<Option<Arc<Frame>>>,
    status: RwSignal<Status>,
    current: &dyn Fn() -> bool,
) -> Result<Loaded, String> {
    let filter = if q.filter.trim().is_empty() {
        None
    } else {
        Some(parse_filter(&q.filter).map_err(|e| format!("Filter: {e}"))?)
    };
    let columns =
        (!q.cols.is_empty()).then(|| q.cols.split(',').map(str::to_string).collect::<Vec<_>>());
    let path = &sel.table.path;
    let format = sel.table.format;
    // A Paimon table's latest snapshot needs no schema: it is read while the table opens.
    let latest = async {
        match (&q.at, format) {
            (Version::Latest, Format::Paimon) => warehouse::latest_snapshot(path).await,
            _ => Ok(None),
        }
    };
    let (t, latest) = futures::join!(warehouse::any_table(path), latest);
    let (t, latest) = (t?, latest?);
    let scan = || {
        let scan = t
            .scan(table_ref(sel, None))
            .at(q.at.clone())
            .select(columns.clone())
            .filter(filter.clone())
            .audit_log(q.audit)
            .first_rows();
        if q.at == Version::Latest && format == Format::Paimon {
            scan.latest_snapshot(latest.clone())
        } else {
            scan
        }
    };
    let pool = match (format, q.at.branch(), warehouse::console()) {
        (Format::Paimon, None, Ok(Connection::Warehouse { base_url, options }))
            if scan_pool::readers() > 1 =>
        {
            Some(PoolWarehouse { base_url, options })
        }
        _ => None,
    };
    if let Some(pool_warehouse) = pool {
        let filter_text = filter.is_some().then(|| q.filter.clone());
        // Whole files, not pieces of rows: over HTTP each piece costs its own footer and
        // page-index requests (docs/benchmarks.md, P8 "Browser").
        let shared = scan()
            .shared(filter_text, 1)
            .await
            .map_err(|e| e.to_string())?;
        if let Some(read) = shared {
            // A small read is over before workers would have planned it (and the page's cache
            // holds what it read before): the page reads it alone, unless the address asked
            // for readers (`?threads=N`).
            let big = read.data_bytes() >= POOL_MIN_BYTES || scan_pool::readers_asked();
            let pooled = read.tickets().len() > 1 && big;
            return load_shared(&read, &pool_warehouse, pooled, frame, status, current).await;
        }
    }
    let mut rows = scan().stream().await.map_err(|e| e.to_string())?;
    let splits = rows.total_splits();
    let mut grid = GridFeed::new(rows.schema().clone(), frame);
    while let Some(batch) = rows.next_batch().await {
        if !current() {
            return Ok(grid.loaded(None, 0));
        }
        match grid.add(batch.map_err(|e| e.to_string())?) {
            Fed::Kept => {}
            Fed::Full => break,
            Fed::Shown => {
                status.set(Status::Loading {
                    rows: grid.rows(),
                    split: splits - rows.remaining_splits(),
                    splits,
                });
                yield_to_browser().await;
            }
        }
    }
    grid.show();
    Ok(grid.loaded(rows.snapshot_id(), 0))
}

/// Reads the shared read `read` on the page and the pool's workers into `frame`.
async fn load_shared(
    read: &SharedRead,
    pool_warehouse: &PoolWarehouse,
    pooled: bool,
    frame: RwSignal<Option<Arc<Frame>>>,
    status: RwSignal<Status>,
    current: &dyn Fn() -> bool,
) -> Result<Loaded, String> {
    let splits = read.tickets().len();
    let mut grid = GridFeed::new(read.schema().clone(), frame);
    let mut stopped = false;
    let by_workers = scan_pool::read_shared(read, pool_warehouse, pooled, |batch, split| {
        if !current() {
            stopped = true;
            return Flow::Stop;
        }
        match grid.add(batch) {
            Fed::Kept => Flow::Go,
            Fed::Full => Flow::Stop,
            Fed::Shown => {
                status.set(Status::Loading {
                    rows: grid.rows(),
                    split,
                    splits,
                });
                Flow::Yield
            }
        }
    })
    .await?;
    if stopped {
        return Ok(grid.loaded(None, by_workers));
    }
    grid.show();
    Ok(grid.loaded(read.snapshot_id(), by_workers))
}

/// The grid's frame as rows stream in: the first batch shows as soon as it is merged, then the
/// grid catches up at most every [`GRID_REFRESH_MS`] (re-rendering per batch would dominate a
/// read of millions of rows); it holds rows up to [`held_bytes_bound`].
struct GridFeed {
    data: Frame,
    frame: RwSignal<Option<Arc<Frame>>>,
    shown_at: Option<f64>,
    /// Arrow memory of the rows held.
    bytes: u64,
    bound: u64,
    /// A batch came once the rows held reached the bound: the read stopped there.
    full: bool,
}

/// What the grid did with a batch.
enum Fed {
    /// Kept it; the grid shows it later.
    Kept,
    /// Kept it and updated the grid: the read yields to the browser (batches decoded from
    /// fetched bytes come without any await pending, so without it nothing would render until
    /// the next fetch).
    Shown,
    /// Left it out: the rows held reached the bound, the read stops.
    Full,
}

impl GridFeed {
    fn new(schema: arrow_schema::SchemaRef, frame: RwSignal<Option<Arc<Frame>>>) -> Self {
        let data = Frame::new(schema, Vec::new());
        frame.set(Some(Arc::new(data.clone())));
        Self {
            data,
            frame,
            shown_at: None,
            bytes: 0,
            bound: held_bytes_bound(),
            full: false,
        }
    }

    /// Adds a batch, unless the rows held already reached the bound.
    fn add(&mut self, batch: arrow_array::RecordBatch) -> Fed {
        if self.bytes >= self.bound {
            self.full = true;
            return Fed::Full;
        }
        self.bytes += batch.get_array_memory_size() as u64;
        self.data.extend(vec![batch]);
        let now = now();
        if self.shown_at.is_some_and(|t| now - t < GRID_REFRESH_MS) {
            return Fed::Kept;
        }
        self.shown_at = Some(now);
        self.show();
        Fed::Shown
    }

    fn rows(&self) -> usize {
        self.data.len()
    }

    /// Shows every row added.
    fn show(&self) {
        self.frame.set(Some(Arc::new(self.data.clone())));
    }

    fn loaded(&self, snapshot: Option<i64>, by_workers: usize) -> Loaded {
        Loaded {
            rows: self.data.len(),
            snapshot,
            by_workers,
            held_at: self.full.then_some(self.bound),
        }
    }
}
