//! An in-memory store for tests and for scratch warehouses.

use crate::path::dir_prefix;
use crate::{Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;

/// Objects held in a sorted map; cloning the store shares nothing.
#[derive(Debug, Default)]
pub struct MemoryStore {
    objects: Mutex<BTreeMap<String, Bytes>>,
    /// The location its objects were copied from ([`ObjectStore::root_uri`]), if any.
    root_uri: Option<String>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// A store holding `files` (key, bytes), e.g. tables compiled into the program.
    pub fn from_static(files: &[(&str, &'static [u8])]) -> Self {
        let objects = files
            .iter()
            .map(|(key, bytes)| (key.to_string(), Bytes::from_static(bytes)))
            .collect();
        Self {
            objects: Mutex::new(objects),
            root_uri: None,
        }
    }

    /// This store standing for the location `uri` (e.g. the folder its objects were copied
    /// from), so absolute paths under it written in table metadata map onto its keys.
    pub fn with_root_uri(mut self, uri: impl Into<String>) -> Self {
        self.root_uri = Some(uri.into());
        self
    }

    fn objects(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Bytes>> {
        // A poisoned lock only means another test thread panicked; the map itself is intact.
        self.objects.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Slices `range` out of `data`, or says why it cannot.
pub(crate) fn slice_range(path: &str, data: &Bytes, range: Range<u64>) -> Result<Bytes> {
    let size = data.len() as u64;
    Error::check_range(path, &range, size)?;
    Ok(data.slice(range.start as usize..range.end as usize))
}

/// Builds the immediate children of `prefix` from a sorted iterator of all keys and sizes.
pub(crate) fn listing_from_keys<'a>(
    prefix: &str,
    keys: impl Iterator<Item = (&'a str, u64)>,
) -> Listing {
    let prefix = dir_prefix(prefix);
    let mut listing = Listing::default();
    for (key, size) in keys {
        let Some(rest) = key.strip_prefix(prefix.as_str()) else {
            continue;
        };
        match rest.split_once('/') {
            Some((dir, _)) if listing.dirs.last().map(String::as_str) != Some(dir) => {
                listing.dirs.push(dir.to_string());
            }
            Some(_) => {}
            None if !rest.is_empty() => listing.files.push(ObjectMeta {
                path: key.to_string(),
                size,
            }),
            None => {}
        }
    }
    listing.dirs.dedup();
    listing
}

#[async_trait(?Send)]
impl ObjectStore for MemoryStore {
    fn describe(&self) -> String {
        "memory://".to_string()
    }

    fn root_uri(&self) -> Option<String> {
        self.root_uri.clone()
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        self.objects()
            .get(path)
            .cloned()
            .ok_or_else(|| Error::NotFound {
                path: path.to_string(),
            })
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        let data = self.get(path).await?;
        slice_range(path, &data, range)
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        let data = self.get(path).await?;
        Ok(ObjectMeta {
            path: path.to_string(),
            size: data.len() as u64,
        })
    }

    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        let objects = self.objects();
        Ok(listing_from_keys(
            prefix,
            objects.iter().map(|(k, v)| (k.as_str(), v.len() as u64)),
        ))
    }

    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        self.objects().insert(path.to_string(), data);
        Ok(())
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        let mut objects = self.objects();
        if objects.contains_key(path) {
            return Ok(PutOutcome::AlreadyExists);
        }
        objects.insert(path.to_string(), data);
        Ok(PutOutcome::Created)
    }

    async fn delete(&self, path: &str) -> Result<()> {
        self.objects().remove(path);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    #[test]
    fn a_store_from_static_files_lists_and_reads_them() {
        block_on(async {
            let s = MemoryStore::from_static(&[("t/a", b"ab"), ("t/b/c", b"xyz")]);
            let listing = s.list_dir("t/").await.unwrap();
            assert_eq!(listing.dirs, ["b"]);
            assert_eq!(listing.files.len(), 1);
            assert_eq!(s.get("t/b/c").await.unwrap(), Bytes::from_static(b"xyz"));
        });
    }

    #[test]
    fn put_get_list_and_atomic_create() {
        block_on(async {
            let s = MemoryStore::new();
            s.put("db.db/t/schema/schema-0", Bytes::from_static(b"{}"))
                .await
                .unwrap();
            s.put("db.db/t/snapshot/snapshot-1", Bytes::from_static(b"abc"))
                .await
                .unwrap();
            s.put("top.txt", Bytes::from_static(b"x")).await.unwrap();
            let root = s.list_dir("").await.unwrap();
            assert_eq!(root.dirs, vec!["db.db"]);
            assert_eq!(root.files.len(), 1);
            let t = s.list_dir("db.db/t/").await.unwrap();
            assert_eq!(t.dirs, vec!["schema", "snapshot"]);
            assert_eq!(
                s.get_range("db.db/t/snapshot/snapshot-1", 1..3)
                    .await
                    .unwrap(),
                Bytes::from_static(b"bc")
            );
            assert!(matches!(
                s.get_range("db.db/t/snapshot/snapshot-1", 1..9).await,
                Err(Error::OutOfRange { size: 3, .. })
            ));
            assert_eq!(
                s.put_if_absent("top.txt", Bytes::from_static(b"y"))
                    .await
                    .unwrap(),
                PutOutcome::AlreadyExists
            );
            assert_eq!(s.get("top.txt").await.unwrap(), Bytes::from_static(b"x"));
            assert!(s.get("nope").await.unwrap_err().is_not_found());
            assert_eq!(s.get_opt("nope").await.unwrap(), None);
        });
    }
}
