//! Opens and reads the built-in tiny tables once per page while the catalog is on screen, and
//! renders their rows in a grid that is never attached to the page, so the browser has compiled
//! the table reader and the grid before the first table opens (see `lakescope_engine::warm_up`),
//! then grows the wasm memory the first table will need; meanwhile it reads the latest snapshot
//! of the catalog's first tables (opening one of them then plans that snapshot at once).

use crate::util::{after_paint, yield_to_browser, Frame};
use crate::widgets::grid::Grid;
use futures::future::{AbortHandle, Abortable};
use lakescope_engine::table::first_rows_request;
use lakescope_engine::warm_up::{catalog, open_and_read, TABLES};
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use wasm_bindgen::JsCast;

thread_local! {
    static STARTED: Cell<bool> = const { Cell::new(false) };
    /// Stops the running warm-up.
    static RUNNING: RefCell<Option<AbortHandle>> = const { RefCell::new(None) };
}

/// Tables of the catalog (in its order) whose latest snapshot the warm-up reads.
const LATEST_READ_TABLES: usize = 16;

/// Starts the reads once the page has painted what is pending (no-op after the first call);
/// `tables`: the paths of the open catalog's tables.
pub fn start(tables: Vec<String>) {
    if STARTED.with(|s| s.replace(true)) {
        return;
    }
    let (abort, registration) = AbortHandle::new_pair();
    RUNNING.with(|r| r.replace(Some(abort)));
    leptos::task::spawn_local(async {
        if let Ok(Err(e)) = Abortable::new(read_tables(tables), registration).await {
            // Only compiling was at stake: the first table opened just takes longer.
            leptos::logging::warn!("warm-up read: {e}");
        }
        RUNNING.with(|r| r.take());
    });
}

/// Stops the warm-up at its next step (a table is being opened: the page is for it now).
pub fn stop() {
    if let Some(abort) = RUNNING.with(|r| r.take()) {
        abort.abort();
    }
}

/// Once the page has painted: reads the latest snapshots of the first of `tables` (network
/// bound) while the built-in tables are read and rendered (CPU bound).
async fn read_tables(tables: Vec<String>) -> lakescope_engine::Result<()> {
    after_paint().await;
    let first = &tables[..tables.len().min(LATEST_READ_TABLES)];
    let (warmed, ()) = futures::join!(
        read_built_in_tables(),
        crate::state::warehouse::read_latest_snapshots(first)
    );
    warmed
}

/// Reads each built-in table as a table view does and renders its rows in a detached grid,
/// yielding to the browser between steps, then grows the wasm memory.
async fn read_built_in_tables() -> lakescope_engine::Result<()> {
    let catalog = catalog();
    for name in TABLES {
        let (schema, batches) =
            open_and_read(&catalog, name, &first_rows_request(), yield_to_browser).await?;
        yield_to_browser().await;
        render_detached(Frame::new(schema, batches)).await;
    }
    reserve_heap();
    Ok(())
}

/// Wasm memory the first table's read is expected to use (a primary-key bucket of five 3.5 MB
/// files and the first page of every column of each: ≈ 65 MB).
const HEAP_RESERVE: usize = 64 << 20;

/// Grows the wasm memory now, while the page is idle, instead of during the first table's read:
/// each growth stops the main thread (17 ms in all for pk_upsert's first rows). The freed block
/// stays with the allocator for later allocations; untouched pages cost no physical memory.
fn reserve_heap() {
    let reserved = Vec::<u8>::with_capacity(HEAP_RESERVE);
    std::hint::black_box(&reserved);
}

/// Builds a grid of `frame` in an element outside the document (no layout, nothing shown), lets
/// its effects run, then unmounts it.
async fn render_detached(frame: Frame) {
    let Some(parent) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("div").ok())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    let frame = Signal::stored(Some(Arc::new(frame)));
    let grid = leptos::mount::mount_to(parent, move || view! { <Grid frame=frame /> });
    yield_to_browser().await;
    drop(grid);
}
