//! An [`ObjectStore`] wrapper that fails the k-th mutating call (put, put_if_absent, delete),
//! before or after the call reaches the store, and logs every mutation.

use async_trait::async_trait;
use bytes::Bytes;
use lakescope_storage::{Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use std::cell::{Cell, RefCell};
use std::ops::Range;
use std::rc::Rc;

/// When the failing call fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultMode {
    /// The call never reaches the store (a writer killed before the request).
    Before,
    /// The call takes effect, then reports an error (a lost answer: the writer cannot know).
    After,
}

/// Wraps a store; reads pass through, mutations are counted from 1 and the armed one fails.
pub struct FaultStore {
    inner: Rc<dyn ObjectStore>,
    armed: Cell<Option<(u64, FaultMode)>>,
    mutations: Cell<u64>,
    log: RefCell<Vec<String>>,
}

impl FaultStore {
    /// A wrapper of `inner` failing nothing yet.
    pub fn new(inner: Rc<dyn ObjectStore>) -> Self {
        Self {
            inner,
            armed: Cell::new(None),
            mutations: Cell::new(0),
            log: RefCell::new(Vec::new()),
        }
    }

    /// Fails the `k`-th mutating call from now on (counting restarts at 1), in `mode`.
    pub fn arm(&self, k: u64, mode: FaultMode) {
        self.mutations.set(0);
        self.log.borrow_mut().clear();
        self.armed.set(Some((k, mode)));
    }

    /// Stops failing and restarts the count.
    pub fn disarm(&self) {
        self.mutations.set(0);
        self.log.borrow_mut().clear();
        self.armed.set(None);
    }

    /// Mutating calls seen since the last `arm`/`disarm`.
    pub fn mutations(&self) -> u64 {
        self.mutations.get()
    }

    /// `<operation> <path>` of each mutating call since the last `arm`/`disarm`.
    pub fn log(&self) -> Vec<String> {
        self.log.borrow().clone()
    }

    /// Counts a mutation; `Some(mode)` when this one must fail.
    fn next(&self, operation: &str, path: &str) -> Option<FaultMode> {
        let n = self.mutations.get() + 1;
        self.mutations.set(n);
        self.log.borrow_mut().push(format!("{operation} {path}"));
        match self.armed.get() {
            Some((k, mode)) if k == n => Some(mode),
            _ => None,
        }
    }
}

fn injected(operation: &'static str, path: &str, mode: FaultMode) -> Error {
    Error::Io {
        operation,
        path: path.to_string(),
        message: format!("injected failure ({mode:?} the call)"),
    }
}

#[async_trait(?Send)]
impl ObjectStore for FaultStore {
    fn describe(&self) -> String {
        format!("faulty {}", self.inner.describe())
    }
    fn lists_without_requests(&self) -> bool {
        self.inner.lists_without_requests()
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
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
        match self.next("put", path) {
            None => self.inner.put(path, data).await,
            Some(FaultMode::Before) => Err(injected("put", path, FaultMode::Before)),
            Some(FaultMode::After) => {
                self.inner.put(path, data).await?;
                Err(injected("put", path, FaultMode::After))
            }
        }
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        match self.next("put_if_absent", path) {
            None => self.inner.put_if_absent(path, data).await,
            Some(FaultMode::Before) => Err(injected("put_if_absent", path, FaultMode::Before)),
            Some(FaultMode::After) => {
                self.inner.put_if_absent(path, data).await?;
                Err(injected("put_if_absent", path, FaultMode::After))
            }
        }
    }

    async fn delete(&self, path: &str) -> Result<()> {
        match self.next("delete", path) {
            None => self.inner.delete(path).await,
            Some(FaultMode::Before) => Err(injected("delete", path, FaultMode::Before)),
            Some(FaultMode::After) => {
                self.inner.delete(path).await?;
                Err(injected("delete", path, FaultMode::After))
            }
        }
    }
}
