//! A bounded cache of decoded manifest files: at most a budget of their decoded bytes (an estimate
//! of what the entries own), the least recently used file forgotten first, a file over the whole
//! budget not kept; concurrent reads of one file share one read and decoding.

use crate::error::Result;
use crate::spec::manifest::{
    DataFileMeta, IndexManifestEntry, ManifestEntry, ManifestFileMeta, SimpleStats,
};
use async_once_cell::OnceCell;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::mem::size_of;
use std::rc::Rc;

/// Decoded bytes of manifest files each cache of a [`super::Table`] keeps (Paimon's Java catalog
/// keeps up to 128 MiB of small manifest files, `cache.manifest.small-file-memory`; a page may
/// hold several tables). A decoded entry takes 10–40 times its encoded bytes, so a budget of
/// encoded bytes would not bound memory.
pub const MANIFEST_CACHE_BYTES: u64 = 64 << 20;

/// The memory a decoded manifest entry takes: its struct and the heap it owns (an estimate).
pub(super) trait DecodedSize {
    /// Bytes, struct included.
    fn decoded_size(&self) -> usize;
}

fn stats_size(stats: &SimpleStats) -> usize {
    stats.min_values.len()
        + stats.max_values.len()
        + stats.null_counts.len() * size_of::<Option<i64>>()
}

fn strings_size(strings: &[String]) -> usize {
    strings.iter().map(|s| s.len() + size_of::<String>()).sum()
}

fn data_file_heap(file: &DataFileMeta) -> usize {
    file.file_name.len()
        + file.min_key.len()
        + file.max_key.len()
        + stats_size(&file.key_stats)
        + stats_size(&file.value_stats)
        + strings_size(&file.extra_files)
        + file.embedded_file_index.as_ref().map_or(0, Vec::len)
        + file.value_stats_cols.as_deref().map_or(0, strings_size)
        + file.external_path.as_ref().map_or(0, String::len)
        + file.write_cols.as_deref().map_or(0, strings_size)
        + file
            .write_cols_sequences
            .as_ref()
            .map_or(0, |s| s.len() * size_of::<i64>())
}

impl DecodedSize for ManifestEntry {
    fn decoded_size(&self) -> usize {
        // the data file's record sits behind its shared pointer
        size_of::<Self>()
            + self.partition.len()
            + size_of::<DataFileMeta>()
            + data_file_heap(&self.file)
    }
}

impl DecodedSize for ManifestFileMeta {
    fn decoded_size(&self) -> usize {
        size_of::<Self>() + self.file_name.len() + stats_size(&self.partition_stats)
    }
}

impl DecodedSize for IndexManifestEntry {
    fn decoded_size(&self) -> usize {
        size_of::<Self>()
            + self.partition.len()
            + self.index_type.len()
            + self.file_name.len()
            + self.external_path.as_ref().map_or(0, String::len)
            + self.deletion_vectors.as_ref().map_or(0, |d| {
                d.iter()
                    .map(|m| size_of_val(m) + m.data_file_name.len())
                    .sum()
            })
    }
}

/// The decoded bytes of a manifest file's entries.
fn decoded_size<T: DecodedSize>(entries: &[T]) -> u64 {
    entries.iter().map(DecodedSize::decoded_size).sum::<usize>() as u64
}

/// Decoded manifest files by name, within [`ManifestCache::limit`] decoded bytes.
pub(super) struct ManifestCache<T> {
    limit: u64,
    inner: RefCell<Inner<T>>,
}

struct Inner<T> {
    files: HashMap<String, Slot<T>>,
    /// Decoded bytes of the files held.
    bytes: u64,
    tick: u64,
}

struct Slot<T> {
    cell: Rc<OnceCell<Rc<Vec<T>>>>,
    /// Last use ([`Inner::tick`]).
    used: u64,
    /// Decoded bytes, once decoded (0 while being read).
    bytes: u64,
}

impl<T: DecodedSize> ManifestCache<T> {
    /// A cache of at most `limit` decoded bytes (a file larger than that is not kept).
    pub(super) fn new(limit: u64) -> Self {
        Self {
            limit,
            inner: RefCell::new(Inner {
                files: HashMap::new(),
                bytes: 0,
                tick: 0,
            }),
        }
    }

    /// File `name`, decoded by `read` unless it is cached. A failed read is tried again by the
    /// next caller.
    pub(super) async fn get_or_read<F>(&self, name: &str, read: F) -> Result<Rc<Vec<T>>>
    where
        F: Future<Output = Result<Vec<T>>>,
    {
        let cell = {
            let mut inner = self.inner.borrow_mut();
            inner.tick += 1;
            let tick = inner.tick;
            let slot = inner.files.entry(name.to_string()).or_insert_with(|| Slot {
                cell: Rc::default(),
                used: tick,
                bytes: 0,
            });
            slot.used = tick;
            slot.cell.clone()
        };
        let mut size = None;
        let decoded = cell
            .get_or_try_init(async {
                let entries = read.await?;
                size = Some(decoded_size(&entries));
                Ok::<_, crate::error::Error>(Rc::new(entries))
            })
            .await?
            .clone();
        if let Some(bytes) = size {
            self.decoded(name, bytes);
        }
        Ok(decoded)
    }

    /// File `name` if it is cached and decoded (now the most recently used), without reading it.
    pub(super) fn peek(&self, name: &str) -> Option<Rc<Vec<T>>> {
        let mut inner = self.inner.borrow_mut();
        inner.tick += 1;
        let tick = inner.tick;
        let slot = inner.files.get_mut(name)?;
        let decoded = slot.cell.get()?.clone();
        slot.used = tick;
        Some(decoded)
    }

    /// Keeps `entries`, decoded elsewhere, as file `name` (unless the file is cached already).
    pub(super) fn insert(&self, name: &str, entries: Rc<Vec<T>>) {
        let bytes = decoded_size(&entries);
        {
            let mut inner = self.inner.borrow_mut();
            if inner.files.contains_key(name) {
                return;
            }
            inner.tick += 1;
            let tick = inner.tick;
            inner.files.insert(
                name.to_string(),
                Slot {
                    cell: Rc::new(OnceCell::new_with(entries)),
                    used: tick,
                    bytes: 0,
                },
            );
        }
        self.decoded(name, bytes);
    }

    /// Records that `name` is decoded (`bytes` in memory), then forgets the least recently used
    /// other files until the cache is within its limit; a file over the whole limit is forgotten.
    fn decoded(&self, name: &str, bytes: u64) {
        let mut inner = self.inner.borrow_mut();
        if bytes > self.limit {
            inner.files.remove(name);
            return;
        }
        match inner.files.get_mut(name) {
            Some(slot) => slot.bytes = bytes,
            None => return, // forgotten meanwhile by another reader's eviction
        }
        inner.bytes += bytes;
        while inner.bytes > self.limit {
            let oldest = inner
                .files
                .iter()
                .filter(|(n, s)| n.as_str() != name && s.bytes > 0)
                .min_by_key(|(_, s)| s.used)
                .map(|(n, _)| n.clone());
            let Some(oldest) = oldest else { break };
            if let Some(slot) = inner.files.remove(&oldest) {
                inner.bytes -= slot.bytes;
            }
        }
    }

    /// Decoded bytes of the files held.
    #[cfg(test)]
    fn bytes(&self) -> u64 {
        self.inner.borrow().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A test entry: which file it came from, and the bytes it says it takes.
    #[derive(Clone, Debug, PartialEq)]
    struct Item(u8, usize);

    impl DecodedSize for Item {
        fn decoded_size(&self) -> usize {
            self.1
        }
    }

    async fn get(cache: &ManifestCache<Item>, name: &str, size: usize, reads: &Cell<u32>) -> u8 {
        let out = cache
            .get_or_read(name, async {
                reads.set(reads.get() + 1);
                Ok(vec![Item(name.as_bytes()[0], size)])
            })
            .await
            .unwrap();
        out[0].0
    }

    #[tokio::test(flavor = "current_thread")]
    async fn keeps_recently_used_files_within_the_limit() {
        let cache = ManifestCache::new(100);
        let reads = Cell::new(0);
        assert_eq!(get(&cache, "a", 40, &reads).await, b'a');
        assert_eq!(get(&cache, "b", 40, &reads).await, b'b');
        assert_eq!(get(&cache, "a", 40, &reads).await, b'a'); // cached, and now the newest
        assert_eq!(reads.get(), 2);
        assert_eq!(cache.bytes(), 80);
        // c does not fit with a and b: b, the least recently used, goes
        get(&cache, "c", 40, &reads).await;
        assert_eq!(cache.bytes(), 80);
        get(&cache, "a", 40, &reads).await;
        assert_eq!(reads.get(), 3, "a stayed");
        get(&cache, "b", 40, &reads).await;
        assert_eq!(reads.get(), 4, "b was read again");
        // a file larger than the whole budget is not kept, and evicts nothing
        get(&cache, "d", 500, &reads).await;
        assert_eq!(cache.bytes(), 80);
        get(&cache, "d", 500, &reads).await;
        assert_eq!(reads.get(), 6, "d was read twice");
        assert!(cache.peek("d").is_none());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn peek_and_insert_share_the_budget() {
        let cache = ManifestCache::new(100);
        let reads = Cell::new(0);
        assert!(cache.peek("a").is_none(), "peek never reads");
        cache.insert("a", Rc::new(vec![Item(b'a', 60)]));
        assert_eq!(cache.peek("a").unwrap()[0], Item(b'a', 60));
        assert_eq!(get(&cache, "a", 60, &reads).await, b'a');
        assert_eq!(reads.get(), 0, "an inserted file is not read again");
        // a second insert of a cached file keeps the first
        cache.insert("a", Rc::new(vec![Item(b'x', 60)]));
        assert_eq!(cache.peek("a").unwrap()[0].0, b'a');
        // b does not fit beside a: a goes; an insert over the budget is not kept
        cache.insert("b", Rc::new(vec![Item(b'b', 50)]));
        assert!(cache.peek("a").is_none());
        assert_eq!(cache.bytes(), 50);
        cache.insert("c", Rc::new(vec![Item(b'c', 101)]));
        assert!(cache.peek("c").is_none());
        assert_eq!(cache.bytes(), 50);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_failed_read_is_tried_again() {
        let cache: ManifestCache<Item> = ManifestCache::new(100);
        let failed = cache
            .get_or_read("m", async {
                Err(crate::error::Error::Invalid("broken".into()))
            })
            .await;
        assert!(failed.is_err());
        assert_eq!(cache.bytes(), 0);
        let reads = Cell::new(0);
        assert_eq!(get(&cache, "m", 5, &reads).await, b'm');
        assert_eq!(cache.bytes(), 5);
    }

    #[test]
    fn a_decoded_entry_counts_what_it_owns() {
        let mut entry = ManifestEntry {
            kind: crate::spec::manifest::FileKind::Add,
            partition: vec![0; 16],
            bucket: 0,
            total_buckets: None,
            file: Default::default(),
        };
        let bare = entry.decoded_size();
        assert!(bare >= size_of::<ManifestEntry>() + size_of::<DataFileMeta>() + 16);
        let file = std::sync::Arc::make_mut(&mut entry.file);
        file.file_name = "data-0.parquet".into();
        file.value_stats.min_values = vec![0; 100];
        assert_eq!(entry.decoded_size(), bare + 14 + 100);
    }
}
