//! The worker threads of a parallel scan: each opens its own table handle and reads the splits it
//! claims from a shared queue (a Paimon table's splits, an Iceberg table's data files), sending
//! what it makes of each batch (the batch itself, or a consumer's per-batch result) back over a
//! bounded channel.

use super::{CatalogOpener, SplitOrder};
use crate::{Error, Result, TableRef};
use arrow_array::RecordBatch;
use lakescope_iceberg::read::DeleteCache;
use lakescope_iceberg::PlannedRead;
use lakescope_paimon::scan::Split;
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
use std::sync::mpsc::{sync_channel, Receiver, RecvError, SyncSender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// Batches a worker may have sent that the caller has not taken yet.
const BATCHES_IN_FLIGHT_PER_WORKER: usize = 2;

/// A planned read, as plain data every worker gets a copy of.
pub(super) struct ReadJob {
    /// Opens the catalog the table is read through, on the worker's thread.
    pub opener: Arc<dyn CatalogOpener>,
    /// The table read (its name in errors).
    pub table_ref: TableRef,
    /// What the workers read, split by split.
    pub work: Work,
}

/// The splits of a planned read.
pub(super) enum Work {
    /// A Paimon table's splits of one snapshot.
    Paimon(Box<PaimonSplits>),
    /// An Iceberg table's data files (a split each), with their deletes.
    Iceberg(Box<PlannedRead>),
}

/// A Paimon table's splits of one snapshot, with what reads them.
pub(super) struct PaimonSplits {
    /// The branch read (`None`: the handle's own, `main`).
    pub branch: Option<String>,
    /// The snapshot the splits were planned on.
    pub snapshot: Option<Snapshot>,
    /// The read's columns, filter and schema choice.
    pub request: ReadRequest,
    /// The splits, in plan order.
    pub splits: Vec<Split>,
}

impl Work {
    /// How many splits there are to claim.
    fn len(&self) -> usize {
        match self {
            Work::Paimon(paimon) => paimon.splits.len(),
            Work::Iceberg(planned) => planned.files().len(),
        }
    }
}

/// What a worker makes of each batch it reads, on its own thread (the caller's per-batch work:
/// the batch itself for a scan, its checksum for a benchmark).
pub type BatchMap<T> = Arc<dyn Fn(RecordBatch) -> T + Send + Sync>;

/// What a worker sends to the caller.
enum Message<T> {
    /// What the worker made of a batch of the split it is reading.
    Batch(T),
    /// The split the worker was reading is over.
    SplitDone,
}

/// The queue of splits and the first failure, shared by the workers and the caller.
struct Shared {
    state: Mutex<QueueState>,
    /// Signalled when a split is claimed or the read stops.
    changed: Condvar,
}

#[derive(Default)]
struct QueueState {
    /// The worker that claimed each split so far (split `i` is `owners[i]`).
    owners: Vec<usize>,
    /// Set once the read must end: a worker failed, or the caller is gone.
    stopped: bool,
    /// The first failure of a worker.
    failure: Option<Error>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next split for `worker` (`None`: all claimed, or the read stopped).
    fn claim(&self, worker: usize, total: usize) -> Option<usize> {
        let mut state = self.state();
        let next = state.owners.len();
        if state.stopped || next >= total {
            return None;
        }
        state.owners.push(worker);
        self.changed.notify_all();
        Some(next)
    }

    fn stopped(&self) -> bool {
        self.state().stopped
    }

    /// Stops the read; the first failure is kept for the caller.
    fn stop(&self, failure: Option<Error>) {
        let mut state = self.state();
        state.stopped = true;
        if state.failure.is_none() {
            state.failure = failure;
        }
        self.changed.notify_all();
    }

    /// The worker that claimed split `split`, waiting for the claim (`Err`: the read stopped).
    fn owner(&self, split: usize) -> std::result::Result<usize, ()> {
        let mut state = self.state();
        loop {
            if let Some(&owner) = state.owners.get(split) {
                return Ok(owner);
            }
            if state.stopped {
                return Err(());
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The failure that stopped the read, or why a worker went away without one.
    fn failure(&self) -> Error {
        self.state().failure.take().unwrap_or_else(|| {
            Error::Invalid("a scan worker thread ended without finishing its split".into())
        })
    }
}

/// Where the caller takes batches from.
enum Inbox<T> {
    /// One channel per worker, read in split order.
    Ordered {
        channels: Vec<Receiver<Message<T>>>,
        /// The split whose batches come next.
        split: usize,
    },
    /// One channel all workers send to.
    Unordered {
        channel: Receiver<Message<T>>,
        /// Splits read to their end so far.
        done: usize,
    },
}

/// The running workers of one read; [`SplitPool::next_batch`] takes what they made of their
/// batches on the calling thread. Dropping it stops the workers and waits for them.
pub(super) struct SplitPool<T> {
    shared: Arc<Shared>,
    inbox: Option<Inbox<T>>,
    total: usize,
    workers: Vec<JoinHandle<()>>,
    finished: bool,
}

impl<T: Send + 'static> SplitPool<T> {
    /// Starts `workers` threads (at least one) reading the splits of `job`, each passing every
    /// batch it reads through `map` before sending the result.
    pub fn start(
        job: ReadJob,
        workers: usize,
        order: SplitOrder,
        map: BatchMap<T>,
    ) -> Result<Self> {
        let job = Arc::new(job);
        let total = job.work.len();
        let shared = Arc::new(Shared {
            state: Mutex::new(QueueState::default()),
            changed: Condvar::new(),
        });
        let workers = workers.max(1);
        let (senders, inbox) = match order {
            SplitOrder::Plan => {
                let (senders, channels) = (0..workers)
                    .map(|_| sync_channel(BATCHES_IN_FLIGHT_PER_WORKER))
                    .unzip();
                (senders, Inbox::Ordered { channels, split: 0 })
            }
            SplitOrder::Any => {
                let (sender, channel) = sync_channel(BATCHES_IN_FLIGHT_PER_WORKER * workers);
                (vec![sender; workers], Inbox::Unordered { channel, done: 0 })
            }
        };
        let mut pool = Self {
            shared: shared.clone(),
            inbox: Some(inbox),
            total,
            workers: Vec::with_capacity(workers),
            finished: false,
        };
        for (worker, sender) in senders.into_iter().enumerate() {
            let (worker_job, worker_shared, map) = (job.clone(), shared.clone(), map.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("lakescope-scan-{worker}"))
                .spawn(move || run_worker(worker, &worker_job, &worker_shared, &*map, sender));
            match spawned {
                Ok(handle) => pool.workers.push(handle),
                Err(e) => {
                    return Err(Error::Invalid(format!(
                        "{}: cannot start scan worker thread {worker}: {e}",
                        job.table_ref
                    )))
                }
            }
        }
        Ok(pool)
    }

    /// What a worker made of the next batch (`None`: every split has been read), blocking the
    /// calling thread until a worker sends one. With [`SplitOrder::Plan`] the batches of each
    /// split come in order and the splits in plan order. A worker's failure ends the read with
    /// that error.
    pub fn next_batch(&mut self) -> Option<Result<T>> {
        if self.finished {
            return None;
        }
        let next = self.receive();
        if !matches!(next, Some(Ok(_))) {
            self.finished = true;
        }
        next
    }

    fn receive(&mut self) -> Option<Result<T>> {
        let shared = &self.shared;
        match self.inbox.as_mut()? {
            Inbox::Unordered { channel, done } => loop {
                match channel.recv() {
                    Ok(Message::Batch(batch)) => return Some(Ok(batch)),
                    Ok(Message::SplitDone) => *done += 1,
                    // every worker is gone: the read is over, or one failed
                    Err(RecvError) if *done == self.total => return None,
                    Err(RecvError) => return Some(Err(shared.failure())),
                }
            },
            Inbox::Ordered { channels, split } => loop {
                if *split >= self.total {
                    return None;
                }
                let Ok(owner) = shared.owner(*split) else {
                    return Some(Err(shared.failure()));
                };
                match channels[owner].recv() {
                    Ok(Message::Batch(batch)) => return Some(Ok(batch)),
                    Ok(Message::SplitDone) => *split += 1,
                    Err(RecvError) => return Some(Err(shared.failure())),
                }
            },
        }
    }
}

impl<T> Drop for SplitPool<T> {
    fn drop(&mut self) {
        self.shared.stop(None);
        // a worker blocked on a full channel wakes with an error once its receiver is gone
        self.inbox = None;
        for worker in self.workers.drain(..) {
            // a worker that panicked has nothing more to say: the caller got its error already
            let _ = worker.join();
        }
    }
}

/// One worker thread: a current-thread runtime, its own catalog and table handle, then splits
/// claimed one by one until none is left or the read stops.
fn run_worker<T>(
    worker: usize,
    job: &ReadJob,
    shared: &Shared,
    map: &(dyn Fn(RecordBatch) -> T + Send + Sync),
    sender: SyncSender<Message<T>>,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let outcome = match runtime {
        Ok(runtime) => runtime.block_on(read_claimed_splits(worker, job, shared, map, &sender)),
        Err(e) => Err(Error::Invalid(format!(
            "{}: scan worker {worker} cannot start its runtime: {e}",
            job.table_ref
        ))),
    };
    if let Err(e) = outcome {
        shared.stop(Some(e));
    }
}

/// Reads the splits `worker` claims, sending what `map` makes of their batches; `Ok` also when
/// the caller went away.
async fn read_claimed_splits<T>(
    worker: usize,
    job: &ReadJob,
    shared: &Shared,
    map: &(dyn Fn(RecordBatch) -> T + Send + Sync),
    sender: &SyncSender<Message<T>>,
) -> Result<()> {
    let catalog = job.opener.open_catalog().await?;
    let send = |batch| !shared.stopped() && sender.send(Message::Batch(map(batch))).is_ok();
    let split_done = || sender.send(Message::SplitDone).is_ok();
    let total = job.work.len();
    match &job.work {
        Work::Paimon(paimon) => {
            let PaimonSplits {
                branch,
                snapshot,
                request,
                splits,
            } = &**paimon;
            let main = catalog.open_table(&job.table_ref).await?;
            let on_branch;
            let table: &Table = match branch {
                Some(branch) => {
                    on_branch = main.branch(branch).await?;
                    &on_branch
                }
                None => &main,
            };
            while let Some(index) = shared.claim(worker, total) {
                let split = &splits[index];
                let mut reader = SnapshotReader::for_splits(
                    table,
                    snapshot.as_ref(),
                    request,
                    vec![split.clone()],
                )
                .await?;
                while let Some(batch) = reader.next_batch().await {
                    let batch = batch
                        .map_err(|e| Error::from(e).context(describe(&job.table_ref, split)))?;
                    if !send(batch) {
                        return Ok(());
                    }
                }
                if !split_done() {
                    return Ok(());
                }
            }
        }
        Work::Iceberg(planned) => {
            let table = catalog.open_iceberg(&job.table_ref).await?.ok_or_else(|| {
                Error::Invalid(format!(
                    "{}: no longer an Iceberg table when a scan worker opened it",
                    job.table_ref
                ))
            })?;
            let mut deletes = DeleteCache::default();
            while let Some(index) = shared.claim(worker, total) {
                let batches = planned
                    .read_file(&table, index, &mut deletes)
                    .await
                    .map_err(|e| {
                        let file = planned.files().get(index).map(|f| f.data.key.as_str());
                        Error::from(e).context(format!(
                            "{}: reading data file {}",
                            job.table_ref,
                            file.unwrap_or("?")
                        ))
                    })?;
                for batch in batches {
                    if !send(batch) {
                        return Ok(());
                    }
                }
                if !split_done() {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

/// A Paimon split in errors: table, partition, bucket and files.
fn describe(table_ref: &TableRef, split: &Split) -> String {
    let partition: Vec<String> = split.partition.iter().map(|d| d.to_string()).collect();
    let files: Vec<&str> = split.files.iter().map(|f| f.file_name.as_str()).collect();
    format!(
        "{}: reading partition [{}] bucket {} (files {})",
        table_ref,
        partition.join(", "),
        split.bucket,
        files.join(", ")
    )
}
