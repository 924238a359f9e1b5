//! ORC data files, VARIANT values and xz/bzip2 Avro files for the explorer: an [`OrcCodec`], a
//! [`VariantCodec`] and an [`AvroCodec`] that hand each file (or variant group column) to the
//! decoder worker (orc-rust, parquet-variant, lzma-rs and bzip2: a separate download started on
//! the first such file or value) and read back Arrow arrays, or the Avro file with codec `null`.
//! Arrays travel as [`array_transfer`] bytes (their buffers as they are): the page links no
//! Arrow IPC.

use crate::workers::port::{WorkerFailure, WorkerPort};
use arrow_array::{ArrayRef, RecordBatch};
use bytes::Bytes;
use futures::channel::oneshot;
use js_sys::{Array, Object, Reflect, Uint8Array};
use lakescope_engine::codecs::{array_transfer, AvroCodec, OrcCodec, OrcRequest, VariantCodec};
use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The worker's loader script, next to the page (Trunk's worker target in web/index.html).
const WORKER_SCRIPT: &str = "lakescope-orc-worker_loader.js";

type Reply = oneshot::Sender<Result<Vec<u8>, String>>;

struct Running {
    port: WorkerPort,
    waiting: HashMap<u32, Reply>,
}

thread_local! {
    static WORKER: RefCell<Option<Running>> = const { RefCell::new(None) };
    static NEXT_ID: RefCell<u32> = const { RefCell::new(1) };
}

/// Decodes ORC files in the ORC worker.
pub struct WorkerCodec;

#[async_trait::async_trait(?Send)]
impl OrcCodec for WorkerCodec {
    async fn decode(
        &self,
        _file: &str,
        bytes: Bytes,
        request: &OrcRequest,
    ) -> Result<Vec<RecordBatch>, String> {
        let message = Object::new();
        let columns: Array = request
            .columns
            .iter()
            .map(|c| JsValue::from_str(c))
            .collect();
        let set = |k: &str, v: &JsValue| Reflect::set(&message, &k.into(), v).map(|_| ());
        set("columns", &columns)
            .and_then(|_| set("nanos", &JsValue::from_bool(request.nanosecond_timestamps)))
            .and_then(|_| set("batchSize", &JsValue::from(request.batch_size as f64)))
            .map_err(|e| format!("building the ORC worker's message: {e:?}"))?;
        let answer = call(message, &bytes)?
            .await
            .map_err(|_| "the ORC worker stopped".to_string())??;
        array_transfer::batches_from_bytes(&answer)
            .map_err(|e| format!("reading the ORC worker's answer: {e}"))
    }
}

/// Decodes VARIANT values in the decoder worker.
pub struct VariantWorkerCodec;

#[async_trait::async_trait(?Send)]
impl VariantCodec for VariantWorkerCodec {
    async fn to_json(&self, file: &str, groups: ArrayRef) -> Result<ArrayRef, String> {
        let bytes = array_transfer::to_bytes(groups.as_ref())
            .map_err(|e| format!("sending VARIANT values to the worker: {e}"))?;
        let answer = ask_about_file("variant", file, &bytes).await?;
        array_transfer::from_bytes(&answer)
            .map_err(|e| format!("reading the decoder worker's VARIANT values: {e}"))
    }
}

/// Rewrites Avro files compressed with xz or bzip2 with codec `null` in the decoder worker.
pub struct AvroWorkerCodec;

#[async_trait::async_trait(?Send)]
impl AvroCodec for AvroWorkerCodec {
    async fn to_null_codec(&self, file: &str, bytes: Bytes) -> Result<Bytes, String> {
        Ok(Bytes::from(ask_about_file("avro", file, &bytes).await?))
    }
}

/// Sends the decoder worker a request of kind `kind` about file `file` with `bytes`; its answer.
async fn ask_about_file(kind: &str, file: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let message = Object::new();
    let set = |k: &str, v: &JsValue| Reflect::set(&message, &k.into(), v).map(|_| ());
    set("kind", &JsValue::from_str(kind))
        .and_then(|_| set("file", &JsValue::from_str(file)))
        .map_err(|e| format!("building the worker's message: {e:?}"))?;
    call(message, bytes)?
        .await
        .map_err(|_| "the decoder worker stopped".to_string())?
}

/// Posts `message` with `bytes` as its `bytes` (transferred) and a fresh `id` to the worker
/// (starting it if needed); the receiver gets the worker's answer.
fn call(
    message: Object,
    bytes: &[u8],
) -> Result<oneshot::Receiver<Result<Vec<u8>, String>>, String> {
    if WORKER.with(|w| w.borrow().is_none()) {
        start()?;
    }
    let id = NEXT_ID.with(|n| {
        let id = *n.borrow();
        *n.borrow_mut() = id.wrapping_add(1);
        id
    });
    let data = Uint8Array::from(bytes);
    let set = |k: &str, v: &JsValue| Reflect::set(&message, &k.into(), v).map(|_| ());
    set("id", &JsValue::from(id))
        .and_then(|_| set("bytes", &data))
        .map_err(|e| format!("building the worker's message: {e:?}"))?;
    let transfer = Array::of1(&data.buffer());
    let (sender, receiver) = oneshot::channel();
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        let running = w.as_mut().ok_or("the decoder worker is not running")?;
        running.waiting.insert(id, sender);
        running
            .port
            .post(message.into(), Some(transfer))
            .map_err(|e| format!("cannot reach the decoder worker: {e}"))
    })?;
    Ok(receiver)
}

/// Delivers one message from the worker.
fn on_reply(data: JsValue) {
    if data.as_string().as_deref() == Some("ready") {
        let posted = WORKER.with(|w| w.borrow_mut().as_mut().map(|r| r.port.mark_ready()));
        if let Some(Err(e)) = posted {
            fail_all(&format!("cannot reach the ORC worker: {e}"));
        }
        return;
    }
    let get = |k: &str| Reflect::get(&data, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let Some(id) = get("id").as_f64().map(|id| id as u32) else {
        return;
    };
    let Some(reply) = WORKER.with(|w| w.borrow_mut().as_mut()?.waiting.remove(&id)) else {
        return;
    };
    let result = match get("answer").dyn_into::<Uint8Array>() {
        Ok(answer) => Ok(answer.to_vec()),
        Err(_) => Err(get("error")
            .as_string()
            .unwrap_or_else(|| "the ORC worker sent no result".to_string())),
    };
    let _ = reply.send(result);
}

/// Fails every waiting file with `message` and forgets the worker (the next ORC file restarts it).
fn fail_all(message: &str) {
    let waiting = WORKER.with(|w| {
        w.borrow_mut()
            .take()
            .map(|mut running| {
                running.port.terminate();
                std::mem::take(&mut running.waiting)
            })
            .unwrap_or_default()
    });
    for reply in waiting.into_values() {
        let _ = reply.send(Err(message.to_string()));
    }
}

fn start() -> Result<(), String> {
    let on_failure = |failure| {
        fail_all(&match failure {
            WorkerFailure::NotLoaded => {
                format!("the ORC worker could not be loaded ({WORKER_SCRIPT})")
            }
            WorkerFailure::Stopped(detail) => format!("the ORC worker stopped: {detail}"),
        })
    };
    let port = WorkerPort::start(WORKER_SCRIPT, on_reply, on_failure)
        .map_err(|e| format!("cannot start the ORC worker ({WORKER_SCRIPT}): {e}"))?;
    WORKER.with(|w| {
        *w.borrow_mut() = Some(Running {
            port,
            waiting: HashMap::new(),
        })
    });
    Ok(())
}
