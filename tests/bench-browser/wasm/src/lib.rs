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

/// Reads the latest snapshot of `table` (`db.table`) of the warehouse at `warehouse_url` split by
/// split (as the app's Data tab does), counts the rows and touches every column; returns JSON
/// `{rows, checksum, batches, splits, ms, memory_bytes}` (`ms` from opening the table to the end).
#[wasm_bindgen(js_name = scanTable)]
pub async fn scan_table(warehouse_url: String, table: String) -> Result<String, JsError> {
    let started = js_sys::Date::now();
    let store = open(&warehouse_url, &StoreOptions::default())?;
    let table_ref: TableRef = table
        .parse()
        .map_err(|e| JsError::new(&format!("table name {table}: {e}")))?;
    let table = Catalog::new(store).open_table(&table_ref).await?;
    let snapshot = table.latest_snapshot().await?;
    let mut reader =
        SnapshotReader::open(&table, snapshot.as_ref(), &ReadRequest::default()).await?;
    let (mut rows, mut checksum, mut batches, mut splits) = (0u64, 0f64, 0usize, 0usize);
    while let Some(split) = reader.next_split().await {
        let split = split?;
        let (r, c) = touch(&split);
        rows += r;
        checksum += c;
        batches += split.len();
        splits += 1;
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
