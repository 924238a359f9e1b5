//! Immutable warehouse objects kept across visits in the browser's Cache API (feature `browser`,
//! wasm32): a wrapper store with a byte bound, the oldest entries evicted first.
//!
//! Only objects whose name holds a UUID are kept ([`crate::is_uniquely_named`]): Paimon's manifests,
//! manifest lists, index and data files, Iceberg's manifests, manifest lists, data files and
//! `NNNNN-<uuid>.metadata.json`. Those names are never written twice. `snapshot-N`, `schema-N`
//! and Iceberg's `vN.metadata.json` are immutable while a table lives, but a rollback or a
//! dropped and re-created table writes the same name again, so they (and the `LATEST`/`EARLIEST`
//! hints, tags and the listing index) are always read from the store. Anything the Cache API
//! refuses (no `caches` in an insecure context, a full quota) falls back to the store.

use crate::retry::Timer;
use crate::transport::BrowserTimer;
use crate::{is_uniquely_named, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::cell::{Cell, RefCell};
use std::collections::{HashSet, VecDeque};
use std::ops::Range;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The Cache API cache the entries live in (one per origin; keys name the warehouse).
const CACHE_NAME: &str = "lakescope-objects-v1";
/// The header of a cached entry holding its byte count (checked on every read).
const BYTES_HEADER: &str = "x-lakescope-bytes";
/// How long reads must have been quiet before kept objects are written: writing copies each
/// object into the JS heap on the page's thread, which must not delay a view's first rows.
const WRITE_WHEN_QUIET: Duration = Duration::from_millis(1500);
/// At most this many bytes wait for [`WRITE_WHEN_QUIET`]; objects read beyond it are not kept
/// (a long scan must not hold its data files in memory for the cache).
const PENDING_BYTES: usize = 32 << 20;

/// The origin's cache, opened once, and the keys it holds (listed once, then kept up to date by
/// this page): a key not among them is a miss without asking the Cache API.
struct Opened {
    cache: web_sys::Cache,
    keys: RefCell<HashSet<String>>,
}

/// Where opening the origin's cache stands (opened once per warehouse, as it opens).
#[derive(Clone)]
enum CacheState {
    /// Not listed yet: a read asks the Cache API itself.
    Opening,
    Open(Rc<Opened>),
    /// The Cache API refused, or the cache is off: every read goes to the store.
    Refused,
}

/// The entries this page knows of, oldest first, and their bytes (read from the cache once).
#[derive(Default)]
struct Ledger {
    entries: VecDeque<(String, u64)>,
    bytes: u64,
    loaded: bool,
}

/// Objects read but not written yet, and the sum of their bytes (kept as they come and go,
/// not summed again on every read).
#[derive(Default)]
struct Pending {
    entries: Vec<(String, Bytes)>,
    bytes: usize,
}

impl Pending {
    /// Queues `data` under `key` unless the bytes waiting would then pass [`PENDING_BYTES`];
    /// whether it was queued.
    fn push(&mut self, key: String, data: Bytes) -> bool {
        if self.bytes + data.len() > PENDING_BYTES {
            return false;
        }
        self.bytes += data.len();
        self.entries.push((key, data));
        true
    }

    /// Every queued object, taken: nothing waits afterwards.
    fn take(&mut self) -> Vec<(String, Bytes)> {
        self.bytes = 0;
        std::mem::take(&mut self.entries)
    }
}

/// Keeps uniquely named objects of `inner` (see the module comment) in the Cache API, up to
/// `capacity` bytes for all warehouses of the origin; a capacity of 0 turns it off.
pub struct PersistentCache<S> {
    inner: S,
    /// `https://origin/.lakescope-object-cache/<escaped warehouse URI>/`: keys are this plus the
    /// object's path (and `?range=a-b` for a byte range). `web/boot.js` (`kept`) makes the same
    /// keys to skip what a visit will read from here.
    key_base: String,
    capacity: u64,
    ledger: Rc<RefCell<Ledger>>,
    state: Rc<RefCell<CacheState>>,
    /// Objects read but not written yet.
    pending: Rc<RefCell<Pending>>,
    /// The count of reads: the writer waits until it stays still for [`WRITE_WHEN_QUIET`].
    reads: Rc<Cell<u64>>,
}

impl<S: ObjectStore> PersistentCache<S> {
    /// Wraps `inner`, the warehouse `warehouse_uri`, with at most `capacity` bytes kept (0: off).
    pub fn new(inner: S, warehouse_uri: &str, capacity: u64) -> Self {
        let origin = js_sys::Reflect::get(&js_sys::global(), &"location".into())
            .ok()
            .and_then(|l| js_sys::Reflect::get(&l, &"origin".into()).ok())
            .and_then(|o| o.as_string())
            .filter(|o| o.starts_with("http"));
        let escaped = String::from(js_sys::encode_uri_component(warehouse_uri));
        let capacity = if origin_is_usable() { capacity } else { 0 };
        let state = Rc::new(RefCell::new(CacheState::Refused));
        if capacity > 0 {
            // Opened and listed now, while the catalog loads, not on a table's first read.
            *state.borrow_mut() = CacheState::Opening;
            let opening = Rc::clone(&state);
            wasm_bindgen_futures::spawn_local(async move {
                let opened = open_and_list().await;
                *opening.borrow_mut() = opened.map_or(CacheState::Refused, CacheState::Open);
            });
        }
        Self {
            inner,
            key_base: origin
                .map(|o| format!("{o}/.lakescope-object-cache/{escaped}/"))
                .unwrap_or_default(),
            capacity,
            ledger: Rc::default(),
            state,
            pending: Rc::default(),
            reads: Rc::default(),
        }
    }

    /// Where opening the origin's cache stands now (a copy: no borrow is held across an await).
    fn cache_state(&self) -> CacheState {
        self.state.borrow().clone()
    }

    fn key(&self, path: &str, range: Option<&Range<u64>>) -> Option<String> {
        if self.capacity == 0 || self.key_base.is_empty() || !is_uniquely_named(path) {
            return None;
        }
        let path = crate::http::object_url("", path);
        Some(match range {
            Some(r) => format!("{}{path}?range={}-{}", self.key_base, r.start, r.end),
            None => format!("{}{path}", self.key_base),
        })
    }

    /// Keeps `data` under `key` in the background once reads have been quiet for
    /// [`WRITE_WHEN_QUIET`], evicting the oldest entries over the bound.
    fn keep(&self, key: String, data: Bytes) {
        if data.len() as u64 > self.capacity / 4 {
            return; // one huge object must not flush everything else
        }
        let first = {
            let mut pending = self.pending.borrow_mut();
            if !pending.push(key, data) {
                return;
            }
            pending.entries.len() == 1
        };
        if !first {
            return; // a writer is waiting already
        }
        let (capacity, ledger, state) = (
            self.capacity,
            Rc::clone(&self.ledger),
            Rc::clone(&self.state),
        );
        let (pending, reads) = (Rc::clone(&self.pending), Rc::clone(&self.reads));
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                let seen = reads.get();
                BrowserTimer.sleep(WRITE_WHEN_QUIET).await;
                if reads.get() == seen {
                    break;
                }
            }
            let opened = loop {
                match &*state.borrow() {
                    CacheState::Open(opened) => break Rc::clone(opened),
                    CacheState::Refused => {
                        pending.borrow_mut().take();
                        return;
                    }
                    CacheState::Opening => {}
                }
                BrowserTimer.sleep(WRITE_WHEN_QUIET).await;
            };
            loop {
                let batch = pending.borrow_mut().take();
                if batch.is_empty() {
                    break;
                }
                for (key, data) in batch {
                    // Best effort: a refused write (quota, private mode) only means a later
                    // network read.
                    let _ = store(&opened, &key, &data, capacity, &ledger).await;
                }
            }
        });
    }

    /// The bytes kept under `key`, if any (a key this page knows is not kept costs nothing).
    async fn lookup(&self, key: &str) -> Option<Bytes> {
        self.reads.set(self.reads.get() + 1);
        let cache = match self.cache_state() {
            CacheState::Refused => return None,
            CacheState::Open(opened) if !opened.keys.borrow().contains(key) => return None,
            CacheState::Open(opened) => opened.cache.clone(),
            CacheState::Opening => open_cache().await.ok()?,
        };
        lookup(&cache, key).await.ok().flatten()
    }
}

/// Whether the global scope has a Cache API (secure contexts only).
fn origin_is_usable() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &"caches".into()).is_ok_and(|c| !c.is_undefined())
}

async fn open_cache() -> std::result::Result<web_sys::Cache, JsValue> {
    let caches: web_sys::CacheStorage =
        js_sys::Reflect::get(&js_sys::global(), &"caches".into())?.dyn_into()?;
    JsFuture::from(caches.open(CACHE_NAME)).await?.dyn_into()
}

/// Opens the origin's cache and lists its keys (`None` where the Cache API refuses).
async fn open_and_list() -> Option<Rc<Opened>> {
    if !origin_is_usable() {
        return None;
    }
    let cache = open_cache().await.ok()?;
    let requests: js_sys::Array = JsFuture::from(cache.keys()).await.ok()?.dyn_into().ok()?;
    let keys = requests
        .iter()
        .filter_map(|r| r.dyn_into::<web_sys::Request>().ok())
        .map(|r| r.url())
        .collect();
    Some(Rc::new(Opened {
        cache,
        keys: RefCell::new(keys),
    }))
}

/// The bytes cached under `key`, if any and whole; a damaged entry is deleted.
async fn lookup(cache: &web_sys::Cache, key: &str) -> std::result::Result<Option<Bytes>, JsValue> {
    let found = JsFuture::from(cache.match_with_str(key)).await?;
    let Ok(response) = found.dyn_into::<web_sys::Response>() else {
        return Ok(None);
    };
    let expected = response
        .headers()
        .get(BYTES_HEADER)?
        .and_then(|v| v.parse::<u64>().ok());
    let buffer = JsFuture::from(response.array_buffer()?).await?;
    let data = Bytes::from(js_sys::Uint8Array::new(&buffer).to_vec());
    if expected != Some(data.len() as u64) {
        JsFuture::from(cache.delete_with_str(key)).await?;
        return Ok(None);
    }
    Ok(Some(data))
}

/// Writes one entry and evicts the oldest ones while the origin's entries exceed `capacity`.
async fn store(
    opened: &Opened,
    key: &str,
    data: &[u8],
    capacity: u64,
    ledger: &RefCell<Ledger>,
) -> std::result::Result<(), JsValue> {
    let cache = &opened.cache;
    if !ledger.borrow().loaded {
        let known = load_ledger(cache).await?;
        let mut l = ledger.borrow_mut();
        if !l.loaded {
            l.bytes += known.iter().map(|(_, n)| n).sum::<u64>();
            let mine = std::mem::replace(&mut l.entries, known);
            l.entries.extend(mine);
            l.loaded = true;
        }
    }
    let headers = web_sys::Headers::new()?;
    headers.set(BYTES_HEADER, &data.len().to_string())?;
    headers.set("content-type", "application/octet-stream")?;
    let init = web_sys::ResponseInit::new();
    init.set_headers_headers(&headers);
    let body = js_sys::Uint8Array::from(data);
    let response = web_sys::Response::new_with_opt_js_u8_array_and_init(Some(&body), &init)?;
    JsFuture::from(cache.put_with_str(key, &response)).await?;
    opened.keys.borrow_mut().insert(key.to_string());
    let evicted = {
        let mut l = ledger.borrow_mut();
        l.entries.push_back((key.to_string(), data.len() as u64));
        l.bytes += data.len() as u64;
        let mut evicted = Vec::new();
        while l.bytes > capacity {
            let Some((old, size)) = l.entries.pop_front() else {
                break;
            };
            l.bytes -= size;
            evicted.push(old);
        }
        evicted
    };
    for old in evicted {
        opened.keys.borrow_mut().remove(&old);
        JsFuture::from(cache.delete_with_str(&old)).await?;
    }
    Ok(())
}

/// The entries already in the cache (earlier visits, other tabs), oldest first: the Cache API
/// lists them in the order they were put.
async fn load_ledger(
    cache: &web_sys::Cache,
) -> std::result::Result<VecDeque<(String, u64)>, JsValue> {
    let responses: js_sys::Array = JsFuture::from(cache.match_all()).await?.dyn_into()?;
    let requests: js_sys::Array = JsFuture::from(cache.keys()).await?.dyn_into()?;
    let mut entries = VecDeque::new();
    for (request, response) in requests.iter().zip(responses.iter()) {
        let request: web_sys::Request = request.dyn_into()?;
        let response: web_sys::Response = response.dyn_into()?;
        let size = response
            .headers()
            .get(BYTES_HEADER)?
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        entries.push_back((request.url(), size));
    }
    Ok(entries)
}

#[async_trait(?Send)]
impl<S: ObjectStore> ObjectStore for PersistentCache<S> {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn root_uri(&self) -> Option<String> {
        self.inner.root_uri()
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        let Some(key) = self.key(path, None) else {
            return self.inner.get(path).await;
        };
        if let Some(data) = self.lookup(&key).await {
            return Ok(data);
        }
        let data = self.inner.get(path).await?;
        self.keep(key, data.clone());
        Ok(data)
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        let Some(key) = self.key(path, Some(&range)) else {
            return self.inner.get_range(path, range).await;
        };
        if let Some(data) = self.lookup(&key).await {
            return Ok(data);
        }
        let data = self.inner.get_range(path, range).await?;
        self.keep(key, data.clone());
        Ok(data)
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        self.inner.head(path).await
    }

    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        self.inner.list_dir(prefix).await
    }

    fn lists_without_requests(&self) -> bool {
        self.inner.lists_without_requests()
    }

    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        self.inner.put(path, data).await
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        self.inner.put_if_absent(path, data).await
    }

    async fn delete(&self, path: &str) -> Result<()> {
        if let Some(key) = self.key(path, None) {
            let cache = match self.cache_state() {
                CacheState::Open(opened) => {
                    opened.keys.borrow_mut().remove(&key);
                    Some(opened.cache.clone())
                }
                CacheState::Opening | CacheState::Refused => open_cache().await.ok(),
            };
            if let Some(cache) = cache {
                let _ = JsFuture::from(cache.delete_with_str(&key)).await;
            }
        }
        self.inner.delete(path).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn pending_objects_are_counted_as_they_are_queued_and_taken() {
        let mut pending = Pending::default();
        let half = Bytes::from(vec![0u8; PENDING_BYTES / 2]);
        assert!(pending.push("a".into(), half.clone()));
        assert!(pending.push("b".into(), half.clone()));
        assert_eq!(pending.bytes, PENDING_BYTES);
        assert!(
            !pending.push("c".into(), Bytes::from_static(b"x")),
            "over the bound"
        );
        assert_eq!(pending.entries.len(), 2);
        let taken: Vec<String> = pending.take().into_iter().map(|(k, _)| k).collect();
        assert_eq!(taken, ["a", "b"]);
        assert_eq!((pending.bytes, pending.entries.len()), (0, 0));
        assert!(pending.push("c".into(), half), "room again once taken");
    }
}
