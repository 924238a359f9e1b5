//! Compiles the table reader while the catalog is on screen, once per page: the browser
//! compiles each WebAssembly function on its first call, so the first table opened would
//! otherwise wait for it (see `lakescope_engine::warm_up`).

use crate::util::Frame;
use lakescope_engine::browser_env::BrowserEnv;
use lakescope_engine::warm_up::read_tiny_tables;
use lakescope_paimon::write::WriteEnv;
use std::cell::Cell;

thread_local! {
    static STARTED: Cell<bool> = const { Cell::new(false) };
}

/// Starts the warm-up after the page has drawn what is pending (no-op after the first call).
pub fn start() {
    if STARTED.with(|s| s.replace(true)) {
        return;
    }
    leptos::task::spawn_local(async {
        BrowserEnv.sleep(0).await;
        let Ok(batches) =
            read_tiny_tables(&BrowserEnv, &crate::data_tab::first_rows_request()).await
        else {
            return;
        };
        // The grid's cell text, as the Data tab shows it.
        if let Some(schema) = batches.first().map(|b| b.schema()) {
            let frame = Frame::new(schema, batches);
            for column in 0..frame.columns().len() {
                let _ = frame.cell(0, column);
            }
        }
    });
}
