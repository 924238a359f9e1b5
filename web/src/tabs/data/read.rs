//! The Data tab's read: a query streamed batch by batch into the grid's frame, with the status
//! line's state, and a BLOB cell's download.

use crate::app::Selection;
use crate::state::warehouse;
use crate::tabs::panel::table_ref;
use crate::util::{download_bytes, yield_to_browser, Frame};
use crate::widgets::grid::BlobDownload;
use lakescope_engine::blob::BlobRef;
use lakescope_engine::scan::parse_filter;
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

/// Minimum milliseconds between two grid updates while rows stream in.
const GRID_REFRESH_MS: f64 = 250.0;

/// Reads the query into `frame`, batch by batch (the first merged batch shows at once, an Iceberg
/// table's first data file's rows too; a Paimon branch is read whole by the engine). Returns rows
/// and the snapshot read.
pub async fn load(
    sel: &Selection,
    q: &Query,
    frame: RwSignal<Option<Arc<Frame>>>,
    status: RwSignal<Status>,
    current: &dyn Fn() -> bool,
) -> Result<(usize, Option<i64>), String> {
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
    let t = t?;
    let mut scan = t
        .scan(table_ref(sel, None))
        .at(q.at.clone())
        .select(columns)
        .filter(filter)
        .audit_log(q.audit)
        .first_rows();
    if q.at == Version::Latest && format == Format::Paimon {
        scan = scan.latest_snapshot(latest?);
    }
    let mut rows = scan.stream().await.map_err(|e| e.to_string())?;
    let splits = rows.total_splits();
    let mut f = Frame::new(rows.schema().clone(), Vec::new());
    frame.set(Some(Arc::new(f.clone())));
    // The grid shows the first batch as soon as it is merged, then catches up at most every
    // GRID_REFRESH_MS (re-rendering per batch would dominate a read of millions of rows). After
    // each update the read yields to the browser: batches decoded from fetched bytes come
    // without any await pending, so without it nothing would render until the next fetch.
    let mut shown_at: Option<f64> = None;
    while let Some(batch) = rows.next_batch().await {
        if !current() {
            return Ok((f.len(), None));
        }
        f.extend(vec![batch.map_err(|e| e.to_string())?]);
        let now = now();
        if shown_at.is_none_or(|t| now - t >= GRID_REFRESH_MS) {
            shown_at = Some(now);
            frame.set(Some(Arc::new(f.clone())));
            status.set(Status::Loading {
                rows: f.len(),
                split: splits - rows.remaining_splits(),
                splits,
            });
            yield_to_browser().await;
        }
    }
    frame.set(Some(Arc::new(f.clone())));
    Ok((f.len(), rows.snapshot_id()))
}
