//! One-line documentation of common Paimon table options (after Paimon's `CoreOptions`), for completion.

/// Marks the column name in per-column option keys (`fields.{column}.aggregate-function`).
pub const COLUMN_PLACEHOLDER: &str = "{column}";

/// `(key, documentation)` of the options completion offers, most used first.
pub const OPTION_DOCS: &[(&str, &str)] = &[
    ("bucket", "Number of buckets: > 0 fixed, -1 dynamic (primary-key) or unaware (append), -2 postpone."),
    ("bucket-key", "Columns whose hash picks the bucket (comma separated); defaults to the primary key."),
    ("merge-engine", "How rows with one primary key merge: deduplicate (default), partial-update, aggregation or first-row."),
    ("changelog-producer", "Changelog the writers produce: none (default), input, full-compaction or lookup."),
    ("sequence.field", "Column(s) that order the records of one key instead of the write order."),
    ("rowkind.field", "A column holding each record's row kind (+I, -U, +U, -D)."),
    ("ignore-delete", "Drop delete and update-before records when writing (default false)."),
    ("partial-update.remove-record-on-delete", "partial-update: a delete record removes the whole row."),
    ("aggregation.remove-record-on-delete", "aggregation: a delete record removes the whole row."),
    ("fields.default-aggregate-function", "aggregation: the function of columns that name none (default last_non_null_value)."),
    ("fields.{column}.aggregate-function", "aggregation: this column's function (sum, max, min, count, listagg, last_value, …)."),
    ("fields.{column}.ignore-retract", "aggregation: ignore retractions of this column."),
    ("fields.{column}.sequence-group", "partial-update: the columns this sequence column guards (comma separated)."),
    ("snapshot.num-retained.min", "Fewest completed snapshots kept by expiry (default 10)."),
    ("snapshot.num-retained.max", "Most completed snapshots kept by expiry (default unlimited)."),
    ("snapshot.time-retained", "How long completed snapshots are kept (default 1 h)."),
    ("snapshot.expire.limit", "Most snapshots one expiry run removes (default 10)."),
    ("changelog.num-retained.min", "Fewest changelogs kept once their snapshots expire (default: as snapshots)."),
    ("changelog.num-retained.max", "Most changelogs kept once their snapshots expire (default: as snapshots)."),
    ("file.format", "Data file format: parquet (default), orc or avro."),
    ("file.compression", "Data file compression codec (default zstd)."),
    ("file.compression.zstd-level", "zstd level of data files (default 1)."),
    ("target-file-size", "Target size of a data file (default 128 mb for primary-key, 256 mb for append tables)."),
    ("write-buffer-size", "Memory a writer buffers before it spills a sorted run (default 256 mb)."),
    ("deletion-vectors.enabled", "Mark deleted rows in deletion vectors, so reads need no merge (default false)."),
    ("num-sorted-run.compaction-trigger", "Sorted runs that trigger a compaction (default 5)."),
    ("num-sorted-run.stop-trigger", "Sorted runs at which writes wait for compaction (default trigger + 3)."),
    ("num-levels", "LSM levels (default: compaction trigger + 1)."),
    ("full-compaction.delta-commits", "Run a full compaction after this many commits."),
    ("compaction.max-size-amplification-percent", "Size amplification that triggers a full compaction (default 200)."),
    ("write-only", "Writers skip compaction and expiry, left to a separate job (default false)."),
    ("dynamic-bucket.target-row-num", "Dynamic buckets: rows per bucket before another is opened (default 2000000)."),
    ("partition.expiration-time", "Partitions older than this are expired."),
    ("partition.timestamp-pattern", "How a partition's time is built from its values, e.g. $dt."),
    ("partition.timestamp-formatter", "The format of that time, e.g. yyyyMMdd."),
    ("metadata.stats-mode", "Column stats kept in data files: none, counts, truncate(16) (default) or full."),
    ("first-row.ignore-delete", "first-row: ignore delete records (default false)."),
    ("comment", "The table's comment (SET) or no comment (RESET)."),
];

/// The documentation of `key` (per-column keys matched through their pattern).
pub fn option_doc(key: &str) -> Option<&'static str> {
    OPTION_DOCS.iter().find_map(|(pattern, doc)| {
        let matches = match pattern.split_once(COLUMN_PLACEHOLDER) {
            Some((head, tail)) => {
                key.len() > head.len() + tail.len() && key.starts_with(head) && key.ends_with(tail)
            }
            None => key == *pattern,
        };
        matches.then_some(*doc)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_are_one_line_and_keys_unique() {
        for (k, d) in OPTION_DOCS {
            assert!(!d.contains('\n'), "{k}");
            assert_eq!(OPTION_DOCS.iter().filter(|(o, _)| o == k).count(), 1, "{k}");
        }
        assert!(option_doc("bucket").is_some());
        assert_eq!(
            option_doc("fields.price.aggregate-function"),
            option_doc("fields.{column}.aggregate-function")
        );
        assert_eq!(option_doc("fields..aggregate-function"), None);
        assert_eq!(option_doc("no-such-option"), None);
    }
}
