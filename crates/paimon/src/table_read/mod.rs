//! Reading a whole snapshot: plan → read data files → apply deletion vectors → merge (PK) → rows,
//! streamed batch by batch within an optional memory budget. By role: `request` (what to
//! read), `snapshot` (planning a snapshot and streaming its splits, filtered and projected),
//! `projection` (the requested columns), `split` (how one split is read: one file after
//! another, stitched row-id ranges, or the merge of a primary-key bucket), `files` (one data
//! file located, decoded, its deletion vector), `evolution` (data-evolution ranges stitched
//! from column files and blob files), `stream` (a split's batches, one at a time) and `output`
//! (the system columns of a split's batches).

mod evolution;
mod files;
mod output;
mod projection;
mod request;
mod share;
mod snapshot;
mod split;
mod stream;

pub use projection::ROW_KIND_COLUMN;
pub use request::{ReadOutput, ReadRequest};
pub use snapshot::{read_snapshot, SnapshotReader};
pub(crate) use split::SplitReader;
