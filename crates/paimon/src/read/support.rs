//! Unknown means refuse: table options, snapshots and data files a batch read does not implement.
//!
//! Paimon's `CoreOptions` has hundreds of keys; most tune writing, compaction, expiry or
//! performance and leave the rows of a batch read alone. The keys below are the ones whose
//! value changes which rows (or which columns) a batch read returns (read from Paimon's
//! `CoreOptions`, `AbstractBatchTableScan`, `MergeTreeSplitGenerator`, `DataEvolutionSplitRead`).
//! Each is either implemented (its values are checked) or refused when set to anything but its
//! default. Keys Paimon does not define (user or engine properties) are ignored, as Java does.

use crate::error::{Error, Result};
use crate::spec::manifest::DataFileMeta;
use crate::spec::options::CoreOptions;
use crate::spec::schema::TableSchema;
use crate::spec::snapshot::Snapshot;
use crate::spec::{DataType, TypeKind};

/// Bucket number of the files of a postpone-bucket (`bucket = -2`) table waiting for compaction.
pub const POSTPONE_BUCKET: i32 = -2;

/// Options refused when set at all (any value): each selects rows or files a batch read of the
/// table in Paimon would not return as a plain read of the latest snapshot.
const REFUSED_WHEN_SET: &[(&str, &str)] = &[
    ("scan.bucket", "reading one bucket only"),
    ("scan.snapshot-id", "time travel set in the table's options"),
    ("scan.tag-name", "time travel set in the table's options"),
    ("scan.version", "time travel set in the table's options"),
    ("scan.timestamp", "time travel set in the table's options"),
    (
        "scan.timestamp-millis",
        "time travel set in the table's options",
    ),
    ("scan.watermark", "time travel set in the table's options"),
    (
        "scan.file-creation-time-millis",
        "file filter by creation time",
    ),
    ("scan.creation-time-millis", "file filter by creation time"),
    (
        "incremental-between",
        "incremental read set in the table's options",
    ),
    (
        "incremental-between-timestamp",
        "incremental read set in the table's options",
    ),
    (
        "incremental-between-tag-to-snapshot",
        "incremental read set in the table's options",
    ),
    ("scan.fallback-branch", "fallback branch reads"),
    ("scan.primary-branch", "primary branch reads"),
    (
        "scan.fallback-snapshot-branch",
        "chain table (fallback snapshot branch)",
    ),
    (
        "scan.fallback-delta-branch",
        "chain table (fallback delta branch)",
    ),
    ("vector-field", "VECTOR columns stored in vector files"),
    ("blob-descriptor-field", "BLOB descriptor columns"),
    ("blob-view-field", "BLOB view columns"),
];

/// Boolean options refused when true.
const REFUSED_WHEN_TRUE: &[(&str, &str)] = &[
    ("chain-table.enabled", "chain tables"),
    (
        "postpone.merge-on-read",
        "merge-on-read of postpone-bucket files",
    ),
    ("sequence.snapshot-ordering", "merge ordered by snapshot id"),
    (
        "table-read.sequence-number.enabled",
        "reads with the _SEQUENCE_NUMBER column",
    ),
    (
        "key-value.sequence_number.enabled",
        "reads with the _SEQUENCE_NUMBER column",
    ),
    (
        "query-auth.enabled",
        "query authorization (row filters and masks)",
    ),
    (
        "index-file-in-data-file-dir",
        "index files in the data file directories",
    ),
    (
        "data-evolution.row-sidecar.enabled",
        "data evolution row sidecar files",
    ),
    ("blob-as-descriptor", "BLOB descriptors"),
];

fn refuse(table: &str, feature: impl std::fmt::Display) -> Error {
    Error::unsupported(table, feature)
}

/// Checks a table's options before reading its data; the error names the table and the option
/// (with its value). Every column type is read (VARIANT in Parquet files; Avro and ORC files
/// with VARIANT columns are refused by name when decoded, as Paimon writes them only to Parquet).
pub fn check_table(table: &str, schema: &TableSchema) -> Result<()> {
    check_options(table, &schema.core_options())?;
    // BLOB values are read as top-level columns of `.blob` files (`read::blob`).
    match schema.fields.iter().find(|f| nested_blob(&f.data_type)) {
        Some(f) => Err(refuse(
            table,
            format!("BLOB inside column '{}' of type {}", f.name, f.data_type),
        )),
        None => Ok(()),
    }
}

/// Whether `t` holds a BLOB below its top level (ARRAY<BLOB>, MAP<K, BLOB>, ROW<.., BLOB>).
fn nested_blob(t: &DataType) -> bool {
    fn has_blob(t: &DataType) -> bool {
        t.kind == TypeKind::Blob || nested_blob(t)
    }
    match &t.kind {
        TypeKind::Array(e) | TypeKind::Multiset(e) | TypeKind::Vector(e, _) => has_blob(e),
        TypeKind::Map(k, v) => has_blob(k) || has_blob(v),
        TypeKind::Row(fields) => fields.iter().any(|f| has_blob(&f.data_type)),
        _ => false,
    }
}

fn check_options(table: &str, options: &CoreOptions) -> Result<()> {
    let named =
        |key: &str, e: lakescope_format::Error| refuse(table, format!("option '{key}': {e}"));
    match options.get("type").map(|v| v.trim().to_ascii_lowercase()) {
        None => {}
        Some(t) if t == "table" || t == "materialized-table" => {}
        Some(t) => return Err(refuse(table, format!("table type '{t}' (option 'type')"))),
    }
    options
        .merge_engine()
        .map_err(|e| named("merge-engine", e))?;
    options
        .changelog_producer()
        .map_err(|e| named("changelog-producer", e))?;
    options.bucket().map_err(|e| named("bucket", e))?;
    for key in [
        "deletion-vectors.enabled",
        "deletion-vectors.merge-on-read",
        "deletion-vectors.bitmap64",
        "row-tracking.enabled",
        "data-evolution.enabled",
    ] {
        options.get_bool(key, false).map_err(|e| named(key, e))?;
    }
    if let Some(mode) = options.get("scan.mode") {
        let m = mode.trim().to_ascii_lowercase();
        if !matches!(m.as_str(), "default" | "latest-full" | "full" | "latest") {
            return Err(refuse(
                table,
                format!("scan mode '{mode}' set in the table's options (option 'scan.mode')"),
            ));
        }
    }
    if let Some(mode) = options.get("batch-scan-mode") {
        if !mode.trim().eq_ignore_ascii_case("none") {
            return Err(refuse(
                table,
                format!("batch scan mode '{mode}' (option 'batch-scan-mode')"),
            ));
        }
    }
    for (key, what) in REFUSED_WHEN_SET {
        if let Some(v) = options.get(key) {
            return Err(refuse(table, format!("{what} (option '{key}' = '{v}')")));
        }
    }
    for (key, what) in REFUSED_WHEN_TRUE {
        if options.get_bool(key, false).map_err(|e| named(key, e))? {
            return Err(refuse(table, format!("{what} (option '{key}' = true)")));
        }
    }
    Ok(())
}

/// Snapshot file format version this reader knows (Paimon's `Snapshot.CURRENT_VERSION`).
pub const SNAPSHOT_VERSION: i32 = 3;

/// Refuses snapshots of a newer format version than [`SNAPSHOT_VERSION`].
pub fn check_snapshot(table: &str, snapshot: &Snapshot) -> Result<()> {
    match snapshot.version {
        Some(v) if v > SNAPSHOT_VERSION => Err(refuse(
            table,
            format!(
                "snapshot {} has format version {v} (known: up to {SNAPSHOT_VERSION})",
                snapshot.id
            ),
        )),
        _ => Ok(()),
    }
}

/// Refuses a data file of only some of its schema's columns (`_WRITE_COLS`) read on its own
/// (diff, compaction): Paimon stitches such files with others by row id ([`super::stitch`]).
pub fn check_write_cols(path: &str, file: &DataFileMeta, file_schema: &TableSchema) -> Result<()> {
    let Some(cols) = &file.write_cols else {
        return Ok(());
    };
    match file_schema
        .fields
        .iter()
        .find(|f| !cols.contains(&f.name))
    {
        Some(missing) => Err(Error::unsupported(
            path,
            format!(
                "data evolution: the file holds only columns [{}] (_WRITE_COLS; column '{}' comes from other files stitched by row id)",
                cols.join(", "),
                missing.name
            ),
        )),
        None => Ok(()),
    }
}

/// Checks the live files of one (partition, bucket) before reading them: unknown
/// `_FILE_SOURCE` values are refused naming the file. `file_path` gives a file's store key for
/// messages.
pub fn check_files(
    files: &[std::sync::Arc<DataFileMeta>],
    file_path: impl Fn(&DataFileMeta) -> String,
) -> Result<()> {
    for f in files {
        if let Some(source) = f.file_source {
            if !matches!(source, 0 | 1) {
                return Err(Error::unsupported(
                    file_path(f),
                    format!("unknown file source {source} (_FILE_SOURCE)"),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn schema(options: &[(&str, &str)], fields: &str) -> TableSchema {
        let opts: BTreeMap<String, String> = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let json = format!(
            r#"{{"version":3,"id":0,"fields":{fields},"highestFieldId":9,"partitionKeys":[],"primaryKeys":[],"options":{},"timeMillis":1}}"#,
            serde_json::to_string(&opts).unwrap()
        );
        TableSchema::from_json(json.as_bytes()).unwrap()
    }

    const AB: &str = r#"[{"id":0,"name":"a","type":"INT"},{"id":1,"name":"b","type":"STRING"}]"#;

    #[test]
    fn plain_and_implemented_options_pass() {
        let s = schema(
            &[
                ("bucket", "-2"),
                ("merge-engine", "partial-update"),
                ("deletion-vectors.enabled", "true"),
                ("deletion-vectors.merge-on-read", "true"),
                ("row-tracking.enabled", "true"),
                ("data-evolution.enabled", "true"),
                ("scan.mode", "latest-full"),
                ("snapshot.num-retained.max", "3"),
                ("owner", "someone"),
                ("type", "table"),
            ],
            AB,
        );
        check_table("db.db/t", &s).unwrap();
    }

    #[test]
    fn semantic_options_are_refused_naming_table_and_option() {
        for (k, v) in [
            ("scan.fallback-branch", "b"),
            ("scan.snapshot-id", "1"),
            ("scan.bucket", "0"),
            ("chain-table.enabled", "true"),
            ("postpone.merge-on-read", "true"),
            ("sequence.snapshot-ordering", "true"),
            ("scan.mode", "compacted-full"),
            ("type", "format-table"),
            ("merge-engine", "newest"),
            ("deletion-vectors.merge-on-read", "sometimes"),
        ] {
            let e = check_table("db.db/t", &schema(&[(k, v)], AB)).unwrap_err();
            let msg = e.to_string();
            assert!(matches!(e, Error::Unsupported { .. }), "{k}: {msg}");
            assert!(msg.starts_with("db.db/t: unsupported: "), "{msg}");
            assert!(msg.contains(v), "{k}: {msg}");
        }
    }

    #[test]
    fn variant_columns_pass_the_table_check() {
        // Top-level and nested VARIANT columns are read (issue 25; they were refused before).
        let s = schema(
            &[],
            r#"[{"id":0,"name":"a","type":"VARIANT"},{"id":1,"name":"r","type":{"type":"ROW","fields":[{"id":2,"name":"v","type":"VARIANT"}]}}]"#,
        );
        check_table("db.db/t", &s).unwrap();
    }

    #[test]
    fn top_level_blobs_pass_and_nested_blobs_are_refused() {
        let blob = schema(
            &[("blob-field", "p")],
            r#"[{"id":0,"name":"p","type":"BLOB"},{"id":1,"name":"v","type":"VECTOR<FLOAT, 2>"}]"#,
        );
        check_table("db.db/t", &blob).unwrap();
        let nested = schema(
            &[],
            r#"[{"id":0,"name":"ps","type":{"type":"ARRAY","element":"BLOB"}}]"#,
        );
        let msg = check_table("db.db/t", &nested).unwrap_err().to_string();
        assert!(msg.contains("BLOB inside column 'ps'"), "{msg}");
        let opt = schema(&[("blob-as-descriptor", "true")], AB);
        let msg = check_table("db.db/t", &opt).unwrap_err().to_string();
        assert!(msg.contains("blob-as-descriptor"), "{msg}");
    }

    #[test]
    fn newer_snapshot_versions_are_refused() {
        let json = |v: i32| {
            format!(
                r#"{{"version":{v},"id":4,"schemaId":0,"baseManifestList":"a","deltaManifestList":"b","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":1}}"#
            )
        };
        let ok: Snapshot = serde_json::from_str(&json(3)).unwrap();
        check_snapshot("db.db/t", &ok).unwrap();
        let new: Snapshot = serde_json::from_str(&json(4)).unwrap();
        let msg = check_snapshot("db.db/t", &new).unwrap_err().to_string();
        assert!(
            msg.contains("db.db/t") && msg.contains("version 4"),
            "{msg}"
        );
    }

    fn file(name: &str, first: Option<i64>, rows: i64, cols: Option<&[&str]>) -> DataFileMeta {
        DataFileMeta {
            file_name: name.into(),
            row_count: rows,
            first_row_id: first,
            write_cols: cols.map(|c| c.iter().map(|s| s.to_string()).collect()),
            ..Default::default()
        }
    }

    #[test]
    fn files_of_some_columns_read_alone_are_refused_naming_the_file() {
        let s = schema(&[], AB);
        let path = |f: &DataFileMeta| format!("t/bucket-0/{}", f.file_name);
        // Full-row files read as they are.
        let plain = [
            file("f1", Some(0), 8, Some(&["a", "b"])),
            file("f2", Some(8), 8, None),
        ]
        .map(std::sync::Arc::new);
        check_files(&plain, path).unwrap();
        for f in &plain {
            check_write_cols("x", f, &s).unwrap();
        }
        let partial = file("f3", Some(8), 8, Some(&["b"]));
        let msg = check_write_cols("t/bucket-0/f3", &partial, &s)
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("t/bucket-0/f3:")
                && msg.contains("data evolution")
                && msg.contains("'a'"),
            "{msg}"
        );
        let mut odd = file("f5", None, 1, None);
        odd.file_source = Some(7);
        let msg = check_files(&[std::sync::Arc::new(odd)], path)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("_FILE_SOURCE") && msg.contains('7'), "{msg}");
    }
}
