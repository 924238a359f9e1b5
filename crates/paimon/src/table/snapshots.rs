//! Snapshots and tags: a table's versions, found from the hint files, a listing or probes.

use super::probe::{exists, list_ids, walk_ids};
use super::Table;
use crate::error::{Error, Result};
use crate::spec::snapshot::{Snapshot, Tag};
use lakescope_storage::{join, ObjectStore};

/// Snapshot files [`Snapshots::all`] reads at once.
const SNAPSHOT_READS_AHEAD: usize = 16;

impl Table {
    // ---- snapshots -----------------------------------------------------------------------

    /// The table's snapshot files and hints.
    pub fn snapshot_files(&self) -> Snapshots<'_> {
        Snapshots::new(self.store.as_ref(), &self.meta)
    }

    /// Snapshot `id`; [`Error::NotFound`] if it does not exist, saying so when it expired
    /// (older than the earliest snapshot).
    pub async fn snapshot(&self, id: i64) -> Result<Snapshot> {
        self.snapshot_files().snapshot(id).await
    }

    /// Ids of all snapshot files, ascending (see [`Snapshots::ids`]).
    pub async fn snapshot_ids(&self) -> Result<Vec<i64>> {
        self.snapshot_files().ids().await
    }

    /// Id of the latest snapshot, or `None` for a table without snapshots (see
    /// [`Snapshots::latest_id`]).
    pub async fn latest_snapshot_id(&self) -> Result<Option<i64>> {
        self.snapshot_files().latest_id().await
    }

    /// The latest snapshot (see [`Snapshots::latest`]).
    pub async fn latest_snapshot(&self) -> Result<Option<Snapshot>> {
        self.snapshot_files().latest().await
    }

    /// Id of the earliest existing snapshot, or `None` for a table without snapshots (see
    /// [`Snapshots::earliest_id`]).
    pub async fn earliest_snapshot_id(&self) -> Result<Option<i64>> {
        self.snapshot_files().earliest_id().await
    }

    /// All existing snapshots, ascending by id (lists `snapshot/`, reads them concurrently).
    pub async fn snapshots(&self) -> Result<Vec<Snapshot>> {
        self.snapshot_files().all().await
    }

    /// Paimon's `scan.timestamp-millis`: the latest snapshot with `timeMillis <= ms`, or `None`
    /// when every snapshot is newer (or there are none).
    pub async fn snapshot_at_or_before_timestamp(&self, ms: i64) -> Result<Option<Snapshot>> {
        self.snapshot_files().at_or_before_timestamp(ms).await
    }

    // ---- tags ----------------------------------------------------------------------------

    /// All tags, sorted by name: those of the table's catalog ([`Table::with_tag_source`]) and
    /// those in `tag/` (listed; none where the store cannot list: tags are then only read by
    /// name, [`Table::tag`]); a name in both is the catalog's tag.
    pub async fn tags(&self) -> Result<Vec<(String, Tag)>> {
        let mut names = self.tag_file_names().await?;
        if let Some(source) = &self.tag_source {
            names.extend(source.tag_names().await?);
        }
        names.sort();
        names.dedup();
        let tags = futures::future::try_join_all(names.iter().map(|n| self.tag(n))).await?;
        Ok(names.into_iter().zip(tags).collect())
    }

    /// The names of the tag files in `tag/` (empty where the store cannot list).
    async fn tag_file_names(&self) -> Result<Vec<String>> {
        let listing = match self.store.list_dir(&self.meta_key("tag")).await {
            Ok(listing) => listing,
            Err(lakescope_storage::Error::Unsupported { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        Ok(listing
            .files
            .iter()
            .filter_map(|f| f.path.rsplit('/').next())
            .filter_map(|n| n.strip_prefix("tag-"))
            .map(String::from)
            .collect())
    }

    /// Tag `name`: the catalog's ([`Table::with_tag_source`]), else `tag/tag-<name>`;
    /// [`Error::NotFound`] if neither has it.
    pub async fn tag(&self, name: &str) -> Result<Tag> {
        if let Some(source) = &self.tag_source {
            if let Some(tag) = source.tag(name).await? {
                return Ok(tag);
            }
        }
        let key = self.meta_key(&format!("tag/tag-{name}"));
        let bytes = self
            .store
            .get_opt(&key)
            .await?
            .ok_or_else(|| Error::NotFound {
                what: format!("tag '{name}'"),
                context: Some(match (&self.branch, &self.tag_source) {
                    (Some(b), _) => format!("{} (branch '{b}')", self.path),
                    (None, Some(source)) => source.describe(),
                    (None, None) => self.path.clone(),
                }),
            })?;
        Tag::from_json(&bytes).map_err(|e| Error::corrupt(key, format!("invalid tag JSON: {e}")))
    }
}

/// A table's snapshot files and hints (`<table>/snapshot/`). They need no schema: the latest
/// snapshot can be read while the table opens.
#[derive(Clone, Copy)]
pub struct Snapshots<'a> {
    store: &'a dyn ObjectStore,
    table: &'a str,
}

impl<'a> Snapshots<'a> {
    /// The snapshots of the table at `table` (its key prefix, as [`Table::path`]).
    pub fn new(store: &'a dyn ObjectStore, table: &'a str) -> Self {
        Snapshots {
            store,
            table: table.trim_matches('/'),
        }
    }

    fn key(&self, rel: &str) -> String {
        join(self.table, rel)
    }

    fn rel(id: i64) -> String {
        format!("snapshot/snapshot-{id}")
    }

    async fn exists(&self, rel: &str) -> Result<bool> {
        exists(self.store, &self.key(rel)).await
    }

    /// Snapshot `id`; [`Error::NotFound`] if it does not exist, saying so when it expired
    /// (older than the earliest snapshot).
    pub async fn snapshot(&self, id: i64) -> Result<Snapshot> {
        if let Some(s) = self.snapshot_opt(id).await? {
            return Ok(s);
        }
        let context = match self.earliest_id().await {
            Ok(Some(earliest)) if id < earliest => format!(
                "{}: expired, the earliest snapshot is {earliest} (snapshot.num-retained.*, snapshot.time-retained)",
                self.table
            ),
            _ => self.table.to_string(),
        };
        Err(Error::NotFound {
            what: format!("snapshot {id}"),
            context: Some(context),
        })
    }

    async fn snapshot_opt(&self, id: i64) -> Result<Option<Snapshot>> {
        let key = self.key(&Self::rel(id));
        match self.store.get_opt(&key).await? {
            None => Ok(None),
            Some(b) => Snapshot::from_json(&b)
                .map(Some)
                .map_err(|e| Error::corrupt(key, format!("invalid snapshot JSON: {e}"))),
        }
    }

    async fn read_hint(&self, name: &str) -> Result<Option<i64>> {
        let Some(b) = self
            .store
            .get_opt(&self.key(&format!("snapshot/{name}")))
            .await?
        else {
            return Ok(None);
        };
        Ok(std::str::from_utf8(&b)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
            .filter(|id| *id > 0))
    }

    /// Ids of all snapshot files, ascending: lists `snapshot/`, or, where the store cannot
    /// list, every id from the earliest to the latest snapshot (see below). Their number is
    /// Paimon's snapshot count (`SnapshotManager.snapshotCount` counts the listed files).
    pub async fn ids(&self) -> Result<Vec<i64>> {
        if let Some(ids) = self.listed_ids().await? {
            return Ok(ids);
        }
        let Some(earliest) = self.earliest_id().await? else {
            return Ok(Vec::new());
        };
        let latest = self.latest_id().await?.unwrap_or(earliest);
        Ok((earliest..=latest).collect())
    }

    /// The listed snapshot ids, or `None` when the store cannot list.
    async fn listed_ids(&self) -> Result<Option<Vec<i64>>> {
        list_ids(self.store, &self.key("snapshot"), "snapshot-").await
    }

    /// The id a hint file names, if that snapshot exists.
    async fn existing_hint(&self, name: &str) -> Result<Option<i64>> {
        match self.read_hint(name).await? {
            Some(id) if self.exists(&Self::rel(id)).await? => Ok(Some(id)),
            _ => Ok(None),
        }
    }

    /// From the existing snapshot `from`, steps by `step` while the next snapshot exists; the
    /// last existing id.
    async fn follow(&self, from: i64, step: i64) -> Result<i64> {
        walk_ids(self.store, &self.key("snapshot"), "snapshot-", from, step).await
    }

    /// Id of the latest snapshot, or `None` for a table without snapshots.
    ///
    /// The `LATEST` hint is only a hint: when it names an existing snapshot, snapshots after it
    /// are probed (`N+1`, `N+2`, …) until one is missing — `N` and `N+1` are checked together;
    /// when it is missing, unparsable or names a missing snapshot, `snapshot/` is listed, or,
    /// where the store cannot list, the probing starts from the earliest snapshot.
    pub async fn latest_id(&self) -> Result<Option<i64>> {
        if let Some(hint) = self.read_hint("LATEST").await? {
            let (named, next) = futures::future::try_join(
                self.exists(&Self::rel(hint)),
                self.exists(&Self::rel(hint + 1)),
            )
            .await?;
            match (named, next) {
                (true, false) => return Ok(Some(hint)),
                (true, true) => return Ok(Some(self.follow(hint + 1, 1).await?)),
                (false, _) => {}
            }
        }
        if let Some(ids) = self.listed_ids().await? {
            return Ok(ids.last().copied());
        }
        match self.earliest_id().await? {
            Some(earliest) => Ok(Some(self.follow(earliest, 1).await?)),
            None => Ok(None),
        }
    }

    /// The latest snapshot (see [`Snapshots::latest_id`]). Where listing costs no request (a
    /// static host's index), the `LATEST` hint, the newest listed snapshot `N` and the probe of
    /// `N+1` are read together: one round trip when the listing is current. Otherwise the hint,
    /// then snapshot `N` and the probe of `N+1` together: two round trips when the hint is.
    pub async fn latest(&self) -> Result<Option<Snapshot>> {
        let found = match self.newest_listed_for_free().await? {
            Some(newest) => self.latest_from_listing(newest).await?,
            None => self.latest_from_hint().await?,
        };
        if let Some(s) = found {
            return Ok(Some(s));
        }
        // A snapshot can expire between finding and reading it; retry a few times.
        for _ in 0..3 {
            let Some(id) = self.latest_id().await? else {
                return Ok(None);
            };
            if let Some(s) = self.snapshot_opt(id).await? {
                return Ok(Some(s));
            }
        }
        Err(Error::NotFound {
            what: "latest snapshot".into(),
            context: Some(format!(
                "{}: snapshots keep disappearing while read",
                self.table
            )),
        })
    }

    /// The newest listed snapshot id where the store lists without a request; else `None`.
    async fn newest_listed_for_free(&self) -> Result<Option<i64>> {
        if !self.store.lists_without_requests() {
            return Ok(None);
        }
        Ok(self.listed_ids().await?.and_then(|ids| ids.last().copied()))
    }

    /// The latest snapshot from the newest listed one, `newest`, read together with the
    /// `LATEST` hint and the probe of `newest + 1` (the listing may be older than the hint, or
    /// name a snapshot expired since); `None` when neither leads to an existing snapshot.
    async fn latest_from_listing(&self, newest: i64) -> Result<Option<Snapshot>> {
        let (hint, listed, next) = futures::future::try_join3(
            self.read_hint("LATEST"),
            self.snapshot_opt(newest),
            self.snapshot_opt(newest + 1),
        )
        .await?;
        match (hint, listed) {
            // Committed after the listing was made: the hint is further on.
            (Some(hint), _) if hint > newest + 1 => self.latest_from(hint).await,
            (_, Some(listed)) => Ok(Some(self.follow_from(newest, listed, next).await?)),
            (Some(hint), None) => self.latest_from(hint).await,
            (None, None) => Ok(None),
        }
    }

    /// The snapshot the `LATEST` hint leads to (see [`Snapshots::latest_from`]); `None` when the
    /// hint is missing, unparsable or names a missing snapshot (the caller then lists or probes).
    async fn latest_from_hint(&self) -> Result<Option<Snapshot>> {
        match self.read_hint("LATEST").await? {
            Some(hint) => self.latest_from(hint).await,
            None => Ok(None),
        }
    }

    /// Snapshot `id` and `id + 1` read together, then `id + 2`, … while they exist: the last
    /// one; `None` when snapshot `id` is missing.
    async fn latest_from(&self, id: i64) -> Result<Option<Snapshot>> {
        let (named, next) =
            futures::future::try_join(self.snapshot_opt(id), self.snapshot_opt(id + 1)).await?;
        match named {
            Some(named) => Ok(Some(self.follow_from(id, named, next).await?)),
            None => Ok(None),
        }
    }

    /// From snapshot `id` (`found`) and what reading `id + 1` gave (`next`): reads `id + 2`, …
    /// while they exist; the last existing one.
    async fn follow_from(
        &self,
        mut id: i64,
        mut found: Snapshot,
        mut next: Option<Snapshot>,
    ) -> Result<Snapshot> {
        while let Some(s) = next {
            found = s;
            id += 1;
            next = self.snapshot_opt(id + 1).await?;
        }
        Ok(found)
    }

    /// Id of the earliest existing snapshot, or `None` for a table without snapshots.
    ///
    /// The `EARLIEST` hint (absent in pypaimon tables) is trusted only when snapshot `N` exists
    /// and `N-1` does not; otherwise `snapshot/` is listed. Where the store cannot list,
    /// snapshots before an existing one (named by `EARLIEST`, else `LATEST`, else snapshot 1) are
    /// probed (`N-1`, `N-2`, …) until one is missing.
    pub async fn earliest_id(&self) -> Result<Option<i64>> {
        let hint = self.existing_hint("EARLIEST").await?;
        if let Some(hint) = hint {
            if hint == 1 || !self.exists(&Self::rel(hint - 1)).await? {
                return Ok(Some(hint));
            }
        }
        if let Some(ids) = self.listed_ids().await? {
            return Ok(ids.first().copied());
        }
        let anchor = match hint {
            Some(id) => Some(id),
            None => match self.existing_hint("LATEST").await? {
                Some(id) => Some(id),
                None => self.exists(&Self::rel(1)).await?.then_some(1),
            },
        };
        match anchor {
            Some(id) => Ok(Some(self.follow(id, -1).await?)),
            // Hints that lead nowhere: without a listing the snapshots cannot be found.
            None if self.read_hint("LATEST").await?.is_some()
                || self.read_hint("EARLIEST").await?.is_some() =>
            {
                Err(Error::NotFound {
                    what: format!("snapshots of {}", self.table),
                    context: Some(format!(
                        "{} cannot list, and the hints in {} name no existing snapshot",
                        self.store.describe(),
                        self.key("snapshot")
                    )),
                })
            }
            None => Ok(None),
        }
    }

    /// All existing snapshots, ascending by id (lists `snapshot/`, reads up to
    /// [`SNAPSHOT_READS_AHEAD`] of them at once: a local store reads each file on a blocking
    /// thread, and one thread for each of hundreds of snapshots costs more than the reads).
    pub async fn all(&self) -> Result<Vec<Snapshot>> {
        use futures::{StreamExt, TryStreamExt};
        let ids = self.ids().await?;
        let loaded: Vec<Option<Snapshot>> =
            futures::stream::iter(ids.iter().map(|id| self.snapshot_opt(*id)))
                .buffered(SNAPSHOT_READS_AHEAD)
                .try_collect()
                .await?;
        // Snapshots expired between listing and reading are skipped.
        Ok(loaded.into_iter().flatten().collect())
    }

    /// Paimon's `scan.timestamp-millis`: the latest snapshot with `timeMillis <= ms`, or `None`
    /// when every snapshot is newer (or there are none). Binary search over the existing ids.
    pub async fn at_or_before_timestamp(&self, ms: i64) -> Result<Option<Snapshot>> {
        let ids = self.ids().await?;
        let (mut lo, mut hi) = (0usize, ids.len());
        let mut best: Option<Snapshot> = None;
        // Invariant: ids[..lo] have time <= ms (best = the last of them), ids[hi..] have time > ms.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.snapshot_opt(ids[mid]).await? {
                Some(s) if s.time_millis <= ms => {
                    best = Some(s);
                    lo = mid + 1;
                }
                Some(_) => hi = mid,
                // Expired while searching: treat as older than everything that remains.
                None => lo = mid + 1,
            }
        }
        Ok(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::fixtures::{snapshot_json, table_with};

    #[tokio::test(flavor = "current_thread")]
    async fn hints_are_only_hints() {
        let mut files: Vec<(&str, String)> = Vec::new();
        let names = [
            "snapshot/snapshot-3",
            "snapshot/snapshot-4",
            "snapshot/snapshot-5",
        ];
        for (i, n) in names.iter().enumerate() {
            files.push((n, snapshot_json(i as i64 + 3, 100 * (i as i64 + 3))));
        }
        // Stale LATEST, stale EARLIEST (pointing at an expired snapshot).
        files.push(("snapshot/LATEST", "4".into()));
        files.push(("snapshot/EARLIEST", "1".into()));
        let t = table_with(&files).await;
        assert_eq!(t.latest_snapshot_id().await.unwrap(), Some(5));
        assert_eq!(t.latest_snapshot().await.unwrap().unwrap().id, 5);
        assert_eq!(t.earliest_snapshot_id().await.unwrap(), Some(3));
        assert_eq!(t.snapshots().await.unwrap().len(), 3);
        // Garbage LATEST.
        files.retain(|(k, _)| *k != "snapshot/LATEST");
        files.push(("snapshot/LATEST", "garbage\n".into()));
        let t = table_with(&files).await;
        assert_eq!(t.latest_snapshot_id().await.unwrap(), Some(5));
        // LATEST ahead of reality.
        files.retain(|(k, _)| *k != "snapshot/LATEST");
        files.push(("snapshot/LATEST", "99".into()));
        let t = table_with(&files).await;
        assert_eq!(t.latest_snapshot_id().await.unwrap(), Some(5));
        // Time travel.
        assert_eq!(t.snapshot_at_or_before_timestamp(299).await.unwrap(), None);
        assert_eq!(
            t.snapshot_at_or_before_timestamp(300)
                .await
                .unwrap()
                .unwrap()
                .id,
            3
        );
        assert_eq!(
            t.snapshot_at_or_before_timestamp(450)
                .await
                .unwrap()
                .unwrap()
                .id,
            4
        );
        assert_eq!(
            t.snapshot_at_or_before_timestamp(10_000)
                .await
                .unwrap()
                .unwrap()
                .id,
            5
        );
        assert!(matches!(t.snapshot(1).await, Err(Error::NotFound { .. })));
    }
}
