//! Listing for stores that cannot list (static web hosts), from an index file generated at build time.

use crate::memory::listing_from_keys;
use crate::{Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// Name of the index file at the warehouse root: `{"files":[{"path":..,"size":..}, ...]}`.
pub const INDEX_FILE_NAME: &str = "_lakescope_index.json";

#[derive(serde::Serialize, serde::Deserialize)]
struct IndexFile {
    files: Vec<ObjectMeta>,
}

/// Wraps a store and answers `list_dir` from [`INDEX_FILE_NAME`]; everything else passes through.
pub struct IndexedStore<S> {
    inner: S,
    index: Mutex<Option<Arc<Vec<ObjectMeta>>>>,
}

impl<S: ObjectStore> IndexedStore<S> {
    /// Wraps `inner`; the index is fetched on the first listing.
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            index: Mutex::new(None),
        }
    }

    /// Serialises an index for the given objects (used by the build-time generator and tests).
    pub fn render_index(mut files: Vec<ObjectMeta>) -> String {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        serde_json::to_string(&IndexFile { files }).unwrap_or_default()
    }

    /// Every object the index names (read on first use), sorted by key.
    pub async fn files(&self) -> Result<Arc<Vec<ObjectMeta>>> {
        self.index().await
    }

    async fn index(&self) -> Result<Arc<Vec<ObjectMeta>>> {
        if let Some(index) = self.index.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            return Ok(index);
        }
        let raw = self.inner.get(INDEX_FILE_NAME).await.map_err(|e| match e {
            Error::NotFound { path } => Error::Unsupported {
                store: self.inner.describe(),
                operation: format!(
                    "listing (this host cannot list folders and has no {path}; open a table by name instead)"
                ),
            },
            other => other,
        })?;
        let parsed: IndexFile = serde_json::from_slice(&raw).map_err(|e| Error::BadIndex {
            path: INDEX_FILE_NAME.to_string(),
            reason: e.to_string(),
        })?;
        let mut files = parsed.files;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let files = Arc::new(files);
        *self.index.lock().unwrap_or_else(|e| e.into_inner()) = Some(files.clone());
        Ok(files)
    }
}

#[async_trait(?Send)]
impl<S: ObjectStore> ObjectStore for IndexedStore<S> {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn root_uri(&self) -> Option<String> {
        self.inner.root_uri()
    }
    fn lists_without_requests(&self) -> bool {
        self.index
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
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
        let index = self.index().await?;
        Ok(listing_from_keys(
            prefix,
            index.iter().map(|m| (m.path.as_str(), m.size)),
        ))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use futures::executor::block_on;

    #[test]
    fn lists_from_index_and_reports_bad_index() {
        block_on(async {
            let mem = MemoryStore::new();
            let files = vec![
                ObjectMeta {
                    path: "d.db/t/snapshot/snapshot-1".into(),
                    size: 3,
                },
                ObjectMeta {
                    path: "d.db/u/schema/schema-0".into(),
                    size: 2,
                },
            ];
            mem.put(
                INDEX_FILE_NAME,
                Bytes::from(IndexedStore::<MemoryStore>::render_index(files)),
            )
            .await
            .unwrap();
            let s = IndexedStore::new(mem);
            assert_eq!(s.list_dir("").await.unwrap().dirs, vec!["d.db"]);
            assert_eq!(s.list_dir("d.db").await.unwrap().dirs, vec!["t", "u"]);

            let bad = MemoryStore::new();
            bad.put(INDEX_FILE_NAME, Bytes::from_static(b"{oops"))
                .await
                .unwrap();
            let s = IndexedStore::new(bad);
            assert!(matches!(s.list_dir("").await, Err(Error::BadIndex { .. })));

            let none = IndexedStore::new(MemoryStore::new());
            let msg = none.list_dir("").await.unwrap_err().to_string();
            assert!(msg.contains("cannot list"), "{msg}");
        });
    }

    #[test]
    fn a_key_the_index_does_not_name_is_still_asked_of_the_host() {
        // Decision (issue 23): the index lists, it does not decide existence. A warehouse
        // committed to after its index was made is read from its LATEST hint and the files
        // that hint leads to (crates/paimon/tests/round_trips.rs); a host's fallback page for a
        // missing key is recognised by the HTTP stores instead.
        block_on(async {
            let mem = MemoryStore::new();
            let listed = ObjectMeta {
                path: "d.db/t/snapshot/snapshot-1".into(),
                size: 2,
            };
            mem.put(
                INDEX_FILE_NAME,
                Bytes::from(IndexedStore::<MemoryStore>::render_index(vec![listed])),
            )
            .await
            .unwrap();
            mem.put("d.db/t/snapshot/snapshot-2", Bytes::from_static(b"{}"))
                .await
                .unwrap();
            let s = IndexedStore::new(mem);
            assert_eq!(s.list_dir("d.db/t/snapshot").await.unwrap().files.len(), 1);
            assert_eq!(
                &s.get("d.db/t/snapshot/snapshot-2").await.unwrap()[..],
                b"{}"
            );
            assert!(s
                .get("d.db/t/snapshot/snapshot-3")
                .await
                .unwrap_err()
                .is_not_found());
        });
    }
}
