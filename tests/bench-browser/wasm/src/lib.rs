//! wasm-bindgen entry point of the browser benchmarks: reads a Paimon table over HTTP with lakescope's core.
#![cfg(target_arch = "wasm32")]

use js_sys::WebAssembly;
use lakescope_engine::checksum::touch;
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
use lakescope_storage::browser::open;
use lakescope_storage::uri::StoreOptions;
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
    let (mut rows, mut checksum, mut batches) = (0u64, 0f64, 0usize);
    while let Some(batch) = reader.next_batch().await {
        let (r, c) = touch(&[batch?]);
        rows += r;
        checksum += c;
        batches += 1;
    }
    Ok(serde_json::json!({
        "rows": rows,
        "checksum": checksum,
        "batches": batches,
        "splits": splits,
        "ms": js_sys::Date::now() - started,
        "memory_bytes": memory_bytes(),
    })
    .to_string())
}
