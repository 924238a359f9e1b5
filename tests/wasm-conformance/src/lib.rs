//! Corpus tables embedded at build time, loaded into an in-memory warehouse for browser tests.

use lakescope_storage::MemoryStore;

mod corpus {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

pub use corpus::EXPECTED;

/// An in-memory warehouse holding the embedded corpus tables.
pub fn corpus_warehouse() -> MemoryStore {
    MemoryStore::from_static(corpus::FILES)
}

/// Number of embedded files.
pub fn file_count() -> usize {
    corpus::FILES.len()
}
