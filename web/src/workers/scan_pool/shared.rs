//! A read shared out between the page and the pool's workers: the page reads the first split
//! and any a worker fails on, the free workers the others, the batches put back in plan order.

use super::{lease, post_read, Lease, Said, POOL};
use crate::workers::scan_serve::PoolWarehouse;
use arrow_array::RecordBatch;
use futures::StreamExt;
use lakescope_engine::codecs::array_transfer;
use lakescope_engine::shared_read::{InOrder, SharedRead, SplitTicket};
use std::collections::{HashSet, VecDeque};

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
                        Ok([b]) if b.schema().fields() == self.read.schema().fields() => Ok(b),
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
