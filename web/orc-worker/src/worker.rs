//! The worker's message handler. In: an ORC file `{id, file, bytes: Uint8Array, columns: string[],
//! nanos, batchSize}`, VARIANT values `{id, kind: "variant", file, bytes}` (a variant
//! group column as `lakescope_paimon::read::array_transfer` bytes), or an Avro file compressed
//! with xz or bzip2 `{id, kind: "avro", file, bytes}`;
//! out: `{id, answer: Uint8Array}` (ORC: the batches as `array_transfer` bytes, none for a file
//! without rows; VARIANT: a Utf8 array of JSON texts as `array_transfer` bytes; Avro: the same
//! container with codec `null`) or `{id, error}`. Posts the string `"ready"` once it listens.

use bytes::Bytes;
use js_sys::{Array, Object, Reflect, Uint8Array};
use lakescope_paimon::read::array_transfer;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

fn field(message: &JsValue, name: &str) -> Result<JsValue, String> {
    Reflect::get(message, &JsValue::from_str(name))
        .map_err(|e| format!("message field {name}: {e:?}"))
}

/// Decodes one request into its answer.
fn decode(message: &JsValue) -> Result<Vec<u8>, String> {
    let bytes = field(message, "bytes")?
        .dyn_into::<Uint8Array>()
        .map_err(|_| "message field bytes is not a Uint8Array".to_string())?
        .to_vec();
    match field(message, "kind")?.as_string().as_deref() {
        Some("variant") => {
            let file = field(message, "file")?.as_string().unwrap_or_default();
            return variant_json(&file, bytes);
        }
        Some("avro") => {
            return lakescope_paimon::read::avro_container::transcode::to_null_codec(&bytes)
        }
        _ => {}
    }
    let columns = field(message, "columns")?
        .dyn_into::<Array>()
        .map_err(|_| "message field columns is not an array".to_string())?
        .iter()
        .map(|c| c.as_string().ok_or("a column name is not a string"))
        .collect::<Result<Vec<_>, _>>()?;
    let batch_size = field(message, "batchSize")?
        .as_f64()
        .filter(|n| *n >= 1.0)
        .ok_or("message field batchSize is not a positive number")? as usize;
    let nanos = field(message, "nanos")?.is_truthy();
    let batches = lakescope_orc::decode(Bytes::from(bytes), &columns, nanos, batch_size)?;
    array_transfer::batches_to_bytes(&batches).map_err(|e| format!("answering the page: {e}"))
}

/// The JSON texts of the variant group column the page sent as `bytes`.
fn variant_json(file: &str, bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    let groups = array_transfer::from_bytes(&bytes)
        .map_err(|e| format!("reading the page's VARIANT values: {e}"))?;
    let json =
        lakescope_paimon::read::variant::json_column(file, &groups).map_err(|e| e.to_string())?;
    array_transfer::to_bytes(json.as_ref()).map_err(|e| format!("answering the page: {e}"))
}

fn reply(message: &JsValue) -> Result<(), JsValue> {
    let out = Object::new();
    Reflect::set(&out, &"id".into(), &field(message, "id")?)?;
    match decode(message) {
        Ok(answer) => {
            let answer = Uint8Array::from(answer.as_slice());
            Reflect::set(&out, &"answer".into(), &answer)?;
            scope().post_message_with_transfer(&out, &Array::of1(&answer.buffer()))
        }
        Err(e) => {
            Reflect::set(&out, &"error".into(), &JsValue::from_str(&e))?;
            scope().post_message(&out)
        }
    }
}

/// Installs the message handler and tells the page it is ready.
pub fn start() {
    console_error_panic_hook::set_once();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        if let Err(e) = reply(&event.data()) {
            web_sys::console::error_2(&JsValue::from_str("lakescope ORC worker:"), &e);
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    if let Err(e) = scope().post_message(&JsValue::from_str("ready")) {
        web_sys::console::error_2(&JsValue::from_str("lakescope ORC worker:"), &e);
    }
}
