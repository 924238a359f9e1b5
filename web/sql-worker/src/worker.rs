//! The worker's message loop: requests from the page in, console events out, one request at a time.

use futures::channel::mpsc;
use futures::StreamExt;
use lakescope_engine::browser_env::BrowserEnv;
use lakescope_engine::session::{
    ConsoleEvent, ConsoleRequest, Session, StatementReport, StoreOpener,
};
use lakescope_engine::ServedLocation;
use lakescope_query::DataFusionEngine;
use lakescope_storage::transport::{FetchTransport, HttpTransport};
use lakescope_storage::uri::StoreOptions;
use lakescope_storage::ObjectStore;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// The catalog name the open warehouse or catalog service gets, as `lakescope sql --warehouse`
/// names it.
const WAREHOUSE_CATALOG: &str = "lakescope";

/// How long one request to a catalog service may take (answer and whole body), as in the page.
const CATALOG_TIMEOUT: Duration = Duration::from_secs(30);

/// Opens the warehouses a session names (its own and those of CREATE CATALOG) as the page does,
/// reaches catalog services with `fetch` (a worker's global scope), and opens the tables they
/// locate at their location (mapped by `served`) with the settings they vend.
struct BrowserOpener {
    options: StoreOptions,
    served: Option<ServedLocation>,
}

impl StoreOpener for BrowserOpener {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        lakescope_storage::browser::open(uri, &self.options)
    }

    fn open_vended(
        &self,
        location: &str,
        vended: &BTreeMap<String, String>,
    ) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        let reachable = ServedLocation::reachable(self.served.as_ref(), location);
        lakescope_storage::browser::open(&reachable, &self.options.with_vended(vended))
    }

    fn catalog_transport(&self, _uri: &str) -> lakescope_storage::Result<Rc<dyn HttpTransport>> {
        Ok(Rc::new(FetchTransport::with_timeout(CATALOG_TIMEOUT)))
    }
}

fn new_session(options: StoreOptions, served: Option<ServedLocation>) -> Session {
    Session::new(
        Rc::new(BrowserOpener { options, served }),
        Rc::new(DataFusionEngine),
        Rc::new(BrowserEnv),
    )
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Posts an event to the page as JSON text.
fn post(event: &ConsoleEvent) {
    match serde_json::to_string(event) {
        Ok(text) => {
            if let Err(e) = scope().post_message(&JsValue::from_str(&text)) {
                web_sys::console::error_2(&JsValue::from_str("lakescope sql worker:"), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&JsValue::from_str(&format!(
            "lakescope sql worker: cannot encode an event: {e}"
        ))),
    }
}

/// Installs the message handler and serves requests in order until the page terminates us.
pub fn start() {
    console_error_panic_hook::set_once();
    let (requests, mut incoming) = mpsc::unbounded::<String>();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        if let Some(text) = event.data().as_string() {
            let _ = requests.unbounded_send(text);
        } else {
            crate::upload::accept(&event.data());
        }
    });
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    wasm_bindgen_futures::spawn_local(async move {
        let mut session = new_session(StoreOptions::default(), None);
        post(&ConsoleEvent::Ready);
        while let Some(text) = incoming.next().await {
            match serde_json::from_str::<ConsoleRequest>(&text) {
                Ok(request) => serve(&mut session, request).await,
                Err(e) => post(&ConsoleEvent::Failed {
                    id: 0,
                    message: format!("the SQL worker got a request it does not understand: {e}"),
                }),
            }
        }
    });
}

async fn serve(session: &mut Session, request: ConsoleRequest) {
    match request {
        ConsoleRequest::Open { id, uri, options } => {
            *session = new_session(*options, None);
            match session.open_warehouse(WAREHOUSE_CATALOG, &uri).await {
                Ok(()) => post(&ConsoleEvent::Done { id, failed: 0 }),
                Err(e) => post(&ConsoleEvent::Failed {
                    id,
                    message: format!("cannot open the warehouse {uri}: {e}"),
                }),
            }
        }
        ConsoleRequest::OpenCatalog {
            id,
            address,
            secrets,
            options,
            served,
        } => {
            *session = new_session(*options, served);
            match session
                .open_service(WAREHOUSE_CATALOG, &address, secrets)
                .await
            {
                Ok(()) => post(&ConsoleEvent::Done { id, failed: 0 }),
                Err(e) => post(&ConsoleEvent::Failed {
                    id,
                    message: format!("cannot open the catalog: {e}"),
                }),
            }
        }
        ConsoleRequest::Run {
            id,
            sql,
            keep_going,
            max_rows,
        } => {
            let mut started = js_sys::Date::now();
            let failed = session
                .run_script(&sql, keep_going, &mut |parsed, result| {
                    let now = js_sys::Date::now();
                    post(&ConsoleEvent::Statement {
                        id,
                        report: StatementReport::new(parsed, result, max_rows),
                        millis: now - started,
                    });
                    started = now;
                })
                .await;
            post(&ConsoleEvent::Done { id, failed });
        }
        ConsoleRequest::PreviewAlter { id, sql } => {
            let outcome = session.preview_alter(&sql).await;
            post(&ConsoleEvent::AlterPreview { id, outcome });
        }
    }
}
