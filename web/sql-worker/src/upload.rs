//! Uploads in the worker: a `File` posted by the page, read by `Blob.slice` ranges and inserted
//! into a Paimon table chunk by chunk (lakescope-engine's upload), with progress events.

use async_trait::async_trait;
use bytes::Bytes;
use lakescope_engine::browser_env::BrowserEnv;
use lakescope_engine::upload::protocol::{UploadEvent, UploadRequest};
use lakescope_engine::upload::{insert_file, FileSource, Upload};
use lakescope_engine::TableRef;
use lakescope_paimon::table::Table;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, File};

/// A browser `File` read by ranges: only the slices asked for are in memory.
struct BlobSource(File);

#[async_trait(?Send)]
impl FileSource for BlobSource {
    fn size(&self) -> u64 {
        self.0.size() as u64
    }

    async fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        let slice = self
            .0
            .slice_with_f64_and_f64(start as f64, end as f64)
            .map_err(|e| format!("cannot read bytes {start}..{end}: {e:?}"))?;
        let buffer = JsFuture::from(slice.array_buffer())
            .await
            .map_err(|e| format!("cannot read bytes {start}..{end}: {e:?}"))?;
        Ok(Bytes::from(js_sys::Uint8Array::new(&buffer).to_vec()))
    }
}

fn post(event: &UploadEvent) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    match serde_json::to_string(event) {
        Ok(text) => {
            if let Err(e) = scope.post_message(&JsValue::from_str(&text)) {
                web_sys::console::error_2(&JsValue::from_str("lakescope upload:"), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&JsValue::from_str(&format!(
            "lakescope upload: cannot encode an event: {e}"
        ))),
    }
}

/// Whether `data` (a message from the page) is an upload `{request, file}`; if so, runs it.
pub fn accept(data: &JsValue) -> bool {
    let field = |name: &str| js_sys::Reflect::get(data, &JsValue::from_str(name)).ok();
    let Some(text) = field("upload").and_then(|v| v.as_string()) else {
        return false;
    };
    let file = field("file").and_then(|f| f.dyn_into::<File>().ok());
    match (serde_json::from_str::<UploadRequest>(&text), file) {
        (Ok(request), Some(file)) => {
            wasm_bindgen_futures::spawn_local(async move {
                let id = request.id;
                let event = match run(&request, file).await {
                    Ok(done) => done,
                    Err(message) => UploadEvent::UploadFailed { id, message },
                };
                post(&event);
            });
        }
        (Err(e), _) => post(&UploadEvent::UploadFailed {
            id: 0,
            message: format!("the SQL worker got an upload it does not understand: {e}"),
        }),
        (Ok(request), None) => post(&UploadEvent::UploadFailed {
            id: request.id,
            message: "the upload came without its file".into(),
        }),
    }
    true
}

async fn run(request: &UploadRequest, file: File) -> Result<UploadEvent, String> {
    let id = request.id;
    let store = lakescope_storage::browser::open(&request.uri, &request.options)
        .map_err(|e| format!("cannot open the warehouse {}: {e}", request.uri))?;
    let table_ref = TableRef {
        database: request.database.clone(),
        table: request.table.clone(),
        system: None,
    };
    let name = table_ref.to_string();
    let table = Table::open(store, table_ref.path())
        .await
        .map_err(|e| format!("cannot open {name}: {e}"))?;
    let started = js_sys::Date::now();
    let mut rows = 0;
    let outcome = insert_file(
        &table,
        &BrowserEnv,
        &Upload {
            file: &request.file,
            kind: request.kind,
            table_name: &name,
            chunk_rows: request.chunk_rows,
        },
        &BlobSource(file),
        &mut |progress| {
            rows = progress.rows_written;
            post(&UploadEvent::UploadProgress {
                id,
                progress: *progress,
            })
        },
    )
    .await
    .map_err(|e| e.to_string())?;
    Ok(UploadEvent::UploadDone {
        id,
        snapshot: outcome.snapshot.id,
        rows,
        millis: js_sys::Date::now() - started,
    })
}
