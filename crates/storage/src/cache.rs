//! A bounded in-memory LRU cache (by bytes) of immutable objects and ranges, as a wrapper store;
//! concurrent reads of one immutable object share one request.

use crate::{Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use futures::channel::oneshot;
use futures::future::LocalBoxFuture;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::rc::Rc;
use std::sync::Mutex;

/// Whether an object never changes once written: everything but snapshot hints (`LATEST`,
/// `EARLIEST`, Iceberg's `version-hint.text`), tags (may be re-created) and listing indexes.
pub fn is_immutable(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    !(matches!(name, "LATEST" | "EARLIEST" | "version-hint.text")
        || name == crate::INDEX_FILE_NAME
        || path.contains("/tag/")
        || path.starts_with("tag/"))
}

/// Whether `path`'s file name holds a UUID (`8-4-4-4-12` hex digits), the mark of a name that is
/// written once and never again; tags are excluded ([`is_immutable`]). The browser keeps such
/// objects across visits (`PersistentCache`); `snapshot-N` and `schema-N` are not among them (a
/// rollback or a re-created table writes those names again).
pub fn is_uniquely_named(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).as_bytes();
    is_immutable(path) && (0..name.len()).any(|at| is_uuid_at(&name[at..]))
}

fn is_uuid_at(s: &[u8]) -> bool {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let mut at = 0;
    for (i, len) in GROUPS.iter().enumerate() {
        if s.len() < at + len || !s[at..at + len].iter().all(u8::is_ascii_hexdigit) {
            return false;
        }
        at += len;
        if i < GROUPS.len() - 1 {
            if s.get(at) != Some(&b'-') {
                return false;
            }
            at += 1;
        }
    }
    true
}

/// `(path, range)`; `None` is the whole object.
type Key = (String, Option<(u64, u64)>);

#[derive(Default)]
struct Lru {
    entries: HashMap<Key, (Bytes, u64)>,
    order: BTreeMap<u64, Key>,
    tick: u64,
    bytes: u64,
    hits: u64,
    misses: u64,
}

impl Lru {
    fn get(&mut self, key: &Key) -> Option<Bytes> {
        self.tick += 1;
        let tick = self.tick;
        let (data, old) = self.entries.get_mut(key)?;
        let data = data.clone();
        let old = std::mem::replace(old, tick);
        if let Some(k) = self.order.remove(&old) {
            self.order.insert(tick, k);
        }
        Some(data)
    }

    fn insert(&mut self, key: Key, data: Bytes, capacity: u64) {
        let size = data.len() as u64;
        if size > capacity / 4 {
            return; // one huge object must not flush everything else
        }
        self.remove(&key);
        self.tick += 1;
        self.order.insert(self.tick, key.clone());
        self.entries.insert(key, (data, self.tick));
        self.bytes += size;
        while self.bytes > capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((d, _)) = self.entries.remove(&oldest) {
                self.bytes -= d.len() as u64;
            }
        }
    }

    fn remove(&mut self, key: &Key) {
        if let Some((d, tick)) = self.entries.remove(key) {
            self.bytes -= d.len() as u64;
            self.order.remove(&tick);
        }
    }

    fn invalidate(&mut self, path: &str) {
        let keys: Vec<Key> = self
            .entries
            .keys()
            .filter(|(p, _)| p == path)
            .cloned()
            .collect();
        for k in keys {
            self.remove(&k);
        }
    }
}

/// What a shared read gives its waiters: its bytes or its error.
type Answer = Result<Bytes>;

/// Whole-object reads in flight, by path, with the readers waiting for each.
type InFlight = HashMap<String, Vec<oneshot::Sender<Answer>>>;

/// Runs a future detached, to completion (in the browser, `spawn_local`).
pub type Spawn = Rc<dyn Fn(LocalBoxFuture<'static, ()>)>;

/// Caches whole objects and exact ranges of immutable objects, up to `capacity` bytes in total.
///
/// A read of a whole immutable object that another read of it is already waiting for shares
/// that request and its answer (bytes or error). If the request is dropped first (every reader
/// of it was, and the store does not read in the background, see [`Self::with_background`]),
/// a waiting read sends its own.
pub struct CachingStore<S> {
    inner: Rc<S>,
    capacity: u64,
    lru: Rc<Mutex<Lru>>,
    in_flight: Rc<Mutex<InFlight>>,
    background: Option<Spawn>,
}

/// Removes a shared read's in-flight entry when it is dropped before it finished (its waiters
/// then see a closed channel and read for themselves).
struct InFlightGuard {
    in_flight: Rc<Mutex<InFlight>>,
    path: String,
    done: bool,
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if !self.done {
            lock(&self.in_flight).remove(&self.path);
        }
    }
}

/// The shared read of the whole object `path` (its in-flight entry is in place): reads it from
/// `inner`, caches it and answers every reader waiting for it.
async fn read_and_answer<S: ObjectStore>(
    inner: &S,
    lru: &Mutex<Lru>,
    capacity: u64,
    mut guard: InFlightGuard,
) -> Result<Bytes> {
    let path = guard.path.clone();
    let result = read_and_cache(inner, lru, capacity, &path).await;
    let waiters = lock(&guard.in_flight).remove(&path).unwrap_or_default();
    guard.done = true;
    for waiter in waiters {
        let _ = waiter.send(result.clone());
    }
    result
}

/// Reads the whole object `path` from `inner` and caches it.
async fn read_and_cache<S: ObjectStore>(
    inner: &S,
    lru: &Mutex<Lru>,
    capacity: u64,
    path: &str,
) -> Result<Bytes> {
    let data = inner.get(path).await?;
    lock(lru).insert((path.to_string(), None), data.clone(), capacity);
    Ok(data)
}

/// A reader's part in a shared read.
enum Role {
    /// Sends the request itself.
    Leader,
    /// Waits for the answer of a request in flight.
    Waiter(oneshot::Receiver<Answer>),
    /// Starts the request in the background with the spawn, then waits for its answer.
    Starter(oneshot::Receiver<Answer>, Spawn),
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Hits, misses and bytes held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheStats {
    /// Reads answered from the cache.
    pub hits: u64,
    /// Reads that went to the inner store.
    pub misses: u64,
    /// Bytes held now.
    pub bytes: u64,
}

impl<S: ObjectStore + 'static> CachingStore<S> {
    /// Wraps `inner` with a cache of at most `capacity` bytes.
    pub fn new(inner: S, capacity: u64) -> Self {
        Self {
            inner: Rc::new(inner),
            capacity,
            lru: Rc::default(),
            in_flight: Rc::default(),
            background: None,
        }
    }

    /// Whole-object reads run with `spawn`, to completion even when every reader of one is
    /// dropped (a view closed mid-read), and cache their bytes: the next reader takes the
    /// request in flight or the cached bytes instead of sending the request again.
    pub fn with_background(mut self, spawn: Spawn) -> Self {
        self.background = Some(spawn);
        self
    }

    /// Drops everything cached (e.g. after another writer may have re-created objects: a table
    /// dropped and created again, snapshots rolled back and committed anew).
    pub fn clear(&self) {
        let mut lru = self.lru();
        let (hits, misses) = (lru.hits, lru.misses);
        *lru = Lru {
            hits,
            misses,
            ..Lru::default()
        };
    }

    /// Cache counters.
    pub fn stats(&self) -> CacheStats {
        let lru = self.lru();
        CacheStats {
            hits: lru.hits,
            misses: lru.misses,
            bytes: lru.bytes,
        }
    }

    fn lru(&self) -> std::sync::MutexGuard<'_, Lru> {
        lock(&self.lru)
    }

    /// Reads the whole immutable object `path` (not cached), sharing a read already in flight.
    async fn get_shared(&self, path: &str) -> Result<Bytes> {
        let role = {
            let mut in_flight = lock(&self.in_flight);
            if let Some(waiters) = in_flight.get_mut(path) {
                let (tx, rx) = oneshot::channel();
                waiters.push(tx);
                Role::Waiter(rx)
            } else if let Some(spawn) = &self.background {
                let (tx, rx) = oneshot::channel();
                in_flight.insert(path.to_string(), vec![tx]);
                Role::Starter(rx, spawn.clone())
            } else {
                in_flight.insert(path.to_string(), Vec::new());
                Role::Leader
            }
        };
        let rx = match role {
            Role::Leader => {
                let guard = self.guard(path);
                return read_and_answer(self.inner.as_ref(), &self.lru, self.capacity, guard).await;
            }
            Role::Starter(rx, spawn) => {
                let (inner, lru) = (self.inner.clone(), self.lru.clone());
                let (capacity, guard) = (self.capacity, self.guard(path));
                let mut read: LocalBoxFuture<'static, ()> = Box::pin(async move {
                    let _ = read_and_answer(inner.as_ref(), &lru, capacity, guard).await;
                });
                // The request goes out now, not when the background task first runs (after
                // the work already queued, such as drawing a page); the task takes it over.
                if futures::poll!(read.as_mut()).is_pending() {
                    spawn(read);
                }
                rx
            }
            Role::Waiter(rx) => rx,
        };
        match rx.await {
            Ok(answer) => answer,
            // The shared read was dropped: read alone.
            Err(oneshot::Canceled) => {
                read_and_cache(self.inner.as_ref(), &self.lru, self.capacity, path).await
            }
        }
    }

    /// The guard of the in-flight entry of `path`.
    fn guard(&self, path: &str) -> InFlightGuard {
        InFlightGuard {
            in_flight: self.in_flight.clone(),
            path: path.to_string(),
            done: false,
        }
    }

    fn lookup(&self, key: &Key) -> Option<Bytes> {
        let mut lru = self.lru();
        let found = lru.get(key);
        if found.is_some() {
            lru.hits += 1;
        } else {
            lru.misses += 1;
        }
        found
    }
}

#[async_trait(?Send)]
impl<S: ObjectStore + 'static> ObjectStore for CachingStore<S> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn root_uri(&self) -> Option<String> {
        self.inner.root_uri()
    }
    fn lists_without_requests(&self) -> bool {
        self.inner.lists_without_requests()
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        if !is_immutable(path) {
            return self.inner.get(path).await;
        }
        if let Some(data) = self.lookup(&(path.to_string(), None)) {
            return Ok(data);
        }
        self.get_shared(path).await
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        if !is_immutable(path) {
            return self.inner.get_range(path, range).await;
        }
        let whole = (path.to_string(), None);
        if let Some(data) = self.lru().get(&whole) {
            return crate::memory::slice_range(path, &data, range);
        }
        let key = (path.to_string(), Some((range.start, range.end)));
        if let Some(data) = self.lookup(&key) {
            return Ok(data);
        }
        let data = self.inner.get_range(path, range).await?;
        self.lru().insert(key, data.clone(), self.capacity);
        Ok(data)
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        if is_immutable(path) {
            if let Some(data) = self.lru().get(&(path.to_string(), None)) {
                return Ok(ObjectMeta {
                    path: path.to_string(),
                    size: data.len() as u64,
                });
            }
        }
        self.inner.head(path).await
    }

    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        self.inner.list_dir(prefix).await
    }

    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        self.lru().invalidate(path);
        self.inner.put(path, data).await
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        self.lru().invalidate(path);
        self.inner.put_if_absent(path, data).await
    }

    async fn delete(&self, path: &str) -> Result<()> {
        self.lru().invalidate(path);
        self.inner.delete(path).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use futures::executor::block_on;

    #[test]
    fn uniquely_named_objects_are_the_ones_written_once() {
        for kept in [
            "db.db/t/manifest/manifest-435b41d1-d0bf-4f73-bd5f-4778e1ed1b5d-0",
            "db.db/t/manifest/manifest-list-69a1df86-a54e-4576-887e-41f19aca20ae-1",
            "db.db/t/bucket-0/data-3d89cead-04ec-43f4-9a27-536c7c545d3e-0.parquet",
            "db.db/t/index/index-3D89CEAD-04EC-43F4-9A27-536C7C545D3E-0",
            "ns/t/metadata/snap-123-1-3d89cead-04ec-43f4-9a27-536c7c545d3e.avro",
            "ns/t/metadata/00002-3d89cead-04ec-43f4-9a27-536c7c545d3e.metadata.json",
        ] {
            assert!(is_uniquely_named(kept), "{kept}");
        }
        for read_each_time in [
            "db.db/t/snapshot/snapshot-5",
            "db.db/t/snapshot/LATEST",
            "db.db/t/schema/schema-0",
            "ns/t/metadata/v3.metadata.json",
            "ns/t/metadata/version-hint.text",
            "_lakescope_index.json",
            "db.db/t/tag/tag-3d89cead-04ec-43f4-9a27-536c7c545d3e",
            "db.db/3d89cead-04ec-43f4-9a27-536c7c545d3e/snapshot/snapshot-1",
            "db.db/t/manifest/manifest-435b41d1-d0bf-4f73-bd5f-4778e1ed1b5-0",
            "db.db/t/manifest/manifest-435b41d1_d0bf-4f73-bd5f-4778e1ed1b5d-0",
        ] {
            assert!(!is_uniquely_named(read_each_time), "{read_each_time}");
        }
    }

    #[test]
    fn caches_immutable_objects_within_capacity() {
        block_on(async {
            let inner = MemoryStore::new();
            inner
                .put("t/data-1", Bytes::from(vec![1u8; 100]))
                .await
                .unwrap();
            inner
                .put("t/data-2", Bytes::from(vec![2u8; 100]))
                .await
                .unwrap();
            inner
                .put("t/snapshot/LATEST", Bytes::from_static(b"1"))
                .await
                .unwrap();
            for i in 3..=5 {
                inner
                    .put(&format!("t/data-{i}"), Bytes::from(vec![i; 100]))
                    .await
                    .unwrap();
            }
            let c = CachingStore::new(inner, 400);
            c.get("t/data-1").await.unwrap();
            c.get("t/data-1").await.unwrap();
            assert_eq!(c.stats().hits, 1);
            // A range of a cached whole object is sliced from it.
            assert_eq!(
                c.get_range("t/data-1", 10..20).await.unwrap(),
                vec![1u8; 10]
            );
            for i in 2..=4 {
                c.get(&format!("t/data-{i}")).await.unwrap();
            }
            assert_eq!(c.stats().bytes, 400);
            // data-2 is now the least recently used: data-5 evicts it, not data-1.
            c.get("t/data-1").await.unwrap();
            c.get("t/data-5").await.unwrap();
            assert_eq!(c.stats().bytes, 400);
            let misses = c.stats().misses;
            c.get("t/data-1").await.unwrap();
            assert_eq!(c.stats().misses, misses, "data-1 stayed");
            c.get("t/data-2").await.unwrap();
            assert_eq!(c.stats().misses, misses + 1, "data-2 was evicted");
            // Exact ranges of objects not held whole are cached too.
            c.get_range("t/data-3", 0..5).await.unwrap();
            c.get_range("t/data-3", 0..5).await.unwrap();
            // Hints are never cached: a new LATEST is seen at once.
            c.get("t/snapshot/LATEST").await.unwrap();
            c.inner
                .put("t/snapshot/LATEST", Bytes::from_static(b"2"))
                .await
                .unwrap();
            assert_eq!(c.get("t/snapshot/LATEST").await.unwrap(), "2");
            // Writing through the cache invalidates.
            c.put("t/data-1", Bytes::from_static(b"new")).await.unwrap();
            assert_eq!(c.get("t/data-1").await.unwrap(), "new");
            // Objects over a quarter of the capacity are not cached.
            c.put("t/big", Bytes::from(vec![0u8; 200])).await.unwrap();
            let before = c.stats().bytes;
            c.get("t/big").await.unwrap();
            assert_eq!(c.stats().bytes, before);
            assert!(
                !is_immutable("db.db/t/snapshot/EARLIEST") && is_immutable("db.db/t/manifest/m-1")
            );
        });
    }

    #[test]
    fn concurrent_reads_of_an_immutable_object_share_one_request() {
        use crate::{RequestTrace, TracedStore};
        block_on(async {
            let mem = MemoryStore::new();
            mem.put("t/schema/schema-0", Bytes::from_static(b"s0"))
                .await
                .unwrap();
            mem.put("t/snapshot/LATEST", Bytes::from_static(b"1"))
                .await
                .unwrap();
            let trace = Rc::new(RequestTrace::default());
            let c = CachingStore::new(TracedStore::new(Rc::new(mem), trace.clone()), 1 << 20);
            let (a, b, missing, also_missing, hint, hint2) = futures::join!(
                c.get("t/schema/schema-0"),
                c.get("t/schema/schema-0"),
                c.get("t/snapshot/snapshot-2"),
                c.get_opt("t/snapshot/snapshot-2"),
                c.get("t/snapshot/LATEST"),
                c.get("t/snapshot/LATEST"),
            );
            assert_eq!((a.unwrap(), b.unwrap()), ("s0".into(), "s0".into()));
            // "Not found" is shared too, and not cached.
            assert!(missing.unwrap_err().is_not_found());
            assert_eq!(also_missing.unwrap(), None);
            assert_eq!((hint.unwrap(), hint2.unwrap()), ("1".into(), "1".into()));
            let paths: Vec<String> = trace.requests().into_iter().map(|r| r.path).collect();
            // Hints are never shared: each read of LATEST is its own request.
            assert_eq!(
                paths,
                vec![
                    "t/schema/schema-0",
                    "t/snapshot/snapshot-2",
                    "t/snapshot/LATEST",
                    "t/snapshot/LATEST"
                ]
            );
            assert_eq!(trace.round_trips(), 1);
            c.inner
                .put("t/snapshot/snapshot-2", Bytes::from_static(b"s2"))
                .await
                .unwrap();
            assert_eq!(c.get("t/snapshot/snapshot-2").await.unwrap(), "s2");
            // Cached now; `clear` forgets it (a re-created object is read again).
            trace.clear();
            c.get("t/snapshot/snapshot-2").await.unwrap();
            assert_eq!(trace.round_trips(), 0);
            c.clear();
            assert_eq!(c.stats().bytes, 0);
            c.get("t/snapshot/snapshot-2").await.unwrap();
            assert_eq!(trace.round_trips(), 1);
        });
    }

    /// A store whose whole-object reads wait for `open` and count themselves.
    struct Gated {
        inner: MemoryStore,
        open: futures::future::Shared<futures::channel::oneshot::Receiver<()>>,
        gets: std::cell::Cell<usize>,
    }

    #[async_trait(?Send)]
    impl ObjectStore for Gated {
        fn describe(&self) -> String {
            "gated".into()
        }
        async fn get(&self, path: &str) -> Result<Bytes> {
            self.gets.set(self.gets.get() + 1);
            let _ = self.open.clone().await;
            self.inner.get(path).await
        }
        async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
            self.inner.get_range(path, range).await
        }
        async fn head(&self, path: &str) -> Result<ObjectMeta> {
            self.inner.head(path).await
        }
        async fn list_dir(&self, prefix: &str) -> Result<Listing> {
            self.inner.list_dir(prefix).await
        }
        async fn put(&self, path: &str, data: Bytes) -> Result<()> {
            self.inner.put(path, data).await
        }
        async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
            self.inner.put_if_absent(path, data).await
        }
        async fn delete(&self, path: &str) -> Result<()> {
            self.inner.delete(path).await
        }
    }

    /// Requests sent for two reads of one manifest, the first dropped while in flight.
    fn requests_when_the_first_reader_is_dropped(background: bool) -> usize {
        use futures::executor::LocalPool;
        use futures::task::LocalSpawnExt;
        use futures::FutureExt;
        let mut pool = LocalPool::new();
        let spawner = pool.spawner();
        let (release, open) = futures::channel::oneshot::channel::<()>();
        let inner = MemoryStore::new();
        pool.run_until(inner.put("t/manifest/m-1", Bytes::from_static(b"m1")))
            .unwrap();
        let gated = Gated {
            inner,
            open: open.shared(),
            gets: std::cell::Cell::new(0),
        };
        let mut c = CachingStore::new(gated, 1 << 20);
        if background {
            c = c.with_background(Rc::new(move |f| {
                spawner.spawn_local(f).expect("spawn");
            }));
        }
        pool.run_until(async {
            let mut first = Box::pin(c.get("t/manifest/m-1"));
            assert!(futures::poll!(&mut first).is_pending());
            drop(first);
            let _ = release.send(());
            assert_eq!(c.get("t/manifest/m-1").await.unwrap(), "m1");
        });
        c.inner.gets.get()
    }

    #[test]
    fn a_background_read_is_sent_before_its_task_first_runs() {
        use futures::FutureExt;
        use std::cell::RefCell;
        let (release, open) = futures::channel::oneshot::channel::<()>();
        let inner = MemoryStore::new();
        futures::executor::block_on(inner.put("t/manifest/m-1", Bytes::from_static(b"m1")))
            .unwrap();
        let gated = Gated {
            inner,
            open: open.shared(),
            gets: std::cell::Cell::new(0),
        };
        // A background that only queues its tasks (a browser runs them after the work queued
        // before them).
        let queued: Rc<RefCell<Vec<LocalBoxFuture<'static, ()>>>> = Rc::default();
        let queue = queued.clone();
        let c = CachingStore::new(gated, 1 << 20)
            .with_background(Rc::new(move |f| queue.borrow_mut().push(f)));
        futures::executor::block_on(async {
            let mut read = Box::pin(c.get("t/manifest/m-1"));
            assert!(futures::poll!(&mut read).is_pending());
            assert_eq!(
                c.inner.gets.get(),
                1,
                "sent while its task waits in the queue"
            );
            assert_eq!(queued.borrow().len(), 1);
            let _ = release.send(());
            let task = queued.borrow_mut().pop().unwrap();
            task.await;
            assert_eq!(read.await.unwrap(), "m1");
        });
        assert_eq!(c.inner.gets.get(), 1);
    }

    #[test]
    fn a_read_dropped_in_flight_goes_on_in_the_background_for_the_next_reader() {
        assert_eq!(requests_when_the_first_reader_is_dropped(true), 1);
        // Without a background: the dropped read's request is dropped with it.
        assert_eq!(requests_when_the_first_reader_is_dropped(false), 2);
    }
}
