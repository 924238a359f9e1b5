//! The read of a table's rows started as soon as the table is opened (see `warehouse::prefetch`),
//! which the Data tab then takes over instead of starting its own.

use crate::data_tab::first_rows_request;
use crate::warehouse;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use futures::channel::{mpsc, oneshot};
use futures::future::{AbortHandle, Abortable};
use futures::{SinkExt, StreamExt};
use lakescope_paimon::table_read::SnapshotReader;
use std::cell::RefCell;

/// A batch of the read (or why it failed), with the number of splits not started after it.
type Item = (Result<RecordBatch, String>, usize);

thread_local! {
    /// The read started last, and the path of its table.
    static STARTED: RefCell<Option<(String, Started)>> = const { RefCell::new(None) };
}

/// Stops the read when dropped.
struct StopOnDrop(AbortHandle);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A read started ahead of the Data tab: it plans, reads its first batches, then waits for them
/// to be taken.
pub struct Started {
    opened: oneshot::Receiver<Result<Opened, String>>,
    stop: StopOnDrop,
}

/// What the read tells once its snapshot is planned.
struct Opened {
    snapshot_id: i64,
    schema: SchemaRef,
    total_splits: usize,
    batches: mpsc::Receiver<Item>,
}

/// A read taken over: its batches as `SnapshotReader` gives them; the read stops when dropped.
pub struct Taken {
    opened: Opened,
    remaining_splits: usize,
    _stop: StopOnDrop,
}

impl Started {
    /// The read once planned; `None` when it could not plan (the caller reads for itself).
    pub async fn planned(self) -> Option<Taken> {
        let opened = self.opened.await.ok()?.ok()?;
        Some(Taken {
            remaining_splits: opened.total_splits,
            opened,
            _stop: self.stop,
        })
    }
}

impl Taken {
    /// The snapshot read.
    pub fn snapshot_id(&self) -> i64 {
        self.opened.snapshot_id
    }

    /// Schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.opened.schema
    }

    /// Number of splits of the plan.
    pub fn total_splits(&self) -> usize {
        self.opened.total_splits
    }

    /// Number of splits not started yet.
    pub fn remaining_splits(&self) -> usize {
        self.remaining_splits
    }

    /// The next batch, or `None` when every split has been read.
    pub async fn next_batch(&mut self) -> Option<Result<RecordBatch, String>> {
        let (batch, remaining) = self.opened.batches.next().await?;
        self.remaining_splits = remaining;
        Some(batch)
    }
}

/// Starts reading the Paimon table at `path` at its latest snapshot (shared with the views, see
/// `warehouse::latest_snapshot`) as the Data tab reads it first: every column, no filter. The
/// read started before is stopped.
pub fn start(path: &str) {
    let (opened_tx, opened) = oneshot::channel();
    let (abort, registration) = AbortHandle::new_pair();
    let key = path.to_string();
    let read = async move {
        let (table, latest) =
            futures::join!(warehouse::table(&key), warehouse::latest_snapshot(&key));
        let (table, snapshot) = match (table, latest) {
            (Ok(table), Ok(Some(snapshot))) => (table, snapshot),
            (Err(e), _) | (_, Err(e)) => {
                let _ = opened_tx.send(Err(e));
                return;
            }
            (Ok(_), Ok(None)) => {
                let _ = opened_tx.send(Err(format!("{key} has no snapshot")));
                return;
            }
        };
        let reader = SnapshotReader::open(&table, Some(&snapshot), &first_rows_request()).await;
        let mut reader = match reader {
            Ok(reader) => reader,
            Err(e) => {
                let _ = opened_tx.send(Err(e.to_string()));
                return;
            }
        };
        // The read goes at most two batches ahead of its taker (one waits in the channel).
        let (mut sender, batches) = mpsc::channel(0);
        let planned = Opened {
            snapshot_id: snapshot.id,
            schema: reader.schema().clone(),
            total_splits: reader.total_splits(),
            batches,
        };
        if opened_tx.send(Ok(planned)).is_err() {
            return;
        }
        while let Some(batch) = reader.next_batch().await {
            let item = (batch.map_err(|e| e.to_string()), reader.remaining_splits());
            if sender.send(item).await.is_err() {
                return;
            }
        }
    };
    leptos::task::spawn_local(async move {
        let _ = Abortable::new(read, registration).await;
    });
    let started = Started {
        opened,
        stop: StopOnDrop(abort),
    };
    STARTED.with(|s| s.replace(Some((path.to_string(), started))));
}

/// Stops the read started last, if any.
pub fn stop() {
    STARTED.with(|s| s.take());
}

/// Takes the read started for the table at `path`, if any.
pub fn take(path: &str) -> Option<Started> {
    STARTED.with(|s| {
        let mut s = s.borrow_mut();
        match s.as_ref() {
            Some((p, _)) if p == path => s.take().map(|(_, started)| started),
            _ => None,
        }
    })
}
