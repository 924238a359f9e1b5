//! An I/O meter wrapper: counts the requests a store answered and the bytes it moved, so long
//! operations can show how much they have read and written so far.

use crate::{Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::ops::Range;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What a store did up to some moment; subtract two readings for what happened in between.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IoCounts {
    /// Requests answered successfully (reads, listings, writes, deletes).
    pub requests: u64,
    /// Bytes of object data returned by reads.
    pub bytes_read: u64,
    /// Bytes of object data written.
    pub bytes_written: u64,
}

impl IoCounts {
    /// What happened between `earlier` and `self` (saturating: a reset meter reads as zero).
    pub fn since(&self, earlier: &IoCounts) -> IoCounts {
        IoCounts {
            requests: self.requests.saturating_sub(earlier.requests),
            bytes_read: self.bytes_read.saturating_sub(earlier.bytes_read),
            bytes_written: self.bytes_written.saturating_sub(earlier.bytes_written),
        }
    }
}

/// The counters a [`MeteredStore`] adds to; share it to read them while work runs.
#[derive(Debug, Default)]
pub struct IoMeter {
    requests: AtomicU64,
    bytes_read: AtomicU64,
    bytes_written: AtomicU64,
}

impl IoMeter {
    /// The counts so far.
    pub fn read(&self) -> IoCounts {
        IoCounts {
            requests: self.requests.load(Ordering::Relaxed),
            bytes_read: self.bytes_read.load(Ordering::Relaxed),
            bytes_written: self.bytes_written.load(Ordering::Relaxed),
        }
    }

    fn request(&self, read: usize, written: usize) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes_read.fetch_add(read as u64, Ordering::Relaxed);
        self.bytes_written
            .fetch_add(written as u64, Ordering::Relaxed);
    }
}

/// Wraps a store and counts its successful requests and bytes into an [`IoMeter`].
pub struct MeteredStore {
    inner: Rc<dyn ObjectStore>,
    meter: Arc<IoMeter>,
}

impl MeteredStore {
    /// Counts `inner`'s I/O into `meter`.
    pub fn new(inner: Rc<dyn ObjectStore>, meter: Arc<IoMeter>) -> Self {
        Self { inner, meter }
    }

    /// Counts `result` if it succeeded; `bytes` says how many it (read, wrote).
    fn counted<T>(&self, result: Result<T>, bytes: impl Fn(&T) -> (usize, usize)) -> Result<T> {
        if let Ok(value) = &result {
            let (read, written) = bytes(value);
            self.meter.request(read, written);
        }
        result
    }
}

#[async_trait(?Send)]
impl ObjectStore for MeteredStore {
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
        let r = self.inner.get(path).await;
        self.counted(r, |b| (b.len(), 0))
    }
    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        let r = self.inner.get_range(path, range).await;
        self.counted(r, |b| (b.len(), 0))
    }
    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        let r = self.inner.head(path).await;
        self.counted(r, |_| (0, 0))
    }
    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        let r = self.inner.list_dir(prefix).await;
        self.counted(r, |_| (0, 0))
    }
    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        let size = data.len();
        let r = self.inner.put(path, data).await;
        self.counted(r, |_| (0, size))
    }
    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        let size = data.len();
        let r = self.inner.put_if_absent(path, data).await;
        self.counted(r, |o| (0, if *o == PutOutcome::Created { size } else { 0 }))
    }
    async fn delete(&self, path: &str) -> Result<()> {
        let r = self.inner.delete(path).await;
        self.counted(r, |_| (0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;

    #[test]
    fn counts_successful_requests_and_their_bytes() {
        futures::executor::block_on(async {
            let meter = Arc::new(IoMeter::default());
            let store = MeteredStore::new(Rc::new(MemoryStore::new()), meter.clone());
            store
                .put("a/x", Bytes::from_static(b"hello"))
                .await
                .unwrap();
            let before = meter.read();
            assert_eq!(store.get("a/x").await.unwrap().len(), 5);
            assert_eq!(store.get_range("a/x", 1..3).await.unwrap().len(), 2);
            assert!(store.get("a/missing").await.is_err());
            assert_eq!(
                store
                    .put_if_absent("a/x", Bytes::from_static(b"other"))
                    .await
                    .unwrap(),
                PutOutcome::AlreadyExists
            );
            let delta = meter.read().since(&before);
            assert_eq!(
                delta,
                IoCounts {
                    requests: 3,
                    bytes_read: 7,
                    bytes_written: 0
                }
            );
            assert_eq!(before.bytes_written, 5);
            assert_eq!(store.describe(), MemoryStore::new().describe());
        });
    }
}
