//! wasm-bindgen entry point of the browser benchmarks: reads a Paimon table over HTTP with lakescope's core,
//! on the page or shared out by split to a pool of Web Workers (each an instance of this module).
#![cfg(target_arch = "wasm32")]

use js_sys::WebAssembly;
use lakescope_engine::checksum::touch_reader;
use lakescope_engine::shared_read::{SharedRead, SplitTicket};
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
use lakescope_storage::browser::open;
use lakescope_storage::uri::StoreOptions;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Bytes of this module's linear memory (it only grows, so after a scan it is the peak).
#[wasm_bindgen(js_name = memoryBytes)]
pub fn memory_bytes() -> f64 {
    wasm_bindgen::memory()
        .dyn_into::<WebAssembly::Memory>()
        .map(|m| {
            m.buffer()
                .unchecked_into::<js_sys::ArrayBuffer>()
                .byte_length() as f64
        })
        .unwrap_or(0.0)
}

/// Reads the latest snapshot of `table` (`db.table`) of the warehouse at `warehouse_url` batch
/// by batch (as the app's Data tab does), counts the rows and touches every column, holding no
/// batch after touching it; `memory_budget` is [`ReadRequest::memory_budget`] in bytes
/// (`undefined`: none). Returns JSON `{rows, checksum, batches, splits, ms, memory_bytes}`
/// (`ms` from opening the table to the end).
#[wasm_bindgen(js_name = scanTable)]
pub async fn scan_table(
    warehouse_url: String,
    table: String,
    memory_budget: Option<f64>,
) -> Result<String, JsError> {
    let started = js_sys::Date::now();
    let store = open(&warehouse_url, &StoreOptions::default())?;
    let table_ref: TableRef = table
        .parse()
        .map_err(|e| JsError::new(&format!("table name {table}: {e}")))?;
    let table = Catalog::new(store).open_table(&table_ref).await?;
    let snapshot = table.latest_snapshot().await?;
    let request = ReadRequest {
        memory_budget: memory_budget.map(|b| b as u64),
        ..ReadRequest::default()
    };
    let mut reader = SnapshotReader::open(&table, snapshot.as_ref(), &request).await?;
    let splits = reader.total_splits();
    let touched = touch_reader(&mut reader).await?;
    Ok(serde_json::json!({
        "rows": touched.rows,
        "checksum": touched.checksum,
        "batches": touched.batches,
        "splits": splits,
        "ms": js_sys::Date::now() - started,
        "memory_bytes": memory_bytes(),
    })
    .to_string())
}

thread_local! {
    /// This instance's plan of the shared read it is reading splits of ([`plan_shares`]).
    static SHARED: RefCell<Option<Rc<SharedRead>>> = const { RefCell::new(None) };
}

/// Plans a read of every column of `table` (`db.table`) of the warehouse at `warehouse_url` at
/// snapshot `snapshot` (`undefined`: the latest) for `readers` readers and keeps the plan for
/// [`touch_share`] (a pool worker plans the snapshot the page planned, for as many readers).
/// Returns JSON `{snapshot, tickets, ms}`.
#[wasm_bindgen(js_name = planShares)]
pub async fn plan_shares(
    warehouse_url: String,
    table: String,
    snapshot: Option<f64>,
    readers: u32,
) -> Result<String, JsError> {
    let started = js_sys::Date::now();
    let store = open(&warehouse_url, &StoreOptions::default())?;
    let table_ref: TableRef = table
        .parse()
        .map_err(|e| JsError::new(&format!("table name {table}: {e}")))?;
    let snapshot = snapshot.map(|s| s as i64);
    let readers = usize::try_from(readers).unwrap_or(1);
    let read = SharedRead::plan(&Catalog::new(store), &table_ref, snapshot, readers).await?;
    let out = serde_json::json!({
        "snapshot": read.snapshot_id(),
        "tickets": read.tickets(),
        "ms": js_sys::Date::now() - started,
    });
    SHARED.with(|shared| *shared.borrow_mut() = Some(Rc::new(read)));
    Ok(out.to_string())
}

/// Reads the split `ticket` (JSON of a [`SplitTicket`]) names of the plan [`plan_shares`] made
/// here, counting rows and touching every column as [`scan_table`] does. Returns JSON
/// `{rows, checksum, batches, ms, memory_bytes}`.
#[wasm_bindgen(js_name = touchShare)]
pub async fn touch_share(ticket: String) -> Result<String, JsError> {
    let started = js_sys::Date::now();
    let ticket: SplitTicket = serde_json::from_str(&ticket)
        .map_err(|e| JsError::new(&format!("split ticket {ticket}: {e}")))?;
    let read = SHARED
        .with(|shared| shared.borrow().clone())
        .ok_or_else(|| JsError::new("touchShare before planShares"))?;
    let mut reader = read.reader(&ticket).await?;
    let touched = touch_reader(&mut reader).await?;
    Ok(serde_json::json!({
        "rows": touched.rows,
        "checksum": touched.checksum,
        "batches": touched.batches,
        "ms": js_sys::Date::now() - started,
        "memory_bytes": memory_bytes(),
    })
    .to_string())
}
