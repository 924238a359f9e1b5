//! A table's latest snapshot read without opening the table, shared by the callers that ask
//! within [`LATEST_REUSE_MS`], and remembered as a guess for [`super::prefetch`].

use super::{forget_failed, OpenTables, SharedResult};
use crate::table::Format;
use crate::{Error, Result};
use futures::future::FutureExt;
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table::Snapshots;
use lakescope_storage::clock::epoch_millis;
use std::sync::Arc;

/// How long after it started a read of the latest snapshot stands for "latest" for the next
/// caller: the Overview's read serves the Data tab opened right after it (one round trip less,
/// and both tabs show the same snapshot). [`OpenTables::forget`] forgets it (after a commit).
pub const LATEST_REUSE_MS: i64 = 2_000;

/// Tables whose latest snapshot [`OpenTables::read_latest_snapshots`] reads at a time (three
/// small requests each on a static host; HTTP/1.1 allows six connections per host).
pub const IDLE_READS_AT_ONCE: usize = 2;

impl OpenTables {
    /// The latest snapshot of the Paimon table at `path` (`None`: it has none), read without
    /// opening the table (see `Snapshots::latest`). A read started less than
    /// [`LATEST_REUSE_MS`] ago is shared, finished or not.
    pub async fn latest_snapshot(&self, path: &str) -> Result<Option<Snapshot>> {
        let now = self.now();
        let recent = self
            .inner
            .latest
            .borrow_mut()
            .get(path)
            .filter(|(started, _)| now - started < LATEST_REUSE_MS)
            .map(|(_, read)| read.clone());
        let read = match recent {
            Some(read) => read,
            None => {
                let this = self.clone();
                let key = path.to_string();
                let read = async move { this.read_latest(&key).await }
                    .boxed_local()
                    .shared();
                self.inner
                    .latest
                    .borrow_mut()
                    .insert(path, (now, read.clone()));
                read
            }
        };
        let result = read.clone().await;
        if result.is_err() {
            forget_failed(&self.inner.latest, path, |(_, r)| r.ptr_eq(&read));
        }
        result.map_err(Error::Shared)
    }

    /// Reads the latest snapshot of the table at `path` and remembers it when there is one.
    async fn read_latest(&self, path: &str) -> SharedResult<Option<Snapshot>> {
        let location = self.locate(path).await?;
        let latest = Snapshots::new(location.store.as_ref(), &location.path)
            .latest()
            .await
            .map_err(|e| {
                Arc::new(
                    Error::from(e).context(format!("Cannot read the latest snapshot of {path}")),
                )
            })?;
        if let Some(snapshot) = &latest {
            let found = (self.now(), snapshot.clone());
            self.inner.known_latest.borrow_mut().insert(path, found);
        }
        Ok(latest)
    }

    /// The snapshot `path`'s latest-snapshot read found less than `max_age_ms` ago.
    pub(super) fn recent_latest(&self, path: &str, max_age_ms: i64) -> Option<Snapshot> {
        let now = self.now();
        self.inner
            .known_latest
            .borrow_mut()
            .get(path)
            .filter(|(found, _)| now - found < max_age_ms)
            .map(|(_, snapshot)| snapshot.clone())
    }

    /// Reads the latest snapshot of each Paimon table at `paths`, [`IDLE_READS_AT_ONCE`] at a
    /// time (a viewer is idle: a table opened later plans it while confirming it, see
    /// [`OpenTables::prefetch`]). Failures are left to the callers that read these tables. A
    /// catalog service's tables are not read ahead (each would cost the service a lookup).
    pub async fn read_latest_snapshots(&self, paths: &[String]) {
        if self.inner.catalog.is_service() {
            return;
        }
        for group in paths.chunks(IDLE_READS_AT_ONCE) {
            futures::future::join_all(group.iter().map(|path| async move {
                if self.format(path).await == Format::Paimon {
                    let _ = self.latest_snapshot(path).await;
                }
            }))
            .await;
        }
    }

    /// Milliseconds since the epoch on the clock given to [`OpenTables::new`].
    fn now(&self) -> i64 {
        epoch_millis(&self.inner.clock)
    }
}
