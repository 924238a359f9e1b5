//! Typed accessors over a table's options map, with Paimon's defaults (`CoreOptions`).

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Default of `partition.default-name`.
pub const DEFAULT_PARTITION_NAME: &str = "__DEFAULT_PARTITION__";

/// How rows with the same primary key are combined (`merge-engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeEngine {
    /// Keep the last row (default).
    Deduplicate,
    /// Keep the last non-null value of each field.
    PartialUpdate,
    /// Aggregate fields with `fields.<f>.aggregate-function`.
    Aggregation,
    /// Keep the first row.
    FirstRow,
}

/// How changelog files are produced (`changelog-producer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangelogProducer {
    /// No changelog files (default).
    None,
    /// The input records are the changelog.
    Input,
    /// Produced by lookup during compaction.
    Lookup,
    /// Produced by full compaction.
    FullCompaction,
}

impl fmt::Display for MergeEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MergeEngine::Deduplicate => "deduplicate",
            MergeEngine::PartialUpdate => "partial-update",
            MergeEngine::Aggregation => "aggregation",
            MergeEngine::FirstRow => "first-row",
        })
    }
}

/// Typed view of a table's options (`schema.options`), applying Paimon's defaults.
///
/// Invalid values give [`Error::Invalid`] naming the option and the value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoreOptions {
    options: BTreeMap<String, String>,
}

fn invalid(key: &str, value: &str, expected: &str) -> Error {
    Error::Invalid(format!(
        "invalid value '{value}' for option '{key}': expected {expected}"
    ))
}

impl CoreOptions {
    /// Wraps an options map.
    pub fn new(options: BTreeMap<String, String>) -> Self {
        Self { options }
    }

    /// The raw map.
    pub fn map(&self) -> &BTreeMap<String, String> {
        &self.options
    }

    /// The raw value of an option.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(String::as_str)
    }

    fn parse<T: FromStr>(&self, key: &str, default: T, expected: &str) -> Result<T> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.trim().parse().map_err(|_| invalid(key, v, expected)),
        }
    }

    /// A boolean option (`true`/`false`, case-insensitive).
    pub fn get_bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                _ => Err(invalid(key, v, "true or false")),
            },
        }
    }

    fn list(&self, key: &str) -> Vec<String> {
        self.get(key)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `bucket`: number of buckets; -1 dynamic (PK) / unaware (append), -2 postpone. Default -1.
    pub fn bucket(&self) -> Result<i32> {
        let b: i32 = self.parse("bucket", -1, "an integer")?;
        if b == 0 || b < -2 {
            return Err(invalid(
                "bucket",
                &b.to_string(),
                "a positive number, -1 or -2",
            ));
        }
        Ok(b)
    }

    /// `bucket-key`: columns hashed to choose the bucket (empty: the primary key / whole row).
    pub fn bucket_key(&self) -> Vec<String> {
        self.list("bucket-key")
    }

    /// `file.format` (lowercase); default `parquet`.
    pub fn file_format(&self) -> String {
        self.get("file.format")
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_else(|| "parquet".into())
    }

    /// `file.compression` (lowercase); default `zstd`.
    pub fn file_compression(&self) -> String {
        self.get("file.compression")
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_else(|| "zstd".into())
    }

    /// `merge-engine`; default deduplicate.
    pub fn merge_engine(&self) -> Result<MergeEngine> {
        match self.get("merge-engine") {
            None => Ok(MergeEngine::Deduplicate),
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "deduplicate" => Ok(MergeEngine::Deduplicate),
                "partial-update" => Ok(MergeEngine::PartialUpdate),
                "aggregation" => Ok(MergeEngine::Aggregation),
                "first-row" => Ok(MergeEngine::FirstRow),
                _ => Err(invalid(
                    "merge-engine",
                    v,
                    "deduplicate, partial-update, aggregation or first-row",
                )),
            },
        }
    }

    /// `changelog-producer`; default none.
    pub fn changelog_producer(&self) -> Result<ChangelogProducer> {
        match self.get("changelog-producer") {
            None => Ok(ChangelogProducer::None),
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "none" => Ok(ChangelogProducer::None),
                "input" => Ok(ChangelogProducer::Input),
                "lookup" => Ok(ChangelogProducer::Lookup),
                "full-compaction" => Ok(ChangelogProducer::FullCompaction),
                _ => Err(invalid(
                    "changelog-producer",
                    v,
                    "none, input, lookup or full-compaction",
                )),
            },
        }
    }

    /// `deletion-vectors.enabled`; default false.
    pub fn deletion_vectors_enabled(&self) -> Result<bool> {
        self.get_bool("deletion-vectors.enabled", false)
    }

    /// `sequence.field`: user sequence columns (comma separated); empty when unset.
    pub fn sequence_field(&self) -> Vec<String> {
        self.list("sequence.field")
    }

    /// `rowkind.field`: a STRING column holding `+I/-U/+U/-D`.
    pub fn rowkind_field(&self) -> Option<String> {
        self.get("rowkind.field")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    }

    /// `ignore-delete` (also the old names `partial-update.ignore-delete` and
    /// `first-row.ignore-delete`); default false. The first key present wins.
    pub fn ignore_delete(&self) -> Result<bool> {
        for key in [
            "ignore-delete",
            "partial-update.ignore-delete",
            "first-row.ignore-delete",
        ] {
            if self.get(key).is_some() {
                return self.get_bool(key, false);
            }
        }
        Ok(false)
    }

    /// `partition.default-name`; default `__DEFAULT_PARTITION__`.
    pub fn partition_default_name(&self) -> String {
        self.get("partition.default-name")
            .unwrap_or(DEFAULT_PARTITION_NAME)
            .to_string()
    }

    /// `partition.legacy-name`; default true (partition values rendered with Java `toString`).
    pub fn partition_legacy_name(&self) -> Result<bool> {
        self.get_bool("partition.legacy-name", true)
    }

    /// `data-file.prefix`; default `data-`.
    pub fn data_file_prefix(&self) -> String {
        self.get("data-file.prefix").unwrap_or("data-").to_string()
    }

    /// `changelog-file.prefix`; default `changelog-`.
    pub fn changelog_file_prefix(&self) -> String {
        self.get("changelog-file.prefix")
            .unwrap_or("changelog-")
            .to_string()
    }

    /// `data-file.path-directory`: a sub-directory of the table holding the data files.
    pub fn data_file_path_directory(&self) -> Option<String> {
        self.get("data-file.path-directory")
            .map(|s| s.trim().trim_matches('/').to_string())
            .filter(|s| !s.is_empty())
    }

    /// `fields.<field>.<key>`, e.g. `field_option("total", "aggregate-function")`.
    pub fn field_option(&self, field: &str, key: &str) -> Option<&str> {
        self.get(&format!("fields.{field}.{key}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(&str, &str)]) -> CoreOptions {
        CoreOptions::new(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn defaults() {
        let o = opts(&[]);
        assert_eq!(o.bucket().unwrap(), -1);
        assert!(o.bucket_key().is_empty());
        assert_eq!(o.file_format(), "parquet");
        assert_eq!(o.file_compression(), "zstd");
        assert_eq!(o.merge_engine().unwrap(), MergeEngine::Deduplicate);
        assert_eq!(o.changelog_producer().unwrap(), ChangelogProducer::None);
        assert!(!o.deletion_vectors_enabled().unwrap());
        assert!(o.sequence_field().is_empty());
        assert_eq!(o.rowkind_field(), None);
        assert!(!o.ignore_delete().unwrap());
        assert_eq!(o.partition_default_name(), "__DEFAULT_PARTITION__");
        assert!(o.partition_legacy_name().unwrap());
        assert_eq!(o.data_file_prefix(), "data-");
        assert_eq!(o.field_option("x", "aggregate-function"), None);
    }

    #[test]
    fn parses_values() {
        let o = opts(&[
            ("bucket", "3"),
            ("bucket-key", "id, dt"),
            ("file.format", "ORC"),
            ("merge-engine", "partial-update"),
            ("changelog-producer", "lookup"),
            ("deletion-vectors.enabled", "TRUE"),
            ("sequence.field", "ts,seq"),
            ("rowkind.field", "op"),
            ("first-row.ignore-delete", "true"),
            ("partition.default-name", "NULL_DAY"),
            ("fields.total.aggregate-function", "sum"),
        ]);
        assert_eq!(o.bucket().unwrap(), 3);
        assert_eq!(o.bucket_key(), vec!["id", "dt"]);
        assert_eq!(o.file_format(), "orc");
        assert_eq!(o.merge_engine().unwrap(), MergeEngine::PartialUpdate);
        assert_eq!(o.changelog_producer().unwrap(), ChangelogProducer::Lookup);
        assert!(o.deletion_vectors_enabled().unwrap());
        assert_eq!(o.sequence_field(), vec!["ts", "seq"]);
        assert_eq!(o.rowkind_field().as_deref(), Some("op"));
        assert!(o.ignore_delete().unwrap());
        assert_eq!(o.partition_default_name(), "NULL_DAY");
        assert_eq!(o.field_option("total", "aggregate-function"), Some("sum"));
        assert!(opts(&[("partial-update.ignore-delete", "true")])
            .ignore_delete()
            .unwrap());
        assert!(!opts(&[
            ("ignore-delete", "false"),
            ("first-row.ignore-delete", "true")
        ])
        .ignore_delete()
        .unwrap());
    }

    #[test]
    fn invalid_values_name_option_and_value() {
        let e = opts(&[("bucket", "three")])
            .bucket()
            .unwrap_err()
            .to_string();
        assert!(e.contains("bucket") && e.contains("three"), "{e}");
        assert!(opts(&[("bucket", "0")]).bucket().is_err());
        let e = opts(&[("merge-engine", "newest")])
            .merge_engine()
            .unwrap_err()
            .to_string();
        assert!(e.contains("merge-engine") && e.contains("newest"), "{e}");
        let e = opts(&[("deletion-vectors.enabled", "yes")])
            .deletion_vectors_enabled()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("deletion-vectors.enabled") && e.contains("yes"),
            "{e}"
        );
        assert!(opts(&[("changelog-producer", "x")])
            .changelog_producer()
            .is_err());
        assert!(opts(&[("ignore-delete", "maybe")]).ignore_delete().is_err());
    }
}
