//! Paimon table option values: `bucket`, `merge-engine`, `changelog-producer`, stats modes, aggregate functions, sizes, durations.

use crate::ast::OptionEntry;
use crate::error::{Result, SqlError};

const MERGE_ENGINES: &[&str] = &["deduplicate", "partial-update", "aggregation", "first-row"];
const CHANGELOG_PRODUCERS: &[&str] = &["none", "input", "full-compaction", "lookup"];
const FILE_FORMATS: &[&str] = &[
    "orc", "parquet", "avro", "csv", "json", "text", "lance", "blob",
];

/// Aggregate functions of Paimon's aggregation merge engine (and `fields.*.aggregate-function`).
pub const AGGREGATE_FUNCTIONS: &[&str] = &[
    "sum",
    "product",
    "count",
    "max",
    "min",
    "last_value",
    "last_non_null_value",
    "first_value",
    "first_non_null_value",
    "listagg",
    "bool_or",
    "bool_and",
    "collect",
    "merge_map",
    "merge_map_with_keytime",
    "nested_update",
    "nested_partial_update",
    "rbm32",
    "rbm64",
    "hll_sketch",
    "theta_sketch",
    "primary-key",
    "roaring_bitmap32",
    "roaring_bitmap64",
];

const BOOL_OPTIONS: &[&str] = &[
    "ignore-delete",
    "first-row.ignore-delete",
    "deduplicate.ignore-delete",
    "partial-update.ignore-delete",
    "changelog-producer.lookup-wait",
    "deletion-vectors.enabled",
    "write-only",
    "auto-create",
    "partial-update.remove-record-on-delete",
    "aggregation.remove-record-on-delete",
    "metastore.partitioned-table",
    "partition.legacy-name",
    "dynamic-partition-overwrite",
    "write-buffer-spillable",
    "alter-column-null-to-not-null.disabled",
    "disable-explicit-type-casting",
    "sequence.field.sort-order.descending",
    "scan.plan-sort-partition",
    "row-tracking.enabled",
    "data-evolution.enabled",
    "lookup-wait",
    "partition.end-input-to-done",
];

const INT_OPTIONS: &[&str] = &[
    "num-sorted-run.stop-trigger",
    "num-sorted-run.compaction-trigger",
    "sort-spill-threshold",
    "num-levels",
    "snapshot.num-retained.min",
    "snapshot.num-retained.max",
    "changelog.num-retained.min",
    "changelog.num-retained.max",
    "full-compaction.delta-commits",
    "compaction.max-size-amplification-percent",
    "compaction.size-ratio",
    "local-merge-buffer-size",
    "dynamic-bucket.initial-buckets",
    "dynamic-bucket.target-row-num",
    "scan.snapshot-id",
    "scan.timestamp-millis",
    "read.batch-size",
    "file.compression.zstd-level",
    "tag.num-retained-max",
];

const SIZE_OPTIONS: &[&str] = &[
    "write-buffer-size",
    "target-file-size",
    "page-size",
    "write-buffer-spill.max-disk-size",
    "source.split.target-size",
    "source.split.open-file-cost",
    "lookup.cache-max-memory-size",
    "sort-spill-buffer-size",
    "write-manifest-cache",
    "manifest.target-file-size",
    "file-index.in-manifest-threshold",
    "manifest.full-compaction-threshold-size",
];

const DURATION_OPTIONS: &[&str] = &[
    "snapshot.time-retained",
    "changelog.time-retained",
    "partition.expiration-time",
    "partition.expiration-check-interval",
    "record-level.expire-time",
    "continuous.discovery-interval",
    "tag.default-time-retained",
    "partition.idle-time-to-report-statistic",
    "tag.creation-delay",
];

fn enum_options() -> Vec<(&'static str, &'static [&'static str])> {
    vec![
        ("merge-engine", MERGE_ENGINES),
        ("changelog-producer", CHANGELOG_PRODUCERS),
        ("file.format", FILE_FORMATS),
        ("snapshot.expire.execution-mode", &["sync", "async"]),
        (
            "partition.expiration-strategy",
            &["values-time", "update-time"],
        ),
        ("sequence.field.sort-order", &["ascending", "descending"]),
        (
            "scan.mode",
            &[
                "default",
                "latest-full",
                "full",
                "latest",
                "compacted-full",
                "from-timestamp",
                "from-file-creation-time",
                "from-snapshot",
                "from-snapshot-full",
                "incremental",
            ],
        ),
        ("bucket-function.type", &["default", "mod", "hive"]),
        (
            "incremental-between-scan-mode",
            &["auto", "delta", "changelog", "diff"],
        ),
    ]
}

/// Flink's message for a value that does not parse.
fn bad_value(o: &OptionEntry, expected: &str) -> SqlError {
    SqlError::validation(
        o.value_pos,
        format!(
            "Could not parse value '{}' for key '{}': {expected}",
            o.value, o.key
        ),
    )
}

/// Parses an integer option value as Flink does (surrounding spaces allowed).
pub(crate) fn parse_int(v: &str) -> Option<i64> {
    v.trim().parse().ok()
}

/// Whether `v` is a memory size such as `256 MB`, `128mb`, `1024`.
fn is_memory_size(v: &str) -> bool {
    let v = v.trim();
    let digits = v.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return false;
    }
    let unit = v[digits..].trim().to_ascii_lowercase();
    [
        "",
        "b",
        "bytes",
        "k",
        "kb",
        "kibibytes",
        "m",
        "mb",
        "mebibytes",
        "g",
        "gb",
        "gibibytes",
        "t",
        "tb",
        "tebibytes",
    ]
    .contains(&unit.as_str())
}

/// Whether `v` is a duration such as `30 d`, `1 h`, `500 ms`, `10s`, `7 days`.
fn is_duration(v: &str) -> bool {
    let v = v.trim();
    let digits = v.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return false;
    }
    let unit = v[digits..].trim().to_ascii_lowercase();
    [
        "",
        "ns",
        "nano",
        "nanos",
        "nanosecond",
        "nanoseconds",
        "us",
        "µs",
        "micro",
        "micros",
        "microsecond",
        "microseconds",
        "ms",
        "milli",
        "millis",
        "millisecond",
        "milliseconds",
        "s",
        "sec",
        "secs",
        "second",
        "seconds",
        "m",
        "min",
        "mins",
        "minute",
        "minutes",
        "h",
        "hour",
        "hours",
        "d",
        "day",
        "days",
    ]
    .contains(&unit.as_str())
}

/// `none`, `counts`, `full` or `truncate(N)`.
fn is_stats_mode(v: &str) -> bool {
    let v = v.trim().to_ascii_lowercase();
    if ["none", "counts", "full"].contains(&v.as_str()) {
        return true;
    }
    v.strip_prefix("truncate(")
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|n| n.trim().parse::<u32>().ok())
        .is_some_and(|n| n > 0)
}

/// Splits `fields.<names>.<suffix>` into the field names and the suffix.
pub(crate) fn field_option(key: &str) -> Option<(Vec<&str>, &str)> {
    let rest = key.strip_prefix("fields.")?;
    let (names, suffix) = rest.rsplit_once('.')?;
    Some((names.split(',').map(str::trim).collect(), suffix))
}

/// Checks every option's value; errors point at the value.
pub(crate) fn check_values(options: &[OptionEntry]) -> Result<()> {
    let enums = enum_options();
    for o in options {
        let key = o.key.as_str();
        let v = o.value.trim();
        if key == "bucket" {
            match parse_int(v) {
                None => return Err(bad_value(o, "'bucket' must be an integer (-1 for dynamic bucket, or the number of buckets > 0)")),
                Some(b) if b == 0 || b < -2 || b > i32::MAX as i64 => {
                    return Err(SqlError::validation(
                        o.value_pos,
                        format!("The number of buckets must be -1 (dynamic bucket), -2 (postpone bucket) or greater than 0, got {b}"),
                    ))
                }
                _ => {}
            }
        } else if let Some((_, allowed)) = enums.iter().find(|(k, _)| *k == key) {
            if !allowed.contains(&v.to_ascii_lowercase().as_str()) {
                return Err(bad_value(
                    o,
                    &format!("possible values are [{}]", allowed.join(", ")),
                ));
            }
        } else if key == "metadata.stats-mode"
            || (key.starts_with("fields.") && key.ends_with(".stats-mode"))
        {
            if !is_stats_mode(v) {
                return Err(bad_value(
                    o,
                    "the stats mode must be none, counts, full or truncate(N)",
                ));
            }
        } else if key.starts_with("fields.") && key.ends_with(".aggregate-function")
            || key == "fields.default-aggregate-function"
        {
            if !AGGREGATE_FUNCTIONS.contains(&v) {
                return Err(SqlError::validation(
                    o.value_pos,
                    format!(
                        "Use unsupported aggregation '{v}' for '{key}'; supported: {}",
                        AGGREGATE_FUNCTIONS.join(", ")
                    ),
                ));
            }
        } else if BOOL_OPTIONS.contains(&key)
            || (key.starts_with("fields.")
                && (key.ends_with(".ignore-retract") || key.ends_with(".distinct")))
        {
            if !v.eq_ignore_ascii_case("true") && !v.eq_ignore_ascii_case("false") {
                return Err(bad_value(o, "expected true or false"));
            }
        } else if INT_OPTIONS.contains(&key) {
            if parse_int(v).is_none() {
                return Err(bad_value(o, "expected an integer"));
            }
        } else if SIZE_OPTIONS.contains(&key) {
            if !is_memory_size(v) {
                return Err(bad_value(o, "expected a memory size such as '256 MB'"));
            }
        } else if DURATION_OPTIONS.contains(&key) && !is_duration(v) {
            return Err(bad_value(
                o,
                "expected a duration such as '7 d', '1 h' or '30 s'",
            ));
        }
    }
    Ok(())
}

/// Checks read hints: `scan.snapshot-id`, `scan.timestamp-millis`, `incremental-between`, `scan.mode`, ...
pub(crate) fn check_hints(hints: &[OptionEntry]) -> Result<()> {
    for o in hints {
        let v = o.value.trim();
        match o.key.as_str() {
            "scan.snapshot-id" => match parse_int(v) {
                Some(n) if n > 0 => {}
                _ => {
                    return Err(bad_value(
                        o,
                        "'scan.snapshot-id' must be a positive snapshot id",
                    ))
                }
            },
            "scan.timestamp-millis" if parse_int(v).is_none() => {
                return Err(bad_value(
                    o,
                    "'scan.timestamp-millis' must be epoch milliseconds",
                ));
            }
            "incremental-between" => {
                let ok = v
                    .split_once(',')
                    .is_some_and(|(a, b)| !a.trim().is_empty() && !b.trim().is_empty());
                if !ok {
                    return Err(bad_value(
                        o,
                        "'incremental-between' must be 'start,end' (snapshot ids or tag names)",
                    ));
                }
            }
            "incremental-between-timestamp" => {
                let ok = v
                    .split_once(',')
                    .is_some_and(|(a, b)| parse_int(a).is_some() && parse_int(b).is_some());
                if !ok {
                    return Err(bad_value(
                        o,
                        "'incremental-between-timestamp' must be 'start,end' in epoch milliseconds",
                    ));
                }
            }
            "scan.tag-name" | "tag" if v.is_empty() => {
                return Err(bad_value(o, "the tag name is empty"))
            }
            "branch" if v.is_empty() => return Err(bad_value(o, "the branch name is empty")),
            _ => {}
        }
    }
    check_values(hints)
}
