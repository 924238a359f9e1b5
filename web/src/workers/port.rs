//! A Web Worker the page starts on first use: posts wait until the worker says it is ready, and a
//! script that cannot load or that throws reaches the owner as one failure.

use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{ErrorEvent, Event, MessageEvent, Worker, WorkerOptions, WorkerType};

/// Why a worker failed.
pub enum WorkerFailure {
    /// Its script could not be fetched (a plain `Event`, without a message).
    NotLoaded,
    /// Its script threw (an `ErrorEvent`): the message.
    Stopped(String),
}

/// A started worker and the messages waiting for it to be ready.
pub struct WorkerPort {
    worker: Worker,
    ready: bool,
    /// Messages posted before the worker was ready, with the buffers to transfer.
    queued: Vec<(JsValue, Option<Array>)>,
    /// Keep the JS callbacks alive as long as the worker.
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

impl WorkerPort {
    /// Starts the worker of `script` (a loader next to the page): `on_message` gets the data of
    /// each message it sends, `on_failure` why it failed. `Err` is the browser's refusal.
    pub fn start(
        script: &str,
        on_message: impl FnMut(JsValue) + 'static,
        on_failure: impl FnMut(WorkerFailure) + 'static,
    ) -> Result<Self, String> {
        let worker = Worker::new(script).map_err(|e| format!("{e:?}"))?;
        Ok(Self::listen(worker, on_message, on_failure))
    }

    /// [`WorkerPort::start`] for a module script (one that `import`s).
    pub fn start_module(
        script: &str,
        on_message: impl FnMut(JsValue) + 'static,
        on_failure: impl FnMut(WorkerFailure) + 'static,
    ) -> Result<Self, String> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Module);
        let worker = Worker::new_with_options(script, &options).map_err(|e| format!("{e:?}"))?;
        Ok(Self::listen(worker, on_message, on_failure))
    }

    fn listen(
        worker: Worker,
        mut on_message: impl FnMut(JsValue) + 'static,
        mut on_failure: impl FnMut(WorkerFailure) + 'static,
    ) -> Self {
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            on_message(event.data())
        });
        let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            on_failure(
                match event.dyn_ref::<ErrorEvent>().map(ErrorEvent::message) {
                    Some(detail) if !detail.is_empty() => WorkerFailure::Stopped(detail),
                    _ => WorkerFailure::NotLoaded,
                },
            )
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Self {
            worker,
            ready: false,
            queued: Vec::new(),
            _on_message: on_message,
            _on_error: on_error,
        }
    }

    /// Posts `message` (moving the buffers of `transfer`), or queues it until the worker is ready.
    /// `Err` is the browser's refusal.
    pub fn post(&mut self, message: JsValue, transfer: Option<Array>) -> Result<(), String> {
        if !self.ready {
            self.queued.push((message, transfer));
            return Ok(());
        }
        match &transfer {
            Some(transfer) => self.worker.post_message_with_transfer(&message, transfer),
            None => self.worker.post_message(&message),
        }
        .map_err(|e| format!("{e:?}"))
    }

    /// Marks the worker ready (it said so) and posts what was queued.
    pub fn mark_ready(&mut self) -> Result<(), String> {
        self.ready = true;
        for (message, transfer) in std::mem::take(&mut self.queued) {
            self.post(message, transfer)?;
        }
        Ok(())
    }

    /// Whether the worker has said it is ready.
    pub fn is_ready(&self) -> bool {
        self.ready
    }

    /// Stops the worker at once.
    pub fn terminate(&self) {
        self.worker.terminate();
    }
}
