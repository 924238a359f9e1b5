//! A Paimon table handle: schemas, snapshots, tags and time travel.
//!
//! Paths are object-store keys relative to the store root (the warehouse), e.g.
//! `corpus.db/pk_dedup/snapshot/snapshot-3`. Schemas and manifests are immutable once written,
//! so the handle caches them (decoded manifests within [`MANIFEST_CACHE_BYTES`] of their decoded
//! size per kind, least recently used forgotten first); snapshot hints (`LATEST`, `EARLIEST`) are re-read every time.
//! A store that cannot list (a static web host without an index) still opens a table by name:
//! schemas are found by probing `schema-0`, `schema-1`, … and snapshots from the hints, probing
//! `snapshot-(N+1)` as Java does; tags can then only be read by name.
//!
//! # Branches
//! A branch other than `main` keeps its own `schema/`, `snapshot/` and `tag/` folders in
//! `<table>/branch/branch-<name>/` (Java's `BranchManager.branchPath`), while manifests, index
//! files and data files stay in the table's own `manifest/`, `index/` and bucket folders
//! (`FileStorePathFactory` is rooted at the table whatever the branch). A handle opened on a
//! branch ([`Table::open_branch`]) reads that branch's metadata and the table's files; it is
//! read-only ([`Table::ensure_main`]): lakescope commits only to `main`.
//!
//! Files: `handle` (the [`Table`]: opening a table or branch, its schemas, the cache of decoded
//! manifests), `manifest_cache` (that cache's bound), `snapshots` ([`Snapshots`], and the table's snapshots and tags), `layout` (where
//! files are: branch folders, partition and bucket directories, data and index files),
//! `external` (files written outside the table folder, `_EXTERNAL_PATH`),
//! `probe` (finding numbered metadata files by listing or probing; reading schema files) and
//! `tag_source` (a catalog that keeps the tags, as a Paimon REST catalog does).

mod external;
#[cfg(test)]
mod fixtures;
mod handle;
mod layout;
mod manifest_cache;
mod probe;
mod snapshots;
mod tag_source;

pub use handle::{ManifestSource, Table};
pub use layout::{branch_path, escape_path_name, BRANCH_PREFIX, MAIN_BRANCH, POSTPONE_BUCKET};
pub use manifest_cache::MANIFEST_CACHE_BYTES;
pub use snapshots::Snapshots;
pub use tag_source::TagSource;
