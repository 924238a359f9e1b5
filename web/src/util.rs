//! Shared helpers: value text, sizes, times, downloads, the busy/error panels, and yielding to the browser.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lakescope_engine::canonical::cell_text;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Rows held as Arrow batches, addressable by global row index (cells rendered on demand).
#[derive(Clone)]
pub struct Frame {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
    /// Row index where each batch starts, plus the total at the end.
    starts: Vec<usize>,
}

impl Frame {
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Frame {
        let mut f = Frame {
            schema,
            batches: Vec::new(),
            starts: vec![0],
        };
        f.extend(batches);
        f
    }

    pub fn extend(&mut self, batches: Vec<RecordBatch>) {
        for b in batches {
            if b.num_rows() == 0 {
                continue;
            }
            let end = self.len() + b.num_rows();
            self.batches.push(b);
            self.starts.push(end);
        }
    }

    pub fn len(&self) -> usize {
        *self.starts.last().unwrap_or(&0)
    }

    pub fn columns(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// (batch, row in batch) of global row `row`.
    fn locate(&self, row: usize) -> Option<(&RecordBatch, usize)> {
        if row >= self.len() {
            return None;
        }
        let b = self.starts.partition_point(|s| *s <= row) - 1;
        Some((&self.batches[b], row - self.starts[b]))
    }

    /// Text of one cell (`None`: NULL or out of range).
    pub fn cell(&self, row: usize, col: usize) -> Option<String> {
        let (batch, i) = self.locate(row)?;
        cell_text(batch.column(col).as_ref(), i)
    }

    /// The BLOB reference of one cell: `None` if the column is not a BLOB column, `Some(None)`
    /// for a NULL BLOB (see `lakescope_engine::blob`).
    pub fn blob(&self, row: usize, col: usize) -> Option<Option<lakescope_engine::blob::BlobRef>> {
        let (batch, i) = self.locate(row)?;
        lakescope_engine::blob::reference(batch.column(col).as_ref(), i)
    }

    /// Index of a column by name.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.schema.index_of(name).ok()
    }

    /// Integer value of a cell (for numeric summaries).
    pub fn int(&self, row: usize, col: usize) -> Option<i64> {
        self.cell(row, col).and_then(|s| s.parse().ok())
    }
}

/// `1.5 KiB`, `3.2 MiB`.
pub fn bytes(n: i64) -> String {
    let n = n as f64;
    if n < 1024.0 {
        return format!("{n} B");
    }
    let units = ["KiB", "MiB", "GiB", "TiB"];
    let mut v = n / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u < units.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", units[u])
}

/// `2024-03-01 10:00:00.123 UTC` of epoch milliseconds.
pub fn time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S%.3f UTC").to_string())
        .unwrap_or_else(|| ms.to_string())
}

/// Short form `03-01 10:00:05` for chart labels.
pub fn time_short(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| ms.to_string())
}

/// Parses `2024-03-01 10:00:00`, `2024-03-01T10:00`, `2024-03-01` (UTC) or epoch milliseconds.
pub fn parse_time(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Ok(ms) = t.parse::<i64>() {
        return Some(ms);
    }
    let t = t
        .trim_end_matches(" UTC")
        .trim_end_matches('Z')
        .replace('T', " ");
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(d) = chrono::NaiveDateTime::parse_from_str(&t, fmt) {
            return Some(d.and_utc().timestamp_millis());
        }
    }
    chrono::NaiveDate::parse_from_str(&t, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(23, 59, 59))
        .map(|d| d.and_utc().timestamp_millis() + 999)
}

/// Offers `bytes` as a file download.
pub fn download_bytes(name: &str, bytes: &[u8]) {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/octet-stream");
    if let Ok(blob) = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts) {
        offer(name, &blob);
    }
}

/// Offers a browser `Blob` (or a `File`) as the download `name`.
pub fn offer(name: &str, blob: &web_sys::Blob) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    if let Ok(a) = document.create_element("a") {
        if let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() {
            a.set_href(&url);
            a.set_download(name);
            a.click();
        }
    }
    // The browser reads a large Blob for the download after the click returns: the URL goes
    // only a minute later (revoked at once, a download of hundreds of MiB was cancelled).
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(60),
    );
}

/// A spinner with a status line.
#[component]
pub fn Busy(#[prop(into)] text: Signal<String>) -> impl IntoView {
    view! {
        <div class="busy" role="status" data-testid="busy">
            <span class="spinner" aria-hidden="true"></span>
            <span>{move || text.get()}</span>
            <span class="progress" aria-hidden="true"><span class="progress-bar"></span></span>
        </div>
    }
}

/// An error in plain words (always text).
#[component]
pub fn ErrorPanel(#[prop(into)] title: String, message: String) -> impl IntoView {
    view! {
        <div class="error" role="alert" data-testid="error-panel">
            <strong>{title}</strong>
            <p>{message}</p>
        </div>
    }
}

/// The parameter `name` of the address the page was loaded at (read before the router rewrites
/// the address without it).
pub fn address_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
}

/// State of an async load.
#[derive(Clone)]
pub enum Load<T> {
    Loading(String),
    Ready(T),
    Failed(String),
}

/// Lets the browser run its pending work (render, input) before the caller goes on: resolves in a
/// later task.
pub async fn yield_to_browser() {
    let (done, wait) = futures::channel::oneshot::channel::<()>();
    set_timeout(
        move || {
            let _ = done.send(());
        },
        std::time::Duration::ZERO,
    );
    let _ = wait.await;
}

/// Resolves once the browser has painted what is pending: in a task queued from the next
/// animation frame (which runs just before that frame's paint).
pub async fn after_paint() {
    let (done, wait) = futures::channel::oneshot::channel::<()>();
    request_animation_frame(move || {
        let _ = done.send(());
    });
    let _ = wait.await;
    yield_to_browser().await;
}
