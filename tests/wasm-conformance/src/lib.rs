//! Corpus tables embedded at build time, loaded into an in-memory warehouse for browser tests.

use bytes::Bytes;
use lakescope_storage::{MemoryStore, ObjectStore};

mod corpus {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

pub use corpus::EXPECTED;

/// An in-memory warehouse holding the embedded corpus tables.
pub async fn corpus_warehouse() -> MemoryStore {
    let store = MemoryStore::new();
    for (key, bytes) in corpus::FILES {
        // Writing to a MemoryStore cannot fail.
        let _ = store.put(key, Bytes::from_static(bytes)).await;
    }
    store
}

/// Number of embedded files.
pub fn file_count() -> usize {
    corpus::FILES.len()
}
