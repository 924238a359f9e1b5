//! A concurrency limiter wrapper: at most N requests of the inner store in flight at once.

use crate::{Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::collections::VecDeque;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

/// A small async semaphore (no runtime needed; works in the browser).
struct Semaphore {
    state: Mutex<(usize, VecDeque<Waker>)>,
}

struct Permit<'a>(&'a Semaphore);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 += 1;
        if let Some(w) = state.1.pop_front() {
            w.wake();
        }
    }
}

struct Acquire<'a>(&'a Semaphore);

impl<'a> Future for Acquire<'a> {
    type Output = Permit<'a>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit<'a>> {
        let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.0 > 0 {
            state.0 -= 1;
            Poll::Ready(Permit(self.0))
        } else {
            state.1.push_back(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// Wraps a store so that at most `limit` of its operations run at the same time.
pub struct LimitedStore<S> {
    inner: S,
    semaphore: Semaphore,
}

impl<S: ObjectStore> LimitedStore<S> {
    /// At most `limit` (at least 1) concurrent operations.
    pub fn new(inner: S, limit: usize) -> Self {
        Self {
            inner,
            semaphore: Semaphore {
                state: Mutex::new((limit.max(1), VecDeque::new())),
            },
        }
    }

    async fn permit(&self) -> Permit<'_> {
        Acquire(&self.semaphore).await
    }
}

#[async_trait(?Send)]
impl<S: ObjectStore> ObjectStore for LimitedStore<S> {
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
        let _p = self.permit().await;
        self.inner.get(path).await
    }
    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        let _p = self.permit().await;
        self.inner.get_range(path, range).await
    }
    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        let _p = self.permit().await;
        self.inner.head(path).await
    }
    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        let _p = self.permit().await;
        self.inner.list_dir(prefix).await
    }
    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        let _p = self.permit().await;
        self.inner.put(path, data).await
    }
    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        let _p = self.permit().await;
        self.inner.put_if_absent(path, data).await
    }
    async fn delete(&self, path: &str) -> Result<()> {
        let _p = self.permit().await;
        self.inner.delete(path).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use std::cell::Cell;

    /// Counts concurrent `get`s and yields once inside each.
    struct Probe {
        inner: MemoryStore,
        now: Cell<usize>,
        max: Cell<usize>,
    }

    #[async_trait(?Send)]
    impl ObjectStore for Probe {
        fn describe(&self) -> String {
            "probe".into()
        }
        async fn get(&self, path: &str) -> Result<Bytes> {
            self.now.set(self.now.get() + 1);
            self.max.set(self.max.get().max(self.now.get()));
            let mut yielded = false;
            futures::future::poll_fn(|cx| {
                if yielded {
                    Poll::Ready(())
                } else {
                    yielded = true;
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
            })
            .await;
            self.now.set(self.now.get() - 1);
            self.inner.get(path).await
        }
        async fn get_range(&self, p: &str, r: Range<u64>) -> Result<Bytes> {
            self.inner.get_range(p, r).await
        }
        async fn head(&self, p: &str) -> Result<ObjectMeta> {
            self.inner.head(p).await
        }
        async fn list_dir(&self, p: &str) -> Result<Listing> {
            self.inner.list_dir(p).await
        }
        async fn put(&self, p: &str, d: Bytes) -> Result<()> {
            self.inner.put(p, d).await
        }
        async fn put_if_absent(&self, p: &str, d: Bytes) -> Result<PutOutcome> {
            self.inner.put_if_absent(p, d).await
        }
        async fn delete(&self, p: &str) -> Result<()> {
            self.inner.delete(p).await
        }
    }

    #[test]
    fn at_most_limit_in_flight() {
        futures::executor::block_on(async {
            let inner = MemoryStore::new();
            inner.put("a", Bytes::from_static(b"x")).await.unwrap();
            let probe = Probe {
                inner,
                now: Cell::new(0),
                max: Cell::new(0),
            };
            let s = LimitedStore::new(probe, 3);
            let reads = (0..10).map(|_| s.get("a"));
            let out = futures::future::join_all(reads).await;
            assert!(out.iter().all(|r| r.is_ok()));
            assert_eq!(s.inner.max.get(), 3);
        });
    }
}
