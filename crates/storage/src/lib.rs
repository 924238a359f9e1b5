//! One async object-store interface (`ObjectStore`) that every table format reads and writes through.
//!
//! Paths are `/`-separated keys relative to the store's root (a warehouse), never absolute URLs.
//! Backends: [`MemoryStore`] (tests), [`LocalStore`] (native folders), and [`IndexedStore`], which
//! adds listing to a store that cannot list (a static web host) from a generated index file.
//! With the `browser` feature on wasm32, [`HttpStore`] reads over `fetch` (read-only) and
//! [`OpfsStore`] keeps a warehouse in the browser's Origin Private File System;
//! [`PersistentCache`] keeps uniquely named (immutable) objects across visits in the Cache API;
//! [`browser::open`] opens any warehouse URI in a window or a worker.
//! [`s3::S3Store`] and [`transport::HttpReadStore`] work over any [`transport::HttpTransport`]
//! (natively `ReqwestTransport`, feature `native-http`); [`uri::open`] opens a store from a URI;
//! [`CachingStore`], [`LimitedStore`], [`MeteredStore`] (I/O counts for progress) and
//! [`TracedStore`] (requests and their round-trip depth) wrap any store; [`copy_objects`] copies between stores.
#![warn(missing_docs)]

#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub mod browser;
mod cache;
pub mod clock;
mod copy;
mod error;
mod fallback;
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
mod http;
mod indexed;
mod limit;
#[cfg(not(target_arch = "wasm32"))]
mod local;
mod memory;
mod meter;
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
mod opfs;
mod path;
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
mod persistent;
pub mod retry;
pub mod s3;
mod trace;
pub mod transport;
pub mod uri;

pub use cache::{is_immutable, is_uniquely_named, CacheStats, CachingStore};
pub use copy::copy_objects;
pub use error::{Error, Result};
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub use http::HttpStore;
pub use indexed::{IndexedStore, INDEX_FILE_NAME};
pub use limit::LimitedStore;
#[cfg(not(target_arch = "wasm32"))]
pub use local::LocalStore;
pub use memory::MemoryStore;
pub use meter::{IoCounts, IoMeter, MeteredStore};
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub use opfs::{OpfsStore, OpfsWriter};
pub use path::{join, parent};
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub use persistent::PersistentCache;
pub use trace::{RequestTrace, TracedRequest, TracedStore};

use async_trait::async_trait;
use bytes::Bytes;
use std::ops::Range;

/// What a listing says about one object.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ObjectMeta {
    /// Key relative to the store root.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
}

/// The immediate children of a prefix: sub-"directories" and objects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    /// Names (not full keys) of the common prefixes directly below, without trailing `/`.
    pub dirs: Vec<String>,
    /// Objects directly below the prefix.
    pub files: Vec<ObjectMeta>,
}

/// Outcome of an atomic create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutOutcome {
    /// The object did not exist and now holds the given bytes.
    Created,
    /// The object already existed; nothing was written.
    AlreadyExists,
}

/// The single storage abstraction used by all table code, natively and in the browser.
///
/// Futures are not `Send`: in the browser everything runs on one thread, and natively the
/// engine drives IO concurrency on a current-thread runtime.
#[async_trait(?Send)]
pub trait ObjectStore {
    /// A short description for messages, e.g. `file:///data/lake` (never with secrets).
    fn describe(&self) -> String;

    /// The absolute location of the store's root as a URI (`file:///data/lake`,
    /// `s3://bucket/prefix`, an HTTP base URL), for mapping absolute paths written in table
    /// metadata onto keys; `None` when the store has no such location (memory, OPFS).
    fn root_uri(&self) -> Option<String> {
        None
    }

    /// The whole object.
    async fn get(&self, path: &str) -> Result<Bytes>;

    /// Bytes `range` of the object; errors if the object is shorter than `range.end`.
    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes>;

    /// Size of the object.
    async fn head(&self, path: &str) -> Result<ObjectMeta>;

    /// The children of `prefix` (a directory-like key, with or without trailing `/`).
    async fn list_dir(&self, prefix: &str) -> Result<Listing>;

    /// Whether [`ObjectStore::list_dir`] now answers without a request (a static host's index
    /// file already read): callers may then list for free where they would otherwise guess.
    fn lists_without_requests(&self) -> bool {
        false
    }

    /// Writes (or replaces) the object.
    async fn put(&self, path: &str, data: Bytes) -> Result<()>;

    /// Creates the object only if it does not exist yet, atomically.
    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome>;

    /// Deletes the object; deleting a missing object is not an error.
    async fn delete(&self, path: &str) -> Result<()>;

    /// Reads the object if it exists.
    async fn get_opt(&self, path: &str) -> Result<Option<Bytes>> {
        match self.get(path).await {
            Ok(b) => Ok(Some(b)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
