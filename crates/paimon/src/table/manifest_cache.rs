//! A bounded cache of decoded manifest files: at most a budget of their encoded bytes, the least
//! recently used file forgotten first; concurrent reads of one file share one read and decoding.

use crate::error::Result;
use async_once_cell::OnceCell;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::rc::Rc;

/// Encoded bytes of manifest files each cache of a [`super::Table`] keeps decoded (Paimon's Java
/// catalog keeps up to 128 MiB of small manifest files, `cache.manifest.small-file-memory`; a
/// decoded entry takes a few times its encoded bytes, and a page may hold several tables).
pub const MANIFEST_CACHE_BYTES: u64 = 16 << 20;

/// Decoded manifest files by name, within [`ManifestCache::limit`] encoded bytes.
pub(super) struct ManifestCache<T> {
    limit: u64,
    inner: RefCell<Inner<T>>,
}

struct Inner<T> {
    files: HashMap<String, Slot<T>>,
    /// Encoded bytes of the decoded files.
    bytes: u64,
    tick: u64,
}

struct Slot<T> {
    cell: Rc<OnceCell<Rc<Vec<T>>>>,
    /// Last use ([`Inner::tick`]).
    used: u64,
    /// Encoded bytes, once decoded (0 while being read).
    bytes: u64,
}

impl<T> ManifestCache<T> {
    /// A cache of at most `limit` encoded bytes (a file larger than that is kept until the next
    /// file is decoded).
    pub(super) fn new(limit: u64) -> Self {
        Self {
            limit,
            inner: RefCell::new(Inner {
                files: HashMap::new(),
                bytes: 0,
                tick: 0,
            }),
        }
    }

    /// File `name`, decoded by `read` (which gives the entries and the encoded size) unless it
    /// is cached. A failed read is tried again by the next caller.
    pub(super) async fn get_or_read<F>(&self, name: &str, read: F) -> Result<Rc<Vec<T>>>
    where
        F: Future<Output = Result<(Vec<T>, u64)>>,
    {
        let cell = {
            let mut inner = self.inner.borrow_mut();
            inner.tick += 1;
            let tick = inner.tick;
            let slot = inner.files.entry(name.to_string()).or_insert_with(|| Slot {
                cell: Rc::default(),
                used: tick,
                bytes: 0,
            });
            slot.used = tick;
            slot.cell.clone()
        };
        let mut size = None;
        let decoded = cell
            .get_or_try_init(async {
                let (entries, bytes) = read.await?;
                size = Some(bytes);
                Ok::<_, crate::error::Error>(Rc::new(entries))
            })
            .await?
            .clone();
        if let Some(bytes) = size {
            self.decoded(name, bytes);
        }
        Ok(decoded)
    }

    /// Records that `name` (`bytes` encoded) is decoded, then forgets the least recently used
    /// other files until the cache is within its limit.
    fn decoded(&self, name: &str, bytes: u64) {
        let mut inner = self.inner.borrow_mut();
        match inner.files.get_mut(name) {
            Some(slot) => slot.bytes = bytes,
            None => return, // forgotten meanwhile by another reader's eviction
        }
        inner.bytes += bytes;
        while inner.bytes > self.limit {
            let oldest = inner
                .files
                .iter()
                .filter(|(n, s)| n.as_str() != name && s.bytes > 0)
                .min_by_key(|(_, s)| s.used)
                .map(|(n, _)| n.clone());
            let Some(oldest) = oldest else { break };
            if let Some(slot) = inner.files.remove(&oldest) {
                inner.bytes -= slot.bytes;
            }
        }
    }

    /// Encoded bytes of the files held decoded.
    #[cfg(test)]
    fn bytes(&self) -> u64 {
        self.inner.borrow().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    async fn get(cache: &ManifestCache<u8>, name: &str, size: u64, reads: &Cell<u32>) -> Vec<u8> {
        let out = cache
            .get_or_read(name, async {
                reads.set(reads.get() + 1);
                Ok((vec![name.as_bytes()[0]], size))
            })
            .await
            .unwrap();
        out.as_ref().clone()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn keeps_recently_used_files_within_the_limit() {
        let cache = ManifestCache::new(100);
        let reads = Cell::new(0);
        assert_eq!(get(&cache, "a", 40, &reads).await, b"a");
        assert_eq!(get(&cache, "b", 40, &reads).await, b"b");
        assert_eq!(get(&cache, "a", 40, &reads).await, b"a"); // cached, and now the newest
        assert_eq!(reads.get(), 2);
        assert_eq!(cache.bytes(), 80);
        // c does not fit with a and b: b, the least recently used, goes
        get(&cache, "c", 40, &reads).await;
        assert_eq!(cache.bytes(), 80);
        get(&cache, "a", 40, &reads).await;
        assert_eq!(reads.get(), 3, "a stayed");
        get(&cache, "b", 40, &reads).await;
        assert_eq!(reads.get(), 4, "b was read again");
        // a file larger than the whole budget is kept alone until the next one
        get(&cache, "d", 500, &reads).await;
        assert_eq!(cache.bytes(), 500);
        get(&cache, "d", 500, &reads).await;
        assert_eq!(reads.get(), 5);
        get(&cache, "e", 10, &reads).await;
        assert_eq!(cache.bytes(), 10);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_failed_read_is_tried_again() {
        let cache: ManifestCache<u8> = ManifestCache::new(100);
        let failed = cache
            .get_or_read("m", async {
                Err(crate::error::Error::Invalid("broken".into()))
            })
            .await;
        assert!(failed.is_err());
        assert_eq!(cache.bytes(), 0);
        let reads = Cell::new(0);
        assert_eq!(get(&cache, "m", 5, &reads).await, b"m");
        assert_eq!(cache.bytes(), 5);
    }
}
