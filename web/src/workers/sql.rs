//! The page's side of the SQL worker: started on first use (the SQL engine is a separate download),
//! requests queued until it is ready, events routed to the caller, cancel by termination.

use crate::workers::port::{WorkerFailure, WorkerPort};
use lakescope_engine::session::{ConsoleEvent, ConsoleRequest};
use lakescope_engine::{CatalogAddress, CatalogSecrets, ServedLocation};
use lakescope_storage::uri::StoreOptions;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// The worker's loader script, next to the page (written by `scripts/build-sql-worker.sh`).
const WORKER_SCRIPT: &str = "lakescope-sql-worker_loader.js";

/// Receives the events of one request.
type Listener = Box<dyn FnMut(&ConsoleEvent)>;
/// A listener shared by the requests of one run (the warehouse open and the statements).
type SharedListener = Rc<RefCell<dyn FnMut(&ConsoleEvent)>>;

/// What the worker's session opens as its current catalog `lakescope`: the page's warehouse, or
/// the REST catalog service the page has open (its statements then commit through it).
#[derive(Clone, PartialEq)]
pub enum Connection {
    /// A warehouse at its base URL, reached with these options.
    Warehouse {
        /// The warehouse's base URL.
        base_url: String,
        /// How to reach it (S3 settings).
        options: StoreOptions,
    },
    /// A catalog service, with the secrets the page holds in memory.
    Catalog {
        /// The service.
        address: CatalogAddress,
        /// Its token or client credential.
        secrets: CatalogSecrets,
        /// How to reach its tables' stores (S3 settings).
        options: StoreOptions,
        /// The form's served-location mapping.
        served: Option<ServedLocation>,
    },
}

impl Connection {
    /// The request that opens it in the worker's session.
    fn open_request(&self, id: u64) -> ConsoleRequest {
        match self.clone() {
            Self::Warehouse { base_url, options } => ConsoleRequest::Open {
                id,
                uri: base_url,
                options: Box::new(options),
            },
            Self::Catalog {
                address,
                secrets,
                options,
                served,
            } => ConsoleRequest::OpenCatalog {
                id,
                address,
                secrets,
                options: Box::new(options),
                served,
            },
        }
    }
}

/// A running worker and what it is doing.
struct Running {
    /// The worker; it queues requests (JSON text, or an upload object) until it is ready.
    port: WorkerPort,
    /// What the worker's session has open.
    opened: Option<Connection>,
    listeners: HashMap<u64, Listener>,
}

thread_local! {
    static WORKER: RefCell<Option<Running>> = const { RefCell::new(None) };
    static NEXT_ID: RefCell<u64> = const { RefCell::new(1) };
}

fn next_id() -> u64 {
    NEXT_ID.with(|n| {
        let id = *n.borrow();
        *n.borrow_mut() = id + 1;
        id
    })
}

fn request_id(request: &ConsoleRequest) -> u64 {
    match request {
        ConsoleRequest::Open { id, .. }
        | ConsoleRequest::OpenCatalog { id, .. }
        | ConsoleRequest::Run { id, .. }
        | ConsoleRequest::PreviewAlter { id, .. } => *id,
    }
}

fn event_id(event: &ConsoleEvent) -> Option<u64> {
    match event {
        ConsoleEvent::Ready => None,
        ConsoleEvent::Statement { id, .. }
        | ConsoleEvent::Done { id, .. }
        | ConsoleEvent::Failed { id, .. }
        | ConsoleEvent::AlterPreview { id, .. } => Some(*id),
    }
}

/// Delivers one event from the worker.
fn dispatch(event: ConsoleEvent) {
    if matches!(event, ConsoleEvent::Ready) {
        let posted = WORKER.with(|w| w.borrow_mut().as_mut().map(|r| r.port.mark_ready()));
        if let Some(Err(e)) = posted {
            fail_all(&format!("Cannot reach the SQL engine: {e}"));
        }
        return;
    }
    let Some(id) = event_id(&event) else { return };
    let last = matches!(
        event,
        ConsoleEvent::Done { .. } | ConsoleEvent::Failed { .. } | ConsoleEvent::AlterPreview { .. }
    );
    // Take the listener out while it runs: it may post new requests.
    let listener = WORKER.with(|w| w.borrow_mut().as_mut()?.listeners.remove(&id));
    if let Some(mut listener) = listener {
        listener(&event);
        if !last {
            WORKER.with(|w| {
                if let Some(running) = w.borrow_mut().as_mut() {
                    running.listeners.insert(id, listener);
                }
            });
        }
    }
}

/// Fails every waiting request with `message` and forgets the worker.
fn fail_all(message: &str) {
    crate::workers::upload::fail(message);
    let listeners = WORKER.with(|w| {
        w.borrow_mut()
            .take()
            .map(|mut running| {
                running.port.terminate();
                std::mem::take(&mut running.listeners)
            })
            .unwrap_or_default()
    });
    for (id, mut listener) in listeners {
        listener(&ConsoleEvent::Failed {
            id,
            message: message.to_string(),
        });
    }
}

fn start() -> Result<(), String> {
    let on_message = |data: JsValue| {
        let Some(text) = data.as_string() else {
            return;
        };
        if crate::workers::upload::dispatch(&text) {
            return;
        }
        match serde_json::from_str::<ConsoleEvent>(&text) {
            Ok(event) => dispatch(event),
            Err(e) => fail_all(&format!(
                "The SQL engine sent a message the page does not understand: {e}"
            )),
        }
    };
    let on_failure = |failure| {
        let message = match failure {
            WorkerFailure::NotLoaded => {
                crate::widgets::engine_status::not_loaded_message(WORKER_SCRIPT)
            }
            WorkerFailure::Stopped(detail) => {
                format!("The SQL engine stopped: {detail} — run again to restart it.")
            }
        };
        // A host without the engine may answer its script with the app's page, which the worker
        // runs and stops on: ask the host whether the script is there. The next run starts the
        // worker again, so an engine still being built is picked up by a click once it is there.
        leptos::task::spawn_local(async move {
            let missing =
                crate::widgets::engine_status::missing_engine_message(WORKER_SCRIPT).await;
            fail_all(&missing.unwrap_or(message))
        })
    };
    let port = WorkerPort::start(WORKER_SCRIPT, on_message, on_failure)
        .map_err(|e| format!("Cannot start the SQL engine ({WORKER_SCRIPT}): {e}"))?;
    WORKER.with(|w| {
        *w.borrow_mut() = Some(Running {
            port,
            opened: None,
            listeners: HashMap::new(),
        })
    });
    Ok(())
}

/// Posts `request` (starting the worker if needed) and routes its events to `listener`.
fn send(request: ConsoleRequest, listener: Listener) -> Result<(), String> {
    if WORKER.with(|w| w.borrow().is_none()) {
        start()?;
    }
    let text = serde_json::to_string(&request).map_err(|e| e.to_string())?;
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        let running = w.as_mut().ok_or("The SQL engine is not running.")?;
        running.listeners.insert(request_id(&request), listener);
        running
            .port
            .post(JsValue::from_str(&text), None)
            .map_err(|e| format!("Cannot reach the SQL engine: {e}"))
    })
}

/// Opens `connection` in the worker's session unless it has it open already; `on_event` sees
/// why an open failed.
fn ensure_open(connection: &Connection, on_event: SharedListener) -> Result<(), String> {
    let opened = WORKER.with(|w| w.borrow().as_ref().and_then(|r| r.opened.clone()));
    if opened.as_ref() == Some(connection) {
        return Ok(());
    }
    let connection = connection.clone();
    send(
        connection.open_request(next_id()),
        Box::new(move |event| {
            if matches!(event, ConsoleEvent::Done { .. }) {
                WORKER.with(|w| {
                    if let Some(running) = w.borrow_mut().as_mut() {
                        running.opened = Some(connection.clone());
                    }
                });
            } else {
                (on_event.borrow_mut())(event);
            }
        }),
    )
}

/// Runs `sql` in the worker's session over `connection` (opened first if the session has
/// another one), stopping at the first failing statement; `on_event` sees each statement and
/// then `Done` or `Failed`.
pub fn run(
    connection: &Connection,
    sql: String,
    max_rows: usize,
    on_event: impl FnMut(&ConsoleEvent) + 'static,
) -> Result<(), String> {
    run_script(connection, sql, max_rows, false, on_event)
}

/// [`run`], going on after failing statements when `keep_going` is set (as `lakescope sql
/// --keep-going`).
pub fn run_script(
    connection: &Connection,
    sql: String,
    max_rows: usize,
    keep_going: bool,
    on_event: impl FnMut(&ConsoleEvent) + 'static,
) -> Result<(), String> {
    let on_event: SharedListener = Rc::new(RefCell::new(on_event));
    ensure_open(connection, on_event.clone())?;
    send(
        ConsoleRequest::Run {
            id: next_id(),
            sql,
            keep_going,
            max_rows,
        },
        Box::new(move |event| (on_event.borrow_mut())(event)),
    )
}

/// Validates one ALTER TABLE in the worker's session over `connection` and applies it to the
/// table's schema without committing; `on_event` sees `AlterPreview` (or `Failed`).
pub fn preview_alter(
    connection: &Connection,
    sql: String,
    on_event: impl FnMut(&ConsoleEvent) + 'static,
) -> Result<(), String> {
    let on_event: SharedListener = Rc::new(RefCell::new(on_event));
    ensure_open(connection, on_event.clone())?;
    send(
        ConsoleRequest::PreviewAlter { id: next_id(), sql },
        Box::new(move |event| (on_event.borrow_mut())(event)),
    )
}

/// Posts `message` (an upload object) to the worker, starting it if needed; it is queued until
/// the worker is ready.
pub fn post(message: JsValue) -> Result<(), String> {
    if WORKER.with(|w| w.borrow().is_none()) {
        start()?;
    }
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        let running = w.as_mut().ok_or("The SQL engine is not running.")?;
        running
            .port
            .post(message, None)
            .map_err(|e| format!("Cannot reach the SQL engine: {e}"))
    })
}

/// Whether the SQL engine has been downloaded and started.
pub fn is_ready() -> bool {
    WORKER.with(|w| w.borrow().as_ref().is_some_and(|r| r.port.is_ready()))
}

/// Stops whatever the worker is running (its session is lost; the next run starts a new one).
pub fn cancel() {
    fail_all("Cancelled: nothing after the last finished statement was run.");
}
