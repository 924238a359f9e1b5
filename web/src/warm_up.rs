//! Reads the built-in tiny tables once per page while the catalog is on screen, so the browser
//! has compiled the table reader and the grid's cell text before the first table opens (see
//! `lakescope_engine::warm_up`).

use crate::data_tab::first_rows_request;
use crate::util::{yield_to_browser, Frame};
use lakescope_engine::warm_up::{warehouse, TABLES};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::SnapshotReader;
use lakescope_storage::ObjectStore;
use std::cell::Cell;
use std::rc::Rc;

thread_local! {
    static STARTED: Cell<bool> = const { Cell::new(false) };
}

/// Starts the reads after the page has drawn what is pending (no-op after the first call).
pub fn start() {
    if STARTED.with(|s| s.replace(true)) {
        return;
    }
    leptos::task::spawn_local(async {
        if let Err(e) = read_tables().await {
            // Only compiling was at stake: the first table opened just takes longer.
            leptos::logging::warn!("warm-up read: {e}");
        }
    });
}

/// Reads each table as the Data tab does and renders every cell's text, yielding to the browser
/// between steps.
async fn read_tables() -> Result<(), String> {
    let store: Rc<dyn ObjectStore> = Rc::new(warehouse().await.map_err(|e| e.to_string())?);
    for path in TABLES {
        yield_to_browser().await;
        let e = |e: lakescope_paimon::Error| e.to_string();
        let table = Table::open(store.clone(), path).await.map_err(e)?;
        let snapshot = table.latest_snapshot().await.map_err(e)?;
        let mut reader = SnapshotReader::open(&table, snapshot.as_ref(), &first_rows_request())
            .await
            .map_err(e)?;
        let mut frame = Frame::new(reader.schema().clone(), Vec::new());
        while let Some(batch) = reader.next_batch().await {
            frame.extend(vec![batch.map_err(e)?]);
        }
        yield_to_browser().await;
        let columns = frame.columns().len();
        for row in 0..frame.len() {
            for column in 0..columns {
                let _ = frame.cell(row, column);
            }
        }
    }
    Ok(())
}
