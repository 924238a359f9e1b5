//! The changelog a compaction writes for `changelog-producer` = `lookup` / `full-compaction`
//! tables: per key the compaction touches, the change from its value before to after.
//!
//! As Paimon's `LookupChangelogMergeFunctionWrapper` (lookup: keys with a level-0 record; the
//! value before is that of the levels above 0), `FullChangelogMergeFunctionWrapper`
//! (full-compaction: keys with a record below the top level; the value before is the top
//! level's) and `FirstRowMergeFunctionWrapper` (first-row: only new keys, as `+I`): no value
//! before and an added value after gives `+I`; a value before and none after `-D` (of the value
//! before); both give `-U` (before) and `+U` (after), unless
//! `changelog-producer.row-deduplicate` is set and the values are equal. Each record keeps the
//! sequence number of the value it carries.

use crate::error::{Error, Result};
use crate::merge::config::{MergeConfig, MergeEngine};
use crate::spec::options::ChangelogProducer;
use crate::spec::schema::TableSchema;
use crate::write::table_write::{cmp_keys, FileLayout};
use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::sync::Arc;

/// `_VALUE_KIND` bytes of changelog records.
const INSERT: i8 = 0;
const UPDATE_BEFORE: i8 = 1;
const UPDATE_AFTER: i8 = 2;
const DELETE: i8 = 3;

/// How a table's compactions produce changelog.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChangelogRule {
    /// `full-compaction` (else `lookup`).
    full: bool,
    /// The top level (full-compaction's level before).
    top: i32,
    /// `changelog-producer.row-deduplicate`.
    row_deduplicate: bool,
    /// First-row merge engine: only new keys.
    first_row: bool,
}

impl ChangelogRule {
    /// The rule of `schema` (`None` when its compactions write no changelog).
    pub(crate) fn of(schema: &TableSchema, top: i32) -> Result<Option<Self>> {
        if schema.primary_keys.is_empty() {
            return Ok(None);
        }
        let options = schema.core_options();
        let full = match options.changelog_producer()? {
            ChangelogProducer::Lookup => false,
            ChangelogProducer::FullCompaction => true,
            ChangelogProducer::None | ChangelogProducer::Input => return Ok(None),
        };
        let key = "changelog-producer.row-deduplicate";
        let row_deduplicate = match options.get(key).map(|v| v.trim().to_ascii_lowercase()) {
            None => false,
            Some(v) if v == "true" => true,
            Some(v) if v == "false" => false,
            Some(v) => return Err(Error::Invalid(format!("{key} '{v}' is not a boolean"))),
        };
        let first_row = MergeConfig::from_options(&schema.options)?.engine == MergeEngine::FirstRow;
        Ok(Some(Self {
            full,
            top,
            row_deduplicate,
            first_row,
        }))
    }

    /// Whether the records of a file at `level` make the value before.
    pub(crate) fn is_before(&self, level: i32) -> bool {
        if self.full {
            level == self.top
        } else {
            level > 0
        }
    }

    /// Whether the keys of a file at `level` get changelog records.
    pub(crate) fn touches(&self, level: i32) -> bool {
        if self.full {
            level != self.top
        } else {
            level == 0
        }
    }

    /// The changelog records of the touched keys (`touched`: key BinaryRows), from `before`
    /// and `after` (merged rows: the table's columns, `_SEQUENCE_NUMBER`, `_VALUE_KIND`,
    /// sorted by key, one live row per key), sorted by key; `None` when there are none.
    pub(crate) fn diff(
        &self,
        layout: &FileLayout,
        touched: &HashSet<Vec<u8>>,
        before: Option<&RecordBatch>,
        after: Option<&RecordBatch>,
    ) -> Result<Option<RecordBatch>> {
        let Some(shape) = after.or(before) else {
            return Ok(None);
        };
        let empty = RecordBatch::new_empty(shape.schema());
        let (before, after) = (before.unwrap_or(&empty), after.unwrap_or(&empty));
        let (b_cols, a_cols) = (before.columns(), after.columns());
        // (source batch: 0 before, 1 after; row), and the record's kind.
        let mut picks: Vec<(usize, usize)> = Vec::new();
        let mut kinds: Vec<i8> = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < before.num_rows() || j < after.num_rows() {
            let order = match (i < before.num_rows(), j < after.num_rows()) {
                (true, true) => cmp_keys(
                    &layout.key_datums(b_cols, i)?,
                    &layout.key_datums(a_cols, j)?,
                ),
                (true, false) => Ordering::Less,
                _ => Ordering::Greater,
            };
            let (b, a) = match order {
                Ordering::Less => (Some(i), None),
                Ordering::Greater => (None, Some(j)),
                Ordering::Equal => (Some(i), Some(j)),
            };
            let key = match (b, a) {
                (Some(b), _) => layout.key_row(b_cols, b)?,
                (None, Some(a)) => layout.key_row(a_cols, a)?,
                (None, None) => break,
            };
            i += usize::from(b.is_some());
            j += usize::from(a.is_some());
            if !touched.contains(&key) {
                continue;
            }
            match (b, a) {
                (None, Some(a)) => {
                    picks.push((1, a));
                    kinds.push(INSERT);
                }
                _ if self.first_row => {}
                (Some(b), None) => {
                    picks.push((0, b));
                    kinds.push(DELETE);
                }
                (Some(b), Some(a)) => {
                    if !self.row_deduplicate || !layout.values_equal(b_cols, b, a_cols, a)? {
                        picks.extend([(0, b), (1, a)]);
                        kinds.extend([UPDATE_BEFORE, UPDATE_AFTER]);
                    }
                }
                (None, None) => {}
            }
        }
        if picks.is_empty() {
            return Ok(None);
        }
        let kind_at = shape.num_columns().saturating_sub(1);
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(shape.num_columns());
        for c in 0..shape.num_columns() {
            if c == kind_at {
                columns.push(Arc::new(Int8Array::from(kinds.clone())));
                continue;
            }
            let sources: [&dyn Array; 2] = [b_cols[c].as_ref(), a_cols[c].as_ref()];
            columns.push(
                arrow_select::interleave::interleave(&sources, &picks)
                    .map_err(|e| Error::Invalid(format!("compaction changelog: {e}")))?,
            );
        }
        RecordBatch::try_new(shape.schema(), columns)
            .map(Some)
            .map_err(|e| Error::Invalid(format!("compaction changelog: {e}")))
    }
}
