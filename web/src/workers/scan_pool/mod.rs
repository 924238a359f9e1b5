//! The Data tab's pool of scan workers (P8): one Web Worker per core but one (from [`MIN_CORES`]
//! cores, or as `?threads=N` asks), each an instance of the app's own compiled wasm module
//! (`scan-worker.js`, `scan_serve`), started on first use and kept for the page's life, and held
//! by one read at a time ([`lease`]). A read shared out by split ([`read_shared`]) is read by the
//! page and the free workers at once, its batches put back in plan order; a split a worker fails
//! on is read again by the page, so a worker can only make a read slower, never change its rows.

mod shared;

pub use shared::{read_shared, Flow};

use crate::workers::port::{WorkerFailure, WorkerPort};
use futures::channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use js_sys::{Object, Reflect, Uint8Array};
use lakescope_engine::shared_read::SplitTicket;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The workers' script, next to the page (copied by Trunk, see web/index.html).
const WORKER_SCRIPT: &str = "scan-worker.js";
/// Cores from which the page starts scan workers unasked.
const MIN_CORES: usize = 4;
/// Workers at most, whatever the machine says.
const MAX_WORKERS: usize = 7;

/// What a worker said.
enum Said {
    Ready,
    Batch {
        read: u64,
        split: usize,
        bytes: Vec<u8>,
    },
    Done {
        read: u64,
        split: usize,
    },
    Failed {
        read: Option<u64>,
        split: Option<usize>,
        error: String,
    },
    /// Its script could not load or threw: it is not used again.
    Broken(String),
}

/// One worker of the pool.
struct Slot {
    port: WorkerPort,
    ready: bool,
    /// The read and split it is reading.
    busy: Option<(u64, usize)>,
    broken: bool,
}

struct Pool {
    slots: Vec<Slot>,
    /// What the workers say; taken by the read that uses the pool ([`Lease`]).
    said: Option<UnboundedReceiver<(usize, Said)>>,
    next_read: u64,
}

thread_local! {
    static POOL: RefCell<Option<Pool>> = const { RefCell::new(None) };
    static READERS: std::cell::OnceCell<(usize, bool)> = const { std::cell::OnceCell::new() };
}

/// Readers a read may use in all, the page included: the `threads` parameter of the address
/// the page was loaded at (`?threads=1`: the page alone), else the browser's count of cores
/// from [`MIN_CORES`] on, else 1: on 2 cores the page and one worker read no faster than the
/// page alone (the browser's network process and the page's own rendering take the second
/// core; docs/benchmarks.md, P8 "in the app").
pub(crate) fn readers() -> usize {
    threads().0
}

/// Whether the page's address asked for a number of readers (`?threads=N`): every read of more
/// than one split is then shared out, however small.
pub(crate) fn readers_asked() -> bool {
    threads().1
}

fn threads() -> (usize, bool) {
    READERS.with(|readers| {
        *readers.get_or_init(|| {
            let asked =
                crate::util::address_param("threads").and_then(|t| t.trim().parse::<usize>().ok());
            let cores = web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency());
            let cores = cores as usize;
            let default = if cores >= MIN_CORES { cores } else { 1 };
            let n = asked.unwrap_or(default).clamp(1, MAX_WORKERS + 1);
            (n, asked.is_some())
        })
    })
}

/// The message a worker sent, as [`Said`].
fn said(data: &JsValue) -> Said {
    let get = |k: &str| Reflect::get(data, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let read = get("read").as_f64().map(|r| r as u64);
    let split = get("split").as_f64().map(|s| s as usize);
    match (get("op").as_string().as_deref(), read, split) {
        (Some("ready"), _, _) => Said::Ready,
        (Some("batch"), Some(read), Some(split)) => Said::Batch {
            read,
            split,
            bytes: get("bytes")
                .dyn_into::<Uint8Array>()
                .map(|b| b.to_vec())
                .unwrap_or_default(),
        },
        (Some("done"), Some(read), Some(split)) => Said::Done { read, split },
        _ => Said::Failed {
            read,
            split,
            error: get("error")
                .as_string()
                .unwrap_or_else(|| "the scan worker sent an unknown message".to_string()),
        },
    }
}

/// Starts the pool's workers, each given the page's compiled module and JS glue.
fn start(workers: usize) -> Result<Pool, String> {
    let glue = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector("meta[name=\"lakescope-app\"]")
                .ok()
                .flatten()
        })
        .and_then(|m| m.get_attribute("data-js"))
        .ok_or("the page names no app glue")?;
    let base = web_sys::window()
        .and_then(|w| w.location().href().ok())
        .ok_or("the page has no address")?;
    let glue = web_sys::Url::new_with_base(&glue, &base)
        .map_err(|e| format!("the app glue's address: {e:?}"))?
        .href();
    let (tell, said_rx) = unbounded();
    let mut slots = Vec::new();
    for i in 0..workers {
        let slot = start_worker(i, &glue, tell.clone())?;
        slots.push(slot);
    }
    Ok(Pool {
        slots,
        said: Some(said_rx),
        next_read: 1,
    })
}

fn start_worker(
    i: usize,
    glue: &str,
    tell: UnboundedSender<(usize, Said)>,
) -> Result<Slot, String> {
    let on_failure = {
        let tell = tell.clone();
        move |failure| {
            let why = match failure {
                WorkerFailure::NotLoaded => format!("{WORKER_SCRIPT} could not be loaded"),
                WorkerFailure::Stopped(detail) => detail,
            };
            let _ = tell.unbounded_send((i, Said::Broken(why)));
        }
    };
    let on_message = move |data: JsValue| {
        let _ = tell.unbounded_send((i, said(&data)));
    };
    let mut port = WorkerPort::start_module(WORKER_SCRIPT, on_message, on_failure)?;
    port.mark_ready()?;
    let init = Object::new();
    let set = |k: &str, v: &JsValue| Reflect::set(&init, &k.into(), v).map(|_| ());
    set("op", &"init".into())
        .and_then(|_| set("glue", &glue.into()))
        .and_then(|_| set("module", &wasm_bindgen::module()))
        .map_err(|e| format!("building the scan worker's start: {e:?}"))?;
    port.post(init.into(), None)?;
    Ok(Slot {
        port,
        ready: false,
        busy: None,
        broken: false,
    })
}

/// The pool, held by one read: what its workers say comes to it alone, and goes back to the
/// pool when the read ends (however it ends).
pub struct Lease {
    said: Option<UnboundedReceiver<(usize, Said)>>,
    read: u64,
}

/// The pool for one read (started on first use): `None` when this page reads alone (one core,
/// `?threads=1`, no workers could start) or another read holds it.
pub fn lease() -> Option<Lease> {
    let workers = readers() - 1;
    if workers == 0 {
        return None;
    }
    POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        if pool.is_none() {
            match start(workers) {
                Ok(started) => *pool = Some(started),
                Err(e) => {
                    web_sys::console::warn_1(&format!("lakescope: no scan workers: {e}").into());
                    return None;
                }
            }
        }
        let pool = pool.as_mut()?;
        if pool.slots.iter().all(|s| s.broken) {
            return None;
        }
        let said = pool.said.take()?;
        pool.next_read += 1;
        Some(Lease {
            said: Some(said),
            read: pool.next_read,
        })
    })
}

impl Drop for Lease {
    fn drop(&mut self) {
        let said = self.said.take();
        POOL.with(|pool| {
            if let Some(pool) = pool.borrow_mut().as_mut() {
                pool.said = said;
            }
        });
    }
}

fn post_read(
    slot: &mut Slot,
    read: u64,
    warehouse: &str,
    plan: &str,
    ticket: &SplitTicket,
) -> Result<(), String> {
    let message = Object::new();
    let ticket = serde_json::to_string(ticket).map_err(|e| e.to_string())?;
    let set = |k: &str, v: &JsValue| Reflect::set(&message, &k.into(), v).map(|_| ());
    set("op", &"read".into())
        .and_then(|_| set("read", &JsValue::from(read as f64)))
        .and_then(|_| set("warehouse", &warehouse.into()))
        .and_then(|_| set("plan", &plan.into()))
        .and_then(|_| set("ticket", &ticket.into()))
        .map_err(|e| format!("building a read: {e:?}"))?;
    slot.port.post(message.into(), None)
}
