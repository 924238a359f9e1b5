//! The app's wasm as a worker of the Data tab's scan pool (started by `scan-worker.js` with the
//! page's compiled module, so nothing is downloaded or compiled again): it opens the page's
//! warehouse, follows the page's plan of a shared read and reads the splits it is handed,
//! sending each batch on as `array_transfer` bytes.

use lakescope_engine::codecs::array_transfer;
use lakescope_engine::shared_read::{SharePlan, SharedRead, SplitTicket};
use lakescope_engine::Catalog;
use lakescope_storage::browser;
use lakescope_storage::uri::StoreOptions;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The warehouse a pool worker reads, as the page hands it over.
#[derive(serde::Serialize, serde::Deserialize, Clone, PartialEq)]
pub struct PoolWarehouse {
    /// Its base URL (`https://…/`, `s3://…`, `opfs://…`).
    pub base_url: String,
    /// How to reach it (S3 settings, held in memory only).
    pub options: StoreOptions,
}

/// What this worker has open: the warehouse's catalog and the plan it follows.
struct Open {
    warehouse: PoolWarehouse,
    catalog: Catalog,
    plan: Option<(SharePlan, Rc<SharedRead>)>,
}

thread_local! {
    static OPEN: RefCell<Option<Open>> = const { RefCell::new(None) };
}

fn fail(what: &str, e: impl std::fmt::Display) -> JsError {
    JsError::new(&format!("{what}: {e}"))
}

/// The shared read `plan` (JSON of a [`SharePlan`]) of the warehouse `warehouse` (JSON of a
/// [`PoolWarehouse`]), planned here once and kept for the next tickets of the same plan.
async fn follow(warehouse: &str, plan: &str) -> Result<Rc<SharedRead>, JsError> {
    let warehouse: PoolWarehouse =
        serde_json::from_str(warehouse).map_err(|e| fail("the pool's warehouse", e))?;
    let plan: SharePlan = serde_json::from_str(plan).map_err(|e| fail("the pool's plan", e))?;
    let kept = OPEN.with(|open| match open.borrow().as_ref() {
        Some(o) if o.warehouse == warehouse => Some(match &o.plan {
            Some((p, read)) if *p == plan => Ok(read.clone()),
            _ => Err(o.catalog.clone()),
        }),
        _ => None,
    });
    let catalog = match kept {
        Some(Ok(read)) => return Ok(read),
        Some(Err(catalog)) => catalog,
        None => {
            let store = browser::open(&warehouse.base_url, &warehouse.options)
                .map_err(|e| fail(&format!("opening {}", warehouse.base_url), e))?;
            Catalog::browse(store)
        }
    };
    let read = Rc::new(
        SharedRead::follow(&catalog, &plan)
            .await
            .map_err(|e| fail("planning the shared read", e))?,
    );
    OPEN.with(|open| {
        *open.borrow_mut() = Some(Open {
            warehouse,
            catalog,
            plan: Some((plan, read.clone())),
        })
    });
    Ok(read)
}

/// Reads the split `ticket` (JSON of a [`SplitTicket`]) of the shared read `plan` of the
/// warehouse `warehouse`, calling `emit` with each batch as `array_transfer` bytes (a
/// `Uint8Array` the caller may transfer).
#[wasm_bindgen(js_name = scanPoolRead)]
pub async fn scan_pool_read(
    warehouse: String,
    plan: String,
    ticket: String,
    emit: js_sys::Function,
) -> Result<(), JsError> {
    let read = follow(&warehouse, &plan).await?;
    let ticket: SplitTicket =
        serde_json::from_str(&ticket).map_err(|e| fail("the pool's split ticket", e))?;
    let mut reader = read
        .reader(&ticket)
        .await
        .map_err(|e| fail("the split", e))?;
    while let Some(batch) = reader.next_batch().await {
        let batch = batch.map_err(|e| fail(&format!("split {}", ticket.index), e))?;
        let bytes = array_transfer::batches_to_bytes(std::slice::from_ref(&batch))
            .map_err(|e| fail("sending a batch to the page", e))?;
        emit.call1(&JsValue::NULL, &js_sys::Uint8Array::from(bytes.as_slice()))
            .map_err(|e| JsError::new(&format!("sending a batch to the page: {e:?}")))?;
    }
    Ok(())
}
