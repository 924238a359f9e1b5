//! The page's side of an upload: the request and its `File` posted to the SQL worker (started on
//! first use), the worker's upload events routed to the one upload running.

use crate::workers::sql;
use lakescope_engine::upload::protocol::{UploadEvent, UploadRequest};
use std::cell::RefCell;
use wasm_bindgen::JsValue;
use web_sys::File;

type Listener = Box<dyn FnMut(&UploadEvent)>;

thread_local! {
    /// The running upload's request id and listener.
    static UPLOAD: RefCell<Option<(u64, Listener)>> = const { RefCell::new(None) };
}

/// Posts `request` with `file` to the worker; `listener` sees progress, then done or failed.
pub fn start(
    request: &UploadRequest,
    file: &File,
    listener: impl FnMut(&UploadEvent) + 'static,
) -> Result<(), String> {
    let text = serde_json::to_string(request).map_err(|e| e.to_string())?;
    let message = js_sys::Object::new();
    let set = |key: &str, value: &JsValue| {
        js_sys::Reflect::set(&message, &JsValue::from_str(key), value)
            .map(|_| ())
            .map_err(|e| format!("cannot build the upload message: {e:?}"))
    };
    set("upload", &JsValue::from_str(&text))?;
    set("file", file.as_ref())?;
    UPLOAD.with(|u| *u.borrow_mut() = Some((request.id, Box::new(listener))));
    sql::post(message.into())
}

/// Routes a worker message if it is an upload event; returns whether it was one.
pub fn dispatch(text: &str) -> bool {
    let Ok(event) = serde_json::from_str::<UploadEvent>(text) else {
        return false;
    };
    let last = !matches!(event, UploadEvent::UploadProgress { .. });
    let taken = UPLOAD.with(|u| {
        let mut u = u.borrow_mut();
        match u.as_ref() {
            Some((id, _)) if *id == event.id() => u.take(),
            _ => None,
        }
    });
    if let Some((id, mut listener)) = taken {
        listener(&event);
        if !last {
            UPLOAD.with(|u| {
                let mut u = u.borrow_mut();
                if u.is_none() {
                    *u = Some((id, listener));
                }
            });
        }
    }
    true
}

/// The worker stopped (cancelled or crashed): the running upload fails with `message`.
pub fn fail(message: &str) {
    if let Some((id, mut listener)) = UPLOAD.with(|u| u.borrow_mut().take()) {
        listener(&UploadEvent::UploadFailed {
            id,
            message: message.to_string(),
        });
    }
}
