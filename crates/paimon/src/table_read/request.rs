//! What a read of a snapshot asks for ([`ReadRequest`]) and what a collected read gives ([`ReadOutput`]).

use crate::read;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

/// What to read from a snapshot.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    /// Only these columns, in this order (all when `None`).
    pub columns: Option<Vec<String>>,
    /// Add a leading `rowkind` column (`+I`, `-U`, `+U`, `-D`) as the `$audit_log` view does,
    /// and keep retractions.
    pub with_row_kind: bool,
    /// Read only the top level of each bucket, without merging (`$ro`, read-optimized).
    pub read_optimized: bool,
    /// Append `_ROW_ID` and `_SEQUENCE_NUMBER` (BIGINT NOT NULL) as the `$row_tracking` view
    /// does ([`read::row_tracking`]); only for append tables with `row-tracking.enabled`.
    pub with_row_tracking: bool,
    /// Only rows where this holds: prunes partitions and files when planning, then filters the
    /// final (merged) rows.
    pub filter: Option<crate::predicate::Predicate>,
    /// Read with the table's latest schema instead of the snapshot's, as Java does for a read
    /// without time travel (after an ALTER TABLE that wrote no snapshot, the latest snapshot
    /// still names the old schema).
    pub latest_schema: bool,
    /// Bytes of fetched data-file content to hold at once (`None`: no limit). A split whose
    /// files together fit is fetched whole, one GET per file, all at once. Otherwise the files
    /// of a primary-key split are read one Parquet row group at a time with ranged GETs (the
    /// footer, then the row group's needed column chunks), and a row group larger than the
    /// budget's share of one sorted run a few pages at a time (through the file's offset
    /// index), so memory stays near the budget plus the batches being merged; the files of an
    /// append split are read one after another, each whole if it fits the budget, else the same
    /// way with the whole budget. ORC and Avro files are always fetched whole.
    pub memory_budget: Option<u64>,
    /// Bytes of data pages the first batch may wait for (`None`: no such limit), so a viewer
    /// shows the first rows before whole files arrive. When the first split read is an append
    /// split that fits the budget, its first Parquet file is read alone: its footer, a first
    /// piece of at most about this many bytes of pages (through the offset index; without one,
    /// its first row group), then the rest in row groups; the split's other files are fetched
    /// (whole, together) once that file is read. Merged splits are read as without it.
    pub first_batch_bytes: Option<u64>,
    /// Rows the first batch of the first merged (primary-key) split holds at most (`None`: a
    /// whole batch), so a viewer shows the first rows before a whole batch is merged. Each of
    /// its sorted runs fetched whole first decodes only this many rows.
    pub first_batch_rows: Option<usize>,
    /// Bytes fetched from the end of a Parquet file read in pieces, in one request that should
    /// hold its footer and offset index (`None`: [`read::parquet::FOOTER_PREFETCH`]; a memory
    /// budget caps it). A file no larger comes whole with it.
    pub footer_prefetch: Option<u64>,
}

impl ReadRequest {
    /// Bytes of a Parquet file's end fetched with its footer.
    pub(super) fn footer_bytes(&self) -> u64 {
        let bytes = self
            .footer_prefetch
            .unwrap_or(read::parquet::FOOTER_PREFETCH);
        self.memory_budget.map_or(bytes, |b| b.min(bytes))
    }
}

/// Rows read, with their schema.
#[derive(Debug, Clone)]
pub struct ReadOutput {
    /// Schema of the batches (meaningful also with no rows).
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
}
