//! A store over a local folder (native only): the CLI's `path` and `file://` warehouses.

use crate::{Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::io::ErrorKind;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Objects are files below `root`; keys map to relative paths.
#[derive(Debug, Clone)]
pub struct LocalStore {
    root: PathBuf,
}

impl LocalStore {
    /// A store rooted at `root` (the folder need not exist yet for writes).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// Accepts a plain path or a `file://` URI.
    pub fn from_uri(uri: &str) -> Self {
        Self::new(uri.strip_prefix("file://").unwrap_or(uri))
    }

    fn full(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }
}

fn io_error(operation: &'static str, path: &str, e: std::io::Error) -> Error {
    match e.kind() {
        ErrorKind::NotFound => Error::NotFound {
            path: path.to_string(),
        },
        ErrorKind::PermissionDenied => Error::PermissionDenied {
            path: path.to_string(),
            hint: "the operating system refused access to this file".to_string(),
        },
        _ => Error::Io {
            operation,
            path: path.to_string(),
            message: e.to_string(),
        },
    }
}

async fn ensure_parent(full: &Path, path: &str) -> Result<()> {
    if let Some(dir) = full.parent() {
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|e| io_error("create directory for", path, e))?;
    }
    Ok(())
}

#[async_trait(?Send)]
impl ObjectStore for LocalStore {
    fn describe(&self) -> String {
        format!("file://{}", self.root.display())
    }

    fn root_uri(&self) -> Option<String> {
        let root = std::path::absolute(&self.root).ok()?;
        Some(format!("file://{}", root.display()))
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        tokio::fs::read(self.full(path))
            .await
            .map(Bytes::from)
            .map_err(|e| io_error("read", path, e))
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        use tokio::io::{AsyncReadExt, AsyncSeekExt};
        let mut file = tokio::fs::File::open(self.full(path))
            .await
            .map_err(|e| io_error("open", path, e))?;
        let size = file
            .metadata()
            .await
            .map_err(|e| io_error("stat", path, e))?
            .len();
        if range.start > range.end || range.end > size {
            return Err(Error::OutOfRange {
                path: path.to_string(),
                start: range.start,
                end: range.end,
                size,
            });
        }
        file.seek(std::io::SeekFrom::Start(range.start))
            .await
            .map_err(|e| io_error("seek", path, e))?;
        let mut buf = vec![0u8; (range.end - range.start) as usize];
        file.read_exact(&mut buf)
            .await
            .map_err(|e| io_error("read", path, e))?;
        Ok(Bytes::from(buf))
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        let meta = tokio::fs::metadata(self.full(path))
            .await
            .map_err(|e| io_error("stat", path, e))?;
        Ok(ObjectMeta {
            path: path.to_string(),
            size: meta.len(),
        })
    }

    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        let dir = self.full(prefix);
        let mut entries = match tokio::fs::read_dir(&dir).await {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Listing::default()),
            Err(e) => return Err(io_error("list", prefix, e)),
        };
        let mut listing = Listing::default();
        while let Some(entry) = entries
            .next_entry()
            .await
            .map_err(|e| io_error("list", prefix, e))?
        {
            let name = entry.file_name().to_string_lossy().into_owned();
            let meta = entry
                .metadata()
                .await
                .map_err(|e| io_error("stat", prefix, e))?;
            if meta.is_dir() {
                listing.dirs.push(name);
            } else {
                listing.files.push(ObjectMeta {
                    path: crate::join(prefix, &name),
                    size: meta.len(),
                });
            }
        }
        listing.dirs.sort();
        listing.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(listing)
    }

    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        let full = self.full(path);
        ensure_parent(&full, path).await?;
        tokio::fs::write(&full, &data)
            .await
            .map_err(|e| io_error("write", path, e))
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        use tokio::io::AsyncWriteExt;
        let full = self.full(path);
        ensure_parent(&full, path).await?;
        let mut file = match tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&full)
            .await
        {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => return Ok(PutOutcome::AlreadyExists),
            Err(e) => return Err(io_error("create", path, e)),
        };
        file.write_all(&data)
            .await
            .map_err(|e| io_error("write", path, e))?;
        file.sync_all()
            .await
            .map_err(|e| io_error("sync", path, e))?;
        Ok(PutOutcome::Created)
    }

    async fn delete(&self, path: &str) -> Result<()> {
        let full = self.full(path);
        match tokio::fs::remove_file(&full).await {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(io_error("delete", path, e)),
        }
        // Object-store semantics: a folder exists while it holds objects. Remove the folders
        // this delete emptied (up to the root); a folder someone else just filled stays.
        let mut dir = full.parent();
        while let Some(d) = dir {
            if d == self.root || !d.starts_with(&self.root) {
                break;
            }
            if tokio::fs::remove_dir(d).await.is_err() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn deleting_the_last_object_removes_its_folders() {
        let dir = tempfile::tempdir().unwrap();
        let s = LocalStore::new(dir.path());
        s.put("t/schema/schema-0", Bytes::from_static(b"{}"))
            .await
            .unwrap();
        s.put("t/snapshot/LATEST", Bytes::from_static(b"1"))
            .await
            .unwrap();
        s.delete("t/schema/schema-0").await.unwrap();
        assert_eq!(
            s.list_dir("t").await.unwrap().dirs,
            vec!["snapshot".to_string()]
        );
        s.delete("t/snapshot/LATEST").await.unwrap();
        assert!(!dir.path().join("t").exists());
        assert!(dir.path().exists(), "the root stays");
    }

    #[tokio::test]
    async fn local_roundtrip_and_create_new() {
        let dir = tempfile::tempdir().unwrap();
        let s = LocalStore::new(dir.path());
        s.put("a/b/c.txt", Bytes::from_static(b"hello"))
            .await
            .unwrap();
        assert_eq!(s.get_range("a/b/c.txt", 1..4).await.unwrap(), "ell");
        assert!(matches!(
            s.get_range("a/b/c.txt", 2..10).await,
            Err(Error::OutOfRange { size: 5, .. })
        ));
        assert_eq!(
            s.put_if_absent("a/b/c.txt", Bytes::from_static(b"x"))
                .await
                .unwrap(),
            PutOutcome::AlreadyExists
        );
        assert_eq!(
            s.put_if_absent("a/b/d.txt", Bytes::from_static(b"x"))
                .await
                .unwrap(),
            PutOutcome::Created
        );
        let l = s.list_dir("a/b").await.unwrap();
        assert_eq!(l.files.len(), 2);
        assert_eq!(s.list_dir("").await.unwrap().dirs, vec!["a"]);
        assert!(s.get("zz").await.unwrap_err().is_not_found());
        s.delete("a/b/d.txt").await.unwrap();
        s.delete("a/b/d.txt").await.unwrap();
        assert_eq!(s.head("a/b/c.txt").await.unwrap().size, 5);
    }
}
