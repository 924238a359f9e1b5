//! A store over a local folder (native only): the CLI's `path` and `file://` warehouses.
//!
//! New objects are written to a hidden temporary file beside their key and moved into place
//! when complete (renamed over the key by `put`; hard-linked by `put_if_absent`, which fails if
//! the key exists), so a reader never sees a half-written object: a writer that loses a commit
//! race reads the winner's whole snapshot, never an empty file.

use crate::{Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::io::ErrorKind;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Prefix of the temporary files objects are written to before they are moved into place;
/// listings never show them.
const TEMP_PREFIX: &str = ".lakescope-tmp-";

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

/// Writes `data` to a new temporary file beside `full` (the key `path` in errors), synced when
/// `sync`; returns its path. The name is unique within this process (a counter) and across
/// processes (the process id).
async fn write_temp(full: &Path, path: &str, data: &[u8], sync: bool) -> Result<PathBuf> {
    use tokio::io::AsyncWriteExt;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let temp = full.with_file_name(format!("{TEMP_PREFIX}{}-{n}-{name}", std::process::id()));
    let written = async {
        let mut file = tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
            .await
            .map_err(|e| io_error("create", path, e))?;
        file.write_all(data)
            .await
            .map_err(|e| io_error("write", path, e))?;
        if sync {
            file.sync_all()
                .await
                .map_err(|e| io_error("sync", path, e))?;
        }
        Ok(())
    }
    .await;
    match written {
        Ok(()) => Ok(temp),
        Err(e) => {
            let _ = tokio::fs::remove_file(&temp).await;
            Err(e)
        }
    }
}

/// Creates `full` (the key `path` in errors) with `data` if it does not exist, in place.
async fn create_new(full: &Path, path: &str, data: &[u8]) -> Result<PutOutcome> {
    use tokio::io::AsyncWriteExt;
    let mut file = match tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(full)
        .await
    {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::AlreadyExists => return Ok(PutOutcome::AlreadyExists),
        Err(e) => return Err(io_error("create", path, e)),
    };
    file.write_all(data)
        .await
        .map_err(|e| io_error("write", path, e))?;
    file.sync_all()
        .await
        .map_err(|e| io_error("sync", path, e))?;
    Ok(PutOutcome::Created)
}

/// Runs a file system operation of several system calls on the object `path` on tokio's
/// blocking pool as one task (one hand-off between threads, where `tokio::fs` pays one a call).
async fn blocking<T: Send + 'static>(
    path: &str,
    op: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(op)
        .await
        .map_err(|e| Error::Io {
            operation: "run a file operation on",
            path: path.to_string(),
            message: e.to_string(),
        })?
}

/// Bytes `range` of the file `full` (the key `path` in errors).
fn read_range(full: &Path, path: &str, range: Range<u64>) -> Result<Bytes> {
    use std::io::{Read, Seek};
    let mut file = std::fs::File::open(full).map_err(|e| io_error("open", path, e))?;
    let size = file
        .metadata()
        .map_err(|e| io_error("stat", path, e))?
        .len();
    Error::check_range(path, &range, size)?;
    file.seek(std::io::SeekFrom::Start(range.start))
        .map_err(|e| io_error("seek", path, e))?;
    let mut buf = vec![0u8; (range.end - range.start) as usize];
    file.read_exact(&mut buf)
        .map_err(|e| io_error("read", path, e))?;
    Ok(Bytes::from(buf))
}

/// The folder `dir` (the key `prefix`) as a listing: sub-folders and files by name, objects
/// being written left out; empty when the folder does not exist.
fn list(dir: &Path, prefix: &str) -> Result<Listing> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Listing::default()),
        Err(e) => return Err(io_error("list", prefix, e)),
    };
    let mut listing = Listing::default();
    for entry in entries {
        let entry = entry.map_err(|e| io_error("list", prefix, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(TEMP_PREFIX) {
            continue; // an object being written
        }
        let meta = entry.metadata().map_err(|e| io_error("stat", prefix, e))?;
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
        let (full, key) = (self.full(path), path.to_string());
        blocking(path, move || read_range(&full, &key, range)).await
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
        let (dir, key) = (self.full(prefix), prefix.to_string());
        blocking(prefix, move || list(&dir, &key)).await
    }

    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        let full = self.full(path);
        ensure_parent(&full, path).await?;
        let temp = write_temp(&full, path, &data, false).await?;
        if let Err(e) = tokio::fs::rename(&temp, &full).await {
            let _ = tokio::fs::remove_file(&temp).await;
            return Err(io_error("rename into place", path, e));
        }
        Ok(())
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        let full = self.full(path);
        ensure_parent(&full, path).await?;
        if tokio::fs::try_exists(&full).await.unwrap_or(false) {
            return Ok(PutOutcome::AlreadyExists);
        }
        let temp = write_temp(&full, path, &data, true).await?;
        // a hard link is created only if the key does not exist: the check and the create are
        // one step, and the key appears with its whole content
        let linked = tokio::fs::hard_link(&temp, &full).await;
        let _ = tokio::fs::remove_file(&temp).await;
        match linked {
            Ok(()) => Ok(PutOutcome::Created),
            Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(PutOutcome::AlreadyExists),
            // a file system without hard links: create the key itself (its content appears
            // while it is written)
            Err(_) => create_new(&full, path, &data).await,
        }
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

    #[tokio::test]
    async fn objects_appear_whole_and_leave_no_temporary_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let store = LocalStore::new(&dir);
        let first = Bytes::from(vec![1u8; 1000]);
        let outcome = store.put_if_absent("a/k", first.clone()).await.unwrap();
        assert_eq!(outcome, PutOutcome::Created);
        let again = store
            .put_if_absent("a/k", Bytes::from_static(b"other"))
            .await;
        assert_eq!(again.unwrap(), PutOutcome::AlreadyExists);
        store.put("a/p", Bytes::from_static(b"one")).await.unwrap();
        store.put("a/p", Bytes::from_static(b"two")).await.unwrap();
        assert_eq!(store.get("a/k").await.unwrap(), first);
        assert_eq!(store.get("a/p").await.unwrap(), Bytes::from_static(b"two"));
        let mut names: Vec<String> = std::fs::read_dir(dir.join("a"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["k", "p"]);
        // an object being written is not listed
        std::fs::write(dir.join("a").join(format!("{TEMP_PREFIX}1-2-q")), b"half").unwrap();
        let listed: Vec<String> = store
            .list_dir("a")
            .await
            .unwrap()
            .files
            .into_iter()
            .map(|f| f.path)
            .collect();
        assert_eq!(listed, ["a/k", "a/p"]);
    }

    /// Writers racing to create one key: one wins, and a reader polling the key never sees it
    /// empty or half written (a commit that lost the race reads the winner's whole snapshot).
    #[test]
    fn a_key_created_by_racing_writers_is_never_seen_half_written() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let size = 4 << 20;
        for round in 0..5 {
            let key = format!("snapshot/snapshot-{round}");
            let reader = {
                let (dir, key) = (dir.clone(), key.clone());
                std::thread::spawn(move || {
                    let full = dir.join(&key);
                    let started = std::time::Instant::now();
                    while started.elapsed() < std::time::Duration::from_secs(20) {
                        if let Ok(bytes) = std::fs::read(&full) {
                            return bytes.len();
                        }
                    }
                    0
                })
            };
            let writers: Vec<_> = (0..4u8)
                .map(|w| {
                    let (dir, key) = (dir.clone(), key.clone());
                    std::thread::spawn(move || {
                        let runtime = tokio::runtime::Builder::new_current_thread()
                            .enable_all()
                            .build()
                            .unwrap();
                        runtime.block_on(async {
                            let data = Bytes::from(vec![w; size]);
                            LocalStore::new(&dir)
                                .put_if_absent(&key, data)
                                .await
                                .unwrap()
                        })
                    })
                })
                .collect();
            let created = writers
                .into_iter()
                .map(|w| w.join().unwrap())
                .filter(|o| *o == PutOutcome::Created)
                .count();
            assert_eq!(created, 1, "round {round}");
            assert_eq!(
                reader.join().unwrap(),
                size,
                "round {round}: read half written"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
