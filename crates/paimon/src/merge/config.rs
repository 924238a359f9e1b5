//! Merge-engine settings parsed from a table's options map (independent of `spec::options`).

use std::collections::BTreeMap;

use crate::{Error, Result};

/// Which merge engine a primary-key table uses (`merge-engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeEngine {
    /// Keep the row with the highest sequence (default).
    Deduplicate,
    /// Keep the last non-null value per column (with optional sequence groups).
    PartialUpdate,
    /// Aggregate every column with its `fields.<f>.aggregate-function`.
    Aggregation,
    /// Keep the first row per key.
    FirstRow,
}

/// A `fields.<seq fields>.sequence-group = <protected fields>` declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceGroup {
    /// Fields whose values order this group (compared ascending, nulls first).
    pub sequence_fields: Vec<String>,
    /// Fields updated only when the group's sequence does not go backwards.
    pub protected_fields: Vec<String>,
}

/// The options the merge needs, parsed once per table.
#[derive(Debug, Clone)]
pub struct MergeConfig {
    /// `merge-engine`.
    pub engine: MergeEngine,
    /// `ignore-delete` (fallbacks `first-row.ignore-delete`, `deduplicate.ignore-delete`,
    /// `partial-update.ignore-delete`).
    pub ignore_delete: bool,
    /// `sequence.field` (comma separated, trimmed).
    pub sequence_fields: Vec<String>,
    /// `sequence.field.sort-order` is `ascending` (default).
    pub sequence_ascending: bool,
    /// `rowkind.field`: a write-time option; the reader trusts `_VALUE_KIND` (as Paimon does).
    pub rowkind_field: Option<String>,
    /// `partial-update.remove-record-on-delete`.
    pub partial_update_remove_record_on_delete: bool,
    /// `partial-update.remove-record-on-sequence-group` (sequence fields of the groups).
    pub partial_update_remove_record_on_sequence_group: Option<Vec<String>>,
    /// `aggregation.remove-record-on-delete`.
    pub aggregation_remove_record_on_delete: bool,
    /// `fields.*.sequence-group` declarations, in option-key order.
    pub sequence_groups: Vec<SequenceGroup>,
    /// `fields.default-aggregate-function`.
    pub default_aggregate_function: Option<String>,
    options: BTreeMap<String, String>,
}

const SEQUENCE_GROUP_SUFFIX: &str = "sequence-group";

impl MergeConfig {
    /// Parses the merge-related options; invalid values name the option and the value.
    pub fn from_options(options: &BTreeMap<String, String>) -> Result<Self> {
        let engine = match options.get("merge-engine") {
            None => MergeEngine::Deduplicate,
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "deduplicate" => MergeEngine::Deduplicate,
                "partial-update" => MergeEngine::PartialUpdate,
                "aggregation" => MergeEngine::Aggregation,
                "first-row" => MergeEngine::FirstRow,
                _ => return Err(invalid("merge-engine", v)),
            },
        };
        let ignore_delete = bool_with_fallbacks(
            options,
            "ignore-delete",
            &[
                "first-row.ignore-delete",
                "deduplicate.ignore-delete",
                "partial-update.ignore-delete",
            ],
        )?;
        let sequence_fields = options
            .get("sequence.field")
            .map(|s| split_list(s))
            .unwrap_or_default();
        let sequence_ascending = match options.get("sequence.field.sort-order") {
            None => true,
            Some(v) => match v.trim().to_ascii_lowercase().as_str() {
                "ascending" => true,
                "descending" => false,
                _ => return Err(invalid("sequence.field.sort-order", v)),
            },
        };
        let mut sequence_groups = Vec::new();
        for (k, v) in options {
            if k.starts_with("fields.") && k.ends_with(&format!(".{SEQUENCE_GROUP_SUFFIX}")) {
                let inner = &k["fields.".len()..k.len() - SEQUENCE_GROUP_SUFFIX.len() - 1];
                sequence_groups.push(SequenceGroup {
                    sequence_fields: split_list(inner),
                    protected_fields: split_list(v),
                });
            }
        }
        Ok(Self {
            engine,
            ignore_delete,
            sequence_fields,
            sequence_ascending,
            rowkind_field: options.get("rowkind.field").map(|s| s.trim().to_string()),
            partial_update_remove_record_on_delete: bool_opt(
                options,
                "partial-update.remove-record-on-delete",
            )?
            .unwrap_or(false),
            partial_update_remove_record_on_sequence_group: options
                .get("partial-update.remove-record-on-sequence-group")
                .map(|s| split_list(s)),
            aggregation_remove_record_on_delete: bool_opt(
                options,
                "aggregation.remove-record-on-delete",
            )?
            .unwrap_or(false),
            sequence_groups,
            default_aggregate_function: options
                .get("fields.default-aggregate-function")
                .map(|s| s.trim().to_string()),
            options: options.clone(),
        })
    }

    /// `fields.<field>.<suffix>` as given.
    pub fn field_option(&self, field: &str, suffix: &str) -> Option<&str> {
        self.options
            .get(&format!("fields.{field}.{suffix}"))
            .map(String::as_str)
    }

    /// `fields.<field>.<suffix>` parsed as a boolean (default false).
    pub fn field_bool(&self, field: &str, suffix: &str) -> Result<bool> {
        bool_opt(&self.options, &format!("fields.{field}.{suffix}")).map(|b| b.unwrap_or(false))
    }

    /// `fields.<field>.aggregate-function`.
    pub fn field_aggregate_function(&self, field: &str) -> Option<&str> {
        self.field_option(field, "aggregate-function")
            .map(str::trim)
    }
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

pub(crate) fn invalid(option: &str, value: &str) -> Error {
    Error::Invalid(format!("invalid value for option '{option}': '{value}'"))
}

fn bool_opt(options: &BTreeMap<String, String>, key: &str) -> Result<Option<bool>> {
    match options.get(key) {
        None => Ok(None),
        Some(v) => match v.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            _ => Err(invalid(key, v)),
        },
    }
}

fn bool_with_fallbacks(
    options: &BTreeMap<String, String>,
    key: &str,
    fallbacks: &[&str],
) -> Result<bool> {
    if let Some(b) = bool_opt(options, key)? {
        return Ok(b);
    }
    for f in fallbacks {
        if let Some(b) = bool_opt(options, f)? {
            return Ok(b);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults_and_legacy_ignore_delete() {
        let c = MergeConfig::from_options(&opts(&[])).unwrap();
        assert_eq!(c.engine, MergeEngine::Deduplicate);
        assert!(!c.ignore_delete);
        let c =
            MergeConfig::from_options(&opts(&[("partial-update.ignore-delete", "TRUE")])).unwrap();
        assert!(c.ignore_delete);
        let c = MergeConfig::from_options(&opts(&[
            ("ignore-delete", "false"),
            ("deduplicate.ignore-delete", "true"),
        ]))
        .unwrap();
        assert!(!c.ignore_delete);
    }

    #[test]
    fn invalid_values_name_option() {
        let e = MergeConfig::from_options(&opts(&[("merge-engine", "bogus")])).unwrap_err();
        assert!(e.to_string().contains("merge-engine") && e.to_string().contains("bogus"));
        let e = MergeConfig::from_options(&opts(&[("ignore-delete", "yes")])).unwrap_err();
        assert!(e.to_string().contains("ignore-delete"));
        let e =
            MergeConfig::from_options(&opts(&[("sequence.field.sort-order", "up")])).unwrap_err();
        assert!(e.to_string().contains("sequence.field.sort-order"));
    }

    #[test]
    fn sequence_groups_parse() {
        let c = MergeConfig::from_options(&opts(&[
            ("merge-engine", "partial-update"),
            ("fields.g1,g2.sequence-group", "a, b"),
            ("sequence.field", "ts, ts2"),
            ("sequence.field.sort-order", "descending"),
        ]))
        .unwrap();
        assert_eq!(c.engine, MergeEngine::PartialUpdate);
        assert_eq!(
            c.sequence_groups,
            vec![SequenceGroup {
                sequence_fields: vec!["g1".into(), "g2".into()],
                protected_fields: vec!["a".into(), "b".into()],
            }]
        );
        assert_eq!(c.sequence_fields, vec!["ts".to_string(), "ts2".to_string()]);
        assert!(!c.sequence_ascending);
    }
}
