//! The Data tab's pool of scan workers (P8): one Web Worker per core but one, each an instance of
//! the app's own compiled wasm module (`scan-worker.js`, `scan_serve`), kept for the page's life.
//! A read shared out by split ([`read_shared`]) is read by the page and the free workers at once,
//! its batches put back in plan order; a split a worker fails on is read again by the page, so a
//! worker can only make a read slower, never change its rows.

use crate::workers::port::{WorkerFailure, WorkerPort};
use crate::workers::scan_serve::PoolWarehouse;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use futures::StreamExt;
use js_sys::{Object, Reflect, Uint8Array};
use lakescope_engine::codecs::array_transfer;
use lakescope_engine::shared_read::{InOrder, SharedRead, SplitTicket};
use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
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
            let window = web_sys::window();
            let asked = window
                .as_ref()
                .and_then(|w| w.location().search().ok())
                .and_then(|q| web_sys::UrlSearchParams::new_with_str(&q).ok())
                .and_then(|p| p.get("threads"))
                .and_then(|t| t.trim().parse::<usize>().ok());
            let cores = window.map_or(1.0, |w| w.navigator().hardware_concurrency());
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

/// What the reader of a shared read does after a batch.
pub enum Flow {
    /// Goes on at once.
    Go,
    /// Lets the browser render first.
    Yield,
    /// Stops: the read is not wanted any more.
    Stop,
}

/// Where a shared read stands.
struct Reading<'a> {
    read: &'a SharedRead,
    /// The pool, once the first rows went on (`None`: the page reads alone).
    pool: Option<PoolUse>,
    /// The read's number in the pool (0 before it is taken).
    id: u64,
    schema: SchemaRef,
    warehouse: String,
    plan: String,
    order: InOrder<RecordBatch>,
    /// Splits no one reads yet, in plan order.
    queue: VecDeque<SplitTicket>,
    /// Splits a worker failed on: the page reads them.
    page_only: VecDeque<SplitTicket>,
    failed: HashSet<usize>,
    tickets: Vec<SplitTicket>,
    /// Splits the workers read (to their end).
    by_workers: usize,
}

/// The pool as a read uses it.
enum PoolUse {
    /// Taken once the first rows went on.
    Later,
    /// Held ([`lease`] gave it).
    Held(Lease),
}

impl Reading<'_> {
    /// Takes the pool (started on first use); without it (one core, another read holds it, no
    /// worker could start) the page reads alone.
    fn take_pool(&mut self) {
        self.pool = lease().map(|lease| {
            self.id = lease.read;
            PoolUse::Held(lease)
        });
    }

    /// Hands the next splits to the free workers.
    fn dispatch(&mut self) {
        POOL.with(|pool| {
            let mut pool = pool.borrow_mut();
            let Some(pool) = pool.as_mut() else { return };
            for slot in pool.slots.iter_mut() {
                if !slot.ready || slot.broken || slot.busy.is_some() {
                    continue;
                }
                let Some(ticket) = self.queue.pop_front() else {
                    return;
                };
                match post_read(slot, self.id, &self.warehouse, &self.plan, &ticket) {
                    Ok(()) => slot.busy = Some((self.id, ticket.index)),
                    Err(e) => {
                        web_sys::console::warn_1(&format!("lakescope: a scan worker: {e}").into());
                        slot.broken = true;
                        slot.port.terminate();
                        self.queue.push_front(ticket);
                    }
                }
            }
        })
    }

    /// Takes in what worker `worker` said.
    fn hear(&mut self, worker: usize, said: Said) {
        let free = |broken: bool| {
            POOL.with(|pool| {
                if let Some(slot) = pool
                    .borrow_mut()
                    .as_mut()
                    .and_then(|p| p.slots.get_mut(worker))
                {
                    slot.busy = None;
                    slot.ready |= !broken;
                    if broken {
                        slot.broken = true;
                        slot.port.terminate();
                    }
                }
            })
        };
        match said {
            Said::Ready => free(false),
            Said::Batch { read, split, bytes }
                if read == self.id && !self.failed.contains(&split) =>
            {
                let batch = array_transfer::batches_from_bytes(&bytes)
                    .map_err(|e| e.to_string())
                    .and_then(|batches| match <[RecordBatch; 1]>::try_from(batches) {
                        Ok([b]) if b.schema().fields() == self.schema.fields() => Ok(b),
                        _ => Err("not one batch of the read's schema".to_string()),
                    });
                match batch {
                    Ok(batch) => {
                        self.order.push(split, batch);
                    }
                    Err(e) => self.give_to_page(split, &e),
                }
            }
            Said::Batch { .. } => {}
            Said::Done { read, split } => {
                free(false);
                if read == self.id && !self.failed.contains(&split) {
                    self.order.finish(split);
                    self.by_workers += 1;
                }
            }
            Said::Failed { read, split, error } => {
                free(read.is_none());
                if let (Some(read), Some(split)) = (read, split) {
                    if read == self.id {
                        self.give_to_page(split, &error);
                    }
                }
            }
            Said::Broken(why) => {
                let busy = POOL.with(|pool| {
                    pool.borrow()
                        .as_ref()
                        .and_then(|p| p.slots.get(worker)?.busy)
                });
                free(true);
                web_sys::console::warn_1(
                    &format!("lakescope: a scan worker stopped: {why}").into(),
                );
                if let Some((read, split)) = busy {
                    if read == self.id {
                        self.give_to_page(split, &why);
                    }
                }
            }
        }
    }

    /// The page reads split `split` again (a worker failed on it: `why`).
    fn give_to_page(&mut self, split: usize, why: &str) {
        if !self.failed.insert(split) {
            return;
        }
        web_sys::console::warn_1(
            &format!("lakescope: a scan worker failed on split {split}, the page reads it: {why}")
                .into(),
        );
        self.order.discard(split);
        if let Some(ticket) = self.tickets.get(split) {
            self.page_only.push_back(ticket.clone());
        }
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

/// Reads `read` (planned on the page, of the warehouse `warehouse`) on the page and, when
/// `pooled`, the pool's free workers, calling `on_batch` with each batch in plan order and the
/// splits done so far; returns the splits the workers read. The page reads the first split and
/// the pool is taken only once its first rows went on, so that they come as fast as without
/// workers; a split a worker fails on is read again by the page.
pub async fn read_shared(
    read: &SharedRead,
    warehouse: &PoolWarehouse,
    pooled: bool,
    mut on_batch: impl FnMut(RecordBatch, usize) -> Flow,
) -> Result<usize, String> {
    let tickets = read.tickets();
    let mut reading = Reading {
        read,
        pool: pooled.then_some(PoolUse::Later),
        id: 0,
        schema: read.schema().await.map_err(|e| e.to_string())?,
        warehouse: serde_json::to_string(warehouse).map_err(|e| e.to_string())?,
        plan: serde_json::to_string(&read.share_plan()).map_err(|e| e.to_string())?,
        order: InOrder::new(tickets.len()),
        queue: tickets.iter().cloned().collect(),
        page_only: VecDeque::new(),
        failed: HashSet::new(),
        tickets,
        by_workers: 0,
    };
    // The page takes the first split at once: its first rows do not wait for a worker.
    let mut mine = reading.queue.pop_front();
    loop {
        if catch_up(&mut reading, &mut on_batch).await {
            return Ok(reading.by_workers);
        }
        if reading.order.is_done() {
            return Ok(reading.by_workers);
        }
        let ticket = mine
            .take()
            .or_else(|| reading.page_only.pop_front())
            .or_else(|| reading.queue.pop_front());
        let Some(ticket) = ticket else {
            // every split left is with a worker: wait for what they say
            let Some(PoolUse::Held(lease)) = reading.pool.as_mut() else {
                return Err("a split of the read is with no reader".to_string());
            };
            let said = lease.said.as_mut().ok_or("the pool is not held")?;
            let (worker, message) = said.next().await.ok_or("the scan workers stopped")?;
            reading.hear(worker, message);
            continue;
        };
        reading.order.stream(ticket.index);
        let mut split = reading
            .read
            .reader(&ticket)
            .await
            .map_err(|e| e.to_string())?;
        while let Some(batch) = split.next_batch().await {
            reading
                .order
                .push(ticket.index, batch.map_err(|e| e.to_string())?);
            if catch_up(&mut reading, &mut on_batch).await {
                return Ok(reading.by_workers);
            }
        }
        reading.order.finish(ticket.index);
        // the first split had no rows: the pool is not held back any longer
        if let Some(PoolUse::Later) = reading.pool {
            reading.take_pool();
        }
    }
}

/// Takes in what the workers said, hands out splits to the free ones and passes on the batches
/// that may go (taking the pool once the first went on); `true`: `on_batch` stopped the read.
async fn catch_up(
    reading: &mut Reading<'_>,
    on_batch: &mut impl FnMut(RecordBatch, usize) -> Flow,
) -> bool {
    if let Some(PoolUse::Held(lease)) = reading.pool.as_mut() {
        let mut heard = Vec::new();
        if let Some(said) = lease.said.as_mut() {
            while let Ok(message) = said.try_recv() {
                heard.push(message);
            }
        }
        for (worker, message) in heard {
            reading.hear(worker, message);
        }
        reading.dispatch();
    }
    while let Some(batch) = reading.order.pop() {
        match on_batch(batch, reading.order.splits_done()) {
            Flow::Go => {}
            Flow::Yield => crate::util::yield_to_browser().await,
            Flow::Stop => return true,
        }
        if let Some(PoolUse::Later) = reading.pool {
            reading.take_pool();
        }
    }
    false
}
