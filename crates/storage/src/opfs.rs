//! Object store over the browser's Origin Private File System (`opfs://<name>[/<sub/folders>]/`), in windows and workers.
//!
//! Keys map to files below the folder `<name>` (or a folder inside it, e.g. a catalog's
//! `opfs://lake/paimon`) of `navigator.storage.getDirectory()`. New files
//! are written to a hidden temporary file and moved into place when complete, so a reader never
//! sees a half-written object; replacing an existing file goes through `createWritable()`, whose
//! swap file the browser commits on `close()`. OPFS has no create-new flag: `put_if_absent`
//! serialises its check-and-create with a Web Lock per key (`navigator.locks`), which holds
//! across every window and worker of the origin. Writes hold a shared lock on the store and
//! `delete` (which removes the folders it empties, like `LocalStore`) an exclusive one, so a
//! folder is never removed under a write that is about to fill it.

use crate::path::dir_prefix;
use crate::{join, Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use futures::future::{select, Either};
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use std::cell::Cell;
use std::future::Future;
use std::ops::Range;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    DomException, File, FileSystemDirectoryHandle, FileSystemFileHandle,
    FileSystemGetDirectoryOptions, FileSystemGetFileOptions, FileSystemHandle,
    FileSystemHandleKind, FileSystemWritableFileStream, StorageManager,
};

/// Prefix of the temporary files new objects are written to before they are moved into place.
const TEMP_PREFIX: &str = ".lakescope-tmp-";

#[wasm_bindgen]
extern "C" {
    /// `navigator.locks` (bound here: web-sys has it only behind `web_sys_unstable_apis`).
    type LockManager;
    #[wasm_bindgen(method, js_name = request)]
    fn request_with_options(
        this: &LockManager,
        name: &str,
        options: &JsValue,
        callback: &JsValue,
    ) -> Promise;
}

/// A store rooted at one folder of the origin's private file system.
#[derive(Debug, Clone)]
pub struct OpfsStore {
    /// The root folder's path below the OPFS root (`lake` or `lake/paimon`).
    name: String,
}

impl OpfsStore {
    /// The store of folder `name` (`lake`, or a folder inside one: `lake/paimon`; created on the
    /// first write).
    pub fn new(name: &str) -> Result<Self> {
        let name = name.trim().trim_matches('/');
        let segments: Vec<&str> = name.split('/').collect();
        if segments
            .iter()
            .any(|s| s.is_empty() || *s == "." || *s == "..")
        {
            return Err(Error::Unsupported {
                store: format!("opfs://{name}"),
                operation: "opening (expected opfs://NAME or opfs://NAME/FOLDER/..., folder names without '.' or '..' segments)"
                    .to_string(),
            });
        }
        Ok(Self {
            name: segments.join("/"),
        })
    }

    /// The store of `opfs://NAME[/FOLDER...][/]`.
    pub fn from_uri(uri: &str) -> Result<Self> {
        let name = uri
            .strip_prefix("opfs://")
            .ok_or_else(|| Error::Unsupported {
                store: uri.to_string(),
                operation: "opening as OPFS (expected opfs://NAME)".to_string(),
            })?;
        Self::new(name)
    }

    /// The root folder's path below the OPFS root.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the store's folder exists in this browser.
    pub async fn exists(&self) -> Result<bool> {
        Ok(self.root(false).await?.is_some())
    }

    /// Creates the store's (empty) folder if it is missing.
    pub async fn create(&self) -> Result<()> {
        self.root(true).await.map(|_| ())
    }

    /// A writer of the file `path` of this store, piece by piece (a file of any size, without
    /// holding it in memory); the browser replaces the file's content when the writer finishes.
    pub async fn writer(&self, path: &str) -> Result<OpfsWriter> {
        let handle = self.file_handle_of(path, true).await?;
        let stream = writable(&handle, path).await?;
        Ok(OpfsWriter {
            handle,
            stream,
            path: path.to_string(),
        })
    }

    /// Locks are per top-level folder, so stores nested in one another exclude each other.
    fn lock_name(&self, what: &str) -> String {
        let top = self.name.split('/').next().unwrap_or(&self.name);
        format!("lakescope-opfs:{top}:{what}")
    }

    /// The store's folder; `None` if it does not exist and `create` is false.
    async fn root(&self, create: bool) -> Result<Option<FileSystemDirectoryHandle>> {
        let storage = storage_manager().map_err(|e| js_error("open", &self.name, e))?;
        let mut current: FileSystemDirectoryHandle = await_as(storage.get_directory())
            .await
            .map_err(|e| js_error("open", &self.name, e))?;
        for segment in self.name.split('/') {
            match sub_directory(&current, segment, create, "").await? {
                Some(next) => current = next,
                None => return Ok(None),
            }
        }
        Ok(Some(current))
    }

    /// The folders from the store root down to `segments` (inclusive); `None` if one is
    /// missing and `create` is false.
    async fn dirs(
        &self,
        segments: &[&str],
        create: bool,
        path: &str,
    ) -> Result<Option<Vec<FileSystemDirectoryHandle>>> {
        let Some(mut current) = self.root(create).await? else {
            return Ok(None);
        };
        let mut chain = Vec::with_capacity(segments.len() + 1);
        for segment in segments {
            let Some(next) = sub_directory(&current, segment, create, path).await? else {
                return Ok(None);
            };
            chain.push(std::mem::replace(&mut current, next));
        }
        chain.push(current);
        Ok(Some(chain))
    }

    /// The parent folder of object `path` and the file name; `None` if a folder is missing.
    async fn parent_of<'a>(
        &self,
        path: &'a str,
        create: bool,
    ) -> Result<Option<(FileSystemDirectoryHandle, &'a str)>> {
        let segments = key_segments(path)?;
        let Some((file, folders)) = segments.split_last() else {
            return Err(Error::NotFound {
                path: path.to_string(),
            });
        };
        let chain = self.dirs(folders, create, path).await?;
        Ok(chain.and_then(|mut c| c.pop()).map(|dir| (dir, *file)))
    }

    /// The handle of the file of object `path` (created, with its folders, when `create`).
    async fn file_handle_of(&self, path: &str, create: bool) -> Result<FileSystemFileHandle> {
        let missing = || Error::NotFound {
            path: path.to_string(),
        };
        let (dir, name) = self.parent_of(path, create).await?.ok_or_else(missing)?;
        file_handle(&dir, name, create, path)
            .await?
            .ok_or_else(missing)
    }

    /// The file of object `path`.
    async fn file(&self, path: &str) -> Result<File> {
        let handle = self.file_handle_of(path, false).await?;
        await_as::<File>(handle.get_file())
            .await
            .map_err(|e| js_error("read", path, e))
    }

    /// Writes `data` to the new file `name` of `dir`: to a temporary file first, then moved into
    /// place (a reader never sees a partial object).
    async fn create_file(
        &self,
        dir: &FileSystemDirectoryHandle,
        name: &str,
        data: &Bytes,
        path: &str,
    ) -> Result<()> {
        let temp = format!("{TEMP_PREFIX}{}-{name}", unique_suffix());
        let handle = file_handle(dir, &temp, true, path)
            .await?
            .ok_or_else(|| Error::NotFound {
                path: path.to_string(),
            })?;
        let written = async {
            write_all(&handle, data, path).await?;
            let mover = Reflect::get(&handle, &JsValue::from_str("move"))
                .ok()
                .and_then(|f| f.dyn_into::<Function>().ok())
                .ok_or_else(|| Error::Unsupported {
                    store: self.describe(),
                    operation: "moving files (this browser's OPFS has no FileSystemHandle.move)"
                        .to_string(),
                })?;
            let moved = mover
                .call2(&handle, dir, &JsValue::from_str(name))
                .map_err(|e| js_error("write", path, e))?;
            JsFuture::from(Promise::resolve(&moved))
                .await
                .map(|_| ())
                .map_err(|e| js_error("write", path, e))
        }
        .await;
        if written.is_err() {
            let _ = JsFuture::from(dir.remove_entry(&temp)).await;
        }
        written
    }
}

/// A unique-enough suffix for temporary names (concurrent writers in several tabs).
fn unique_suffix() -> String {
    thread_local!(static COUNTER: Cell<u64> = const { Cell::new(0) });
    let n = COUNTER.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    format!(
        "{:x}{:08x}{n:x}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * f64::from(u32::MAX)) as u32
    )
}

/// The path segments of a key; `.`/`..` are refused (OPFS names cannot be either).
fn key_segments(path: &str) -> Result<Vec<&str>> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if segments.iter().any(|s| *s == "." || *s == "..") {
        return Err(Error::Unsupported {
            store: "opfs".to_string(),
            operation: format!("the key {path} ('.' and '..' are not file names)"),
        });
    }
    Ok(segments)
}

/// `navigator.storage` of the current global (a window or a worker).
fn storage_manager() -> std::result::Result<StorageManager, JsValue> {
    let navigator = Reflect::get(&js_sys::global(), &JsValue::from_str("navigator"))?;
    let storage = Reflect::get(&navigator, &JsValue::from_str("storage"))?;
    if storage.is_undefined() {
        return Err(JsValue::from_str(
            "navigator.storage is missing: OPFS needs a secure context (https or localhost)",
        ));
    }
    Ok(storage.unchecked_into())
}

/// `navigator.locks` of the current global (a window or a worker).
fn lock_manager() -> std::result::Result<LockManager, JsValue> {
    let navigator = Reflect::get(&js_sys::global(), &JsValue::from_str("navigator"))?;
    let locks = Reflect::get(&navigator, &JsValue::from_str("locks"))?;
    if locks.is_undefined() {
        return Err(JsValue::from_str(
            "navigator.locks is missing: Web Locks need a secure context (https or localhost)",
        ));
    }
    Ok(locks.unchecked_into())
}

/// Awaits a promise and casts its value.
async fn await_as<T: JsCast>(promise: Promise) -> std::result::Result<T, JsValue> {
    let value = JsFuture::from(promise).await?;
    value
        .dyn_into::<T>()
        .map_err(|v| JsValue::from_str(&format!("unexpected value {v:?}")))
}

/// The name of a `DOMException` (or `TypeError`, ...).
fn error_name(e: &JsValue) -> String {
    if let Some(d) = e.dyn_ref::<DomException>() {
        return d.name();
    }
    Reflect::get(e, &JsValue::from_str("name"))
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default()
}

/// Whether a JS error means "no such file or folder" (or a folder where a file was expected).
fn is_missing(e: &JsValue) -> bool {
    matches!(
        error_name(e).as_str(),
        "NotFoundError" | "TypeMismatchError"
    )
}

/// Maps a JS error to a storage error naming `path`.
fn js_error(operation: &'static str, path: &str, e: JsValue) -> Error {
    let name = error_name(&e);
    let message = e
        .dyn_ref::<DomException>()
        .map(|d| d.message())
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|x| String::from(x.message()))
        })
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    match name.as_str() {
        "NotFoundError" | "TypeMismatchError" => Error::NotFound {
            path: path.to_string(),
        },
        "NotAllowedError" | "SecurityError" => Error::PermissionDenied {
            path: path.to_string(),
            hint: format!(
                "the browser refused access to its private file system ({name}: {message}); \
                 private windows and some settings block it"
            ),
        },
        "QuotaExceededError" => Error::Io {
            operation,
            path: path.to_string(),
            message: format!("the browser's storage quota for this site is used up: {message}"),
        },
        _ => Error::Io {
            operation,
            path: path.to_string(),
            message: if name.is_empty() {
                message
            } else {
                format!("{name}: {message}")
            },
        },
    }
}

async fn sub_directory(
    dir: &FileSystemDirectoryHandle,
    name: &str,
    create: bool,
    path: &str,
) -> Result<Option<FileSystemDirectoryHandle>> {
    let options = FileSystemGetDirectoryOptions::new();
    options.set_create(create);
    match await_as(dir.get_directory_handle_with_options(name, &options)).await {
        Ok(h) => Ok(Some(h)),
        Err(e) if is_missing(&e) && !create => Ok(None),
        Err(e) => Err(js_error("open folder of", path, e)),
    }
}

async fn file_handle(
    dir: &FileSystemDirectoryHandle,
    name: &str,
    create: bool,
    path: &str,
) -> Result<Option<FileSystemFileHandle>> {
    let options = FileSystemGetFileOptions::new();
    options.set_create(create);
    match await_as(dir.get_file_handle_with_options(name, &options)).await {
        Ok(h) => Ok(Some(h)),
        Err(e) if is_missing(&e) && !create => Ok(None),
        Err(e) => Err(js_error("open", path, e)),
    }
}

/// A file of an [`OpfsStore`] being written piece by piece ([`OpfsStore::writer`]).
pub struct OpfsWriter {
    handle: FileSystemFileHandle,
    stream: FileSystemWritableFileStream,
    path: String,
}

impl OpfsWriter {
    /// Appends `data`.
    pub async fn write(&mut self, data: &[u8]) -> Result<()> {
        write_chunk(&self.stream, data, &self.path).await
    }

    /// Commits what was written and returns the file (disk-backed: a download of it is not
    /// bounded by the browser's memory for Blobs).
    pub async fn finish(self) -> Result<File> {
        commit(&self.stream, &self.path).await?;
        await_as::<File>(self.handle.get_file())
            .await
            .map_err(|e| js_error("read", &self.path, e))
    }
}

/// Replaces the content of `handle` with `data` (committed by the browser on `close()`).
async fn write_all(handle: &FileSystemFileHandle, data: &Bytes, path: &str) -> Result<()> {
    let stream = writable(handle, path).await?;
    write_chunk(&stream, data, path).await?;
    commit(&stream, path).await
}

/// A writable stream of `handle`, into a swap file the browser commits on `close()`.
async fn writable(
    handle: &FileSystemFileHandle,
    path: &str,
) -> Result<FileSystemWritableFileStream> {
    await_as(handle.create_writable())
        .await
        .map_err(|e| js_error("write", path, e))
}

/// Appends `data` to `stream`; a failed write aborts the stream (the file keeps its content).
async fn write_chunk(stream: &FileSystemWritableFileStream, data: &[u8], path: &str) -> Result<()> {
    // A JS-owned copy: the write is asynchronous and wasm memory may move meanwhile.
    let chunk = Uint8Array::from(data);
    let written = match stream.write_with_js_u8_array(&chunk) {
        Ok(p) => JsFuture::from(p).await.map(|_| ()),
        Err(e) => Err(e),
    };
    if let Err(e) = written {
        let _ = JsFuture::from(stream.abort()).await;
        return Err(js_error("write", path, e));
    }
    Ok(())
}

/// Commits what was written to `stream`.
async fn commit(stream: &FileSystemWritableFileStream, path: &str) -> Result<()> {
    JsFuture::from(stream.close())
        .await
        .map(|_| ())
        .map_err(|e| js_error("write", path, e))
}

async fn read_blob(blob: &web_sys::Blob, path: &str) -> Result<Bytes> {
    let buffer = JsFuture::from(blob.array_buffer())
        .await
        .map_err(|e| js_error("read", path, e))?;
    Ok(Bytes::from(Uint8Array::new(&buffer).to_vec()))
}

/// Resolves the lock-holding promise when dropped (also when the holder is cancelled).
struct Release(Function);

impl Drop for Release {
    fn drop(&mut self) {
        let _ = self.0.call0(&JsValue::UNDEFINED);
    }
}

/// Runs `body` while holding the Web Lock `name` (`exclusive`, or shared).
async fn with_lock<T>(
    name: &str,
    exclusive: bool,
    path: &str,
    body: impl Future<Output = Result<T>>,
) -> Result<T> {
    let locks = lock_manager().map_err(|e| js_error("lock", path, e))?;
    let mut release = None;
    let held = Promise::new(&mut |resolve, _| release = Some(resolve));
    let mut on_acquired = None;
    let acquired = Promise::new(&mut |resolve, _| on_acquired = Some(resolve));
    let (Some(release), Some(on_acquired)) = (release, on_acquired) else {
        return Err(Error::Io {
            operation: "lock",
            path: path.to_string(),
            message: "a promise did not run its executor".to_string(),
        });
    };
    // Dropping the guard (normally, or when this future is cancelled) releases the lock, even
    // if it is only granted later.
    let guard = Release(release);
    let callback = Closure::once_into_js(move |_lock: JsValue| -> JsValue {
        let _ = on_acquired.call0(&JsValue::UNDEFINED);
        held.into()
    });
    let options = Object::new();
    let mode = if exclusive { "exclusive" } else { "shared" };
    Reflect::set(&options, &"mode".into(), &mode.into()).map_err(|e| js_error("lock", path, e))?;
    let request = locks.request_with_options(name, &options, &callback);
    let request = JsFuture::from(request);
    match select(JsFuture::from(acquired), request).await {
        Either::Left((Ok(_), request)) => {
            let out = body.await;
            drop(guard);
            let _ = request.await;
            out
        }
        Either::Left((Err(e), _)) | Either::Right((Err(e), _)) => Err(js_error("lock", path, e)),
        Either::Right((Ok(_), _)) => Err(Error::Io {
            operation: "lock",
            path: path.to_string(),
            message: "the lock request ended before it was granted".to_string(),
        }),
    }
}

#[async_trait(?Send)]
impl ObjectStore for OpfsStore {
    fn describe(&self) -> String {
        format!("opfs://{}/", self.name)
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        let file = self.file(path).await?;
        read_blob(&file, path).await
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        let file = self.file(path).await?;
        let size = file.size() as u64;
        Error::check_range(path, &range, size)?;
        if range.start == range.end {
            return Ok(Bytes::new());
        }
        let part = file
            .slice_with_f64_and_f64(range.start as f64, range.end as f64)
            .map_err(|e| js_error("read", path, e))?;
        let bytes = read_blob(&part, path).await?;
        if (bytes.len() as u64) < range.end - range.start {
            return Err(Error::ShortRead {
                path: path.to_string(),
                expected: range.end - range.start,
                received: bytes.len() as u64,
            });
        }
        Ok(bytes)
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        let file = self.file(path).await?;
        Ok(ObjectMeta {
            path: path.to_string(),
            size: file.size() as u64,
        })
    }

    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        let prefix = dir_prefix(prefix);
        let segments = key_segments(&prefix)?;
        let Some(mut chain) = self.dirs(&segments, false, &prefix).await? else {
            return Ok(Listing::default());
        };
        let Some(dir) = chain.pop() else {
            return Ok(Listing::default());
        };
        let mut listing = Listing::default();
        let entries = dir.entries();
        loop {
            let step = entries.next().map_err(|e| js_error("list", &prefix, e))?;
            let step = JsFuture::from(step)
                .await
                .map_err(|e| js_error("list", &prefix, e))?;
            let done = Reflect::get(&step, &"done".into())
                .map(|d| d.is_truthy())
                .unwrap_or(true);
            if done {
                break;
            }
            let pair: Array = Reflect::get(&step, &"value".into())
                .map_err(|e| js_error("list", &prefix, e))?
                .unchecked_into();
            let name = pair.get(0).as_string().unwrap_or_default();
            if name.starts_with(TEMP_PREFIX) {
                continue; // an object still being written
            }
            let handle: FileSystemHandle = pair.get(1).unchecked_into();
            if handle.kind() == FileSystemHandleKind::Directory {
                listing.dirs.push(name);
                continue;
            }
            let path = join(&prefix, &name);
            let file_handle: FileSystemFileHandle = handle.unchecked_into();
            match await_as::<File>(file_handle.get_file()).await {
                Ok(file) => listing.files.push(ObjectMeta {
                    path,
                    size: file.size() as u64,
                }),
                // deleted since the listing began
                Err(e) if is_missing(&e) => {}
                Err(e) => return Err(js_error("list", &path, e)),
            }
        }
        listing.dirs.sort();
        listing.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(listing)
    }

    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        with_lock(&self.lock_name("tree"), false, path, async {
            let (dir, name) = self
                .parent_of(path, true)
                .await?
                .ok_or_else(|| Error::NotFound {
                    path: path.to_string(),
                })?;
            match file_handle(&dir, name, false, path).await? {
                Some(existing) => write_all(&existing, &data, path).await,
                None => self.create_file(&dir, name, &data, path).await,
            }
        })
        .await
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        let key_lock = self.lock_name(&format!("key:{}", key_segments(path)?.join("/")));
        with_lock(&self.lock_name("tree"), false, path, async {
            with_lock(&key_lock, true, path, async {
                let (dir, name) =
                    self.parent_of(path, true)
                        .await?
                        .ok_or_else(|| Error::NotFound {
                            path: path.to_string(),
                        })?;
                if file_handle(&dir, name, false, path).await?.is_some() {
                    return Ok(PutOutcome::AlreadyExists);
                }
                self.create_file(&dir, name, &data, path).await?;
                Ok(PutOutcome::Created)
            })
            .await
        })
        .await
    }

    async fn delete(&self, path: &str) -> Result<()> {
        let segments = key_segments(path)?;
        let Some((file, folders)) = segments.split_last() else {
            return Ok(());
        };
        with_lock(&self.lock_name("tree"), true, path, async {
            let Some(mut chain) = self.dirs(folders, false, path).await? else {
                return Ok(());
            };
            let Some(dir) = chain.last() else {
                return Ok(());
            };
            match JsFuture::from(dir.remove_entry(file)).await {
                Ok(_) => {}
                Err(e) if is_missing(&e) => return Ok(()),
                Err(e) => return Err(js_error("delete", path, e)),
            }
            // Object-store semantics: a folder exists while it holds objects. Remove the folders
            // this delete emptied, up to (not including) the store's root.
            for name in folders.iter().rev() {
                let Some(_emptied) = chain.pop() else { break };
                let Some(parent) = chain.last() else { break };
                if JsFuture::from(parent.remove_entry(name)).await.is_err() {
                    break; // not empty
                }
            }
            Ok(())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn names_and_keys_are_checked() {
        assert_eq!(OpfsStore::from_uri("opfs://lake/").unwrap().name(), "lake");
        assert!(OpfsStore::from_uri("opfs://").is_err());
        assert_eq!(OpfsStore::from_uri("opfs://a/b/").unwrap().name(), "a/b");
        assert!(OpfsStore::from_uri("opfs://a//b").is_err());
        assert!(OpfsStore::from_uri("opfs://a/../b").is_err());
        assert!(OpfsStore::from_uri("s3://a").is_err());
        assert_eq!(key_segments("/a//b/").unwrap(), vec!["a", "b"]);
        assert!(key_segments("a/../b").is_err());
    }
}
