//! A request recorder: which requests a store was sent and how many sequential round trips deep
//! each one was, to check how many latencies an operation waits for.

use crate::{Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Mutex;
use std::task::{Context, Poll};

/// One request a [`TracedStore`] passed on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracedRequest {
    /// `get`, `get_range`, `head`, `list_dir`, `put`, `put_if_absent` or `delete`.
    pub operation: &'static str,
    /// The object key (or listed prefix).
    pub path: String,
    /// 1 + the deepest request that had finished before this one started: requests sent
    /// together share a depth, a request sent after another's answer is one deeper.
    pub depth: usize,
    /// Whether it has finished (successfully or not).
    pub finished: bool,
}

/// The requests recorded so far; share it to read them while the store is in use.
#[derive(Debug, Default)]
pub struct RequestTrace {
    requests: Mutex<Vec<TracedRequest>>,
}

impl RequestTrace {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<TracedRequest>> {
        self.requests.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every request so far, in the order they started.
    pub fn requests(&self) -> Vec<TracedRequest> {
        self.lock().clone()
    }

    /// Sequential round trips so far: the deepest request's depth (0 without requests).
    pub fn round_trips(&self) -> usize {
        self.lock().iter().map(|r| r.depth).max().unwrap_or(0)
    }

    /// Forgets every request: depths count from 1 again (requests still in flight too).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn start(&self, operation: &'static str, path: &str) -> usize {
        let mut requests = self.lock();
        let deepest_done = requests
            .iter()
            .filter(|r| r.finished)
            .map(|r| r.depth)
            .max()
            .unwrap_or(0);
        requests.push(TracedRequest {
            operation,
            path: path.to_string(),
            depth: deepest_done + 1,
            finished: false,
        });
        requests.len() - 1
    }

    fn finish(&self, index: usize, operation: &'static str, path: &str) {
        let mut requests = self.lock();
        // After a `clear` the index may name another request: only mark the one it started.
        if let Some(r) = requests.get_mut(index) {
            if r.operation == operation && r.path == path && !r.finished {
                r.finished = true;
            }
        }
    }
}

/// Yields to the executor once: the first poll wakes the task and is pending.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Wraps a store and records every request into a [`RequestTrace`].
///
/// Each request yields to the executor once before it reaches the inner store, as if it waited
/// for the network: requests a caller sends together (joined futures) are all started before
/// any of them finishes, even over a store that answers at once ([`crate::MemoryStore`]).
pub struct TracedStore {
    inner: Rc<dyn ObjectStore>,
    trace: Rc<RequestTrace>,
}

impl TracedStore {
    /// Records `inner`'s requests into `trace`.
    pub fn new(inner: Rc<dyn ObjectStore>, trace: Rc<RequestTrace>) -> Self {
        Self { inner, trace }
    }

    async fn traced<T>(
        &self,
        operation: &'static str,
        path: &str,
        request: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        let index = self.trace.start(operation, path);
        YieldOnce(false).await;
        let result = request.await;
        self.trace.finish(index, operation, path);
        result
    }
}

#[async_trait(?Send)]
impl ObjectStore for TracedStore {
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
        self.traced("get", path, self.inner.get(path)).await
    }
    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        self.traced("get_range", path, self.inner.get_range(path, range))
            .await
    }
    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        self.traced("head", path, self.inner.head(path)).await
    }
    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        self.traced("list_dir", prefix, self.inner.list_dir(prefix))
            .await
    }
    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        self.traced("put", path, self.inner.put(path, data)).await
    }
    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        self.traced("put_if_absent", path, self.inner.put_if_absent(path, data))
            .await
    }
    async fn delete(&self, path: &str) -> Result<()> {
        self.traced("delete", path, self.inner.delete(path)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use futures::executor::block_on;

    #[test]
    fn joined_requests_share_a_depth_and_answers_deepen_it() {
        block_on(async {
            let mem = MemoryStore::new();
            for k in ["a", "b", "c"] {
                mem.put(k, Bytes::from_static(b"x")).await.unwrap();
            }
            let trace = Rc::new(RequestTrace::default());
            let store = TracedStore::new(Rc::new(mem), trace.clone());
            let (a, b) = futures::join!(store.get("a"), store.head("b"));
            assert!(a.is_ok() && b.is_ok());
            assert_eq!(trace.round_trips(), 1);
            // Sent after both answers: one deeper, and so is a failed read after it.
            store.get("c").await.unwrap();
            assert!(store.get("missing").await.is_err());
            let depths: Vec<_> = trace
                .requests()
                .iter()
                .map(|r| (r.operation, r.path.clone(), r.depth, r.finished))
                .collect();
            assert_eq!(
                depths,
                vec![
                    ("get", "a".to_string(), 1, true),
                    ("head", "b".to_string(), 1, true),
                    ("get", "c".to_string(), 2, true),
                    ("get", "missing".to_string(), 3, true),
                ]
            );
            trace.clear();
            assert_eq!(trace.round_trips(), 0);
            store.get("a").await.unwrap();
            assert_eq!(trace.round_trips(), 1);
        });
    }
}
