//! Partial-update merge engine (Paimon `PartialUpdateMergeFunction`): non-null fields overwrite,
//! sequence groups order groups of columns, per-field aggregators inside groups.

use std::cmp::Ordering;

use arrow_array::Array;

use super::aggregate::scalar::Cell;
use super::aggregate::{Col, FieldAgg};
use super::config::MergeConfig;
use super::sort_merge::{Entry, MergeInput};
use super::RowKind;
use crate::spec::types::DataField;
use crate::{Error, Result};

struct Group {
    seq_cols: Vec<usize>,
    /// Id of the sequence fields' comparable rows in the input
    /// ([`MergeInput::add_row_columns`]).
    rows: usize,
}

/// State and settings of the partial-update merge of one key group at a time.
pub(crate) struct PartialUpdateMerge {
    ignore_delete: bool,
    remove_record_on_delete: bool,
    nullables: Vec<bool>,
    names: Vec<String>,
    groups: Vec<Group>,
    field_group: Vec<Option<usize>>,
    is_seq_field: Vec<bool>,
    partial_delete: Vec<bool>,
    aggs: Vec<Option<FieldAgg>>,
    row: Vec<Cell>,
    group_src: Vec<Option<Entry>>,
    processed: Vec<bool>,
    updated: Vec<bool>,
}

fn find(names: &[String], name: &str) -> Result<usize> {
    names
        .iter()
        .position(|n| n == name)
        .ok_or_else(|| Error::Invalid(format!("Field {name} can not be found in table schema")))
}

impl PartialUpdateMerge {
    /// Validates the options like Paimon's factory. `fields[i]` describes value column `i`.
    pub fn new(
        input: &mut MergeInput,
        fields: &[DataField],
        primary_keys: &[String],
        config: &MergeConfig,
    ) -> Result<Self> {
        let names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
        let n = names.len();
        let mut field_group = vec![None; n];
        let mut is_seq_field = vec![false; n];
        let mut groups = Vec::new();
        let mut protected = vec![false; n];
        let pk_err = |k: &str, f: &str| {
            Error::Invalid(format!(
                "The sequence-group '{k}' contains primary key field '{f}', which is not allowed"
            ))
        };
        for (gi, g) in config.sequence_groups.iter().enumerate() {
            let key = g.sequence_fields.join(",");
            let seq_cols = g
                .sequence_fields
                .iter()
                .map(|f| find(&names, f))
                .collect::<Result<Vec<_>>>()?;
            for f in &g.protected_fields {
                let c = find(&names, f)?;
                if primary_keys.contains(f) {
                    return Err(pk_err(&key, f));
                }
                if field_group[c].is_some() {
                    return Err(Error::Invalid(format!(
                        "Field {f} is defined repeatedly by multiple groups: {key}"
                    )));
                }
                field_group[c] = Some(gi);
                protected[c] = true;
            }
            for &c in &seq_cols {
                if primary_keys.contains(&names[c]) {
                    return Err(pk_err(&key, &names[c]));
                }
                field_group[c] = Some(gi);
                is_seq_field[c] = true;
            }
            let rows = input.add_row_columns(&seq_cols)?;
            groups.push(Group { seq_cols, rows });
        }
        let mut aggs = Vec::with_capacity(n);
        for (c, f) in fields.iter().enumerate() {
            let func = if is_seq_field[c] {
                None
            } else if primary_keys.contains(&f.name) {
                Some("primary-key")
            } else {
                config
                    .field_aggregate_function(&f.name)
                    .or(config.default_aggregate_function.as_deref())
            };
            if let Some(func) = func {
                if func != "last_non_null_value" && func != "primary-key" && !protected[c] {
                    return Err(Error::Invalid(format!(
                        "Must use sequence group for aggregation functions but not found for \
                         field {}.",
                        f.name
                    )));
                }
                aggs.push(Some(FieldAgg::create(func, f, config)?));
            } else {
                aggs.push(None);
            }
        }
        let ignore_delete = config.ignore_delete;
        let remove_record_on_delete = config.partial_update_remove_record_on_delete;
        let conflict = |a: &str, b: &str| {
            Error::Invalid(format!(
                "{a} and {b} have conflicting behavior so should not be enabled at the same time."
            ))
        };
        if remove_record_on_delete && ignore_delete {
            return Err(conflict(
                "ignore-delete",
                "partial-update.remove-record-on-delete",
            ));
        }
        let mut partial_delete = vec![false; n];
        if let Some(fields) = &config.partial_update_remove_record_on_sequence_group {
            if ignore_delete {
                return Err(conflict(
                    "ignore-delete",
                    "partial-update.remove-record-on-sequence-group",
                ));
            }
            for f in fields {
                match names.iter().position(|x| x == f) {
                    Some(c) if is_seq_field[c] => partial_delete[c] = true,
                    _ => {
                        return Err(Error::Invalid(format!(
                        "field '{f}' defined in 'partial-update.remove-record-on-sequence-group' \
                             option must be part of sequence groups"
                    )))
                    }
                }
            }
        }
        if remove_record_on_delete && !groups.is_empty() {
            return Err(conflict(
                "sequence-group",
                "partial-update.remove-record-on-delete",
            ));
        }
        Ok(Self {
            ignore_delete,
            remove_record_on_delete,
            nullables: fields.iter().map(|f| f.data_type.nullable).collect(),
            names,
            group_src: vec![None; groups.len()],
            groups,
            field_group,
            is_seq_field,
            partial_delete,
            aggs,
            row: vec![Cell::Null; n],
            processed: vec![false; n],
            updated: vec![false; n],
        })
    }

    pub fn row_mut(&mut self) -> &mut [Cell] {
        &mut self.row
    }

    fn not_null(&self, c: usize) -> Error {
        Error::Invalid(format!("Field {} can not be null", self.names[c]))
    }

    fn init_row(&mut self, input: &MergeInput, e: &Entry) -> Result<()> {
        for c in 0..self.row.len() {
            let cell = Col { input, column: c }.cell(e);
            if cell.is_null() && !self.nullables[c] {
                return Err(self.not_null(c));
            }
            self.row[c] = cell;
        }
        for g in self.group_src.iter_mut() {
            *g = Some(*e);
        }
        Ok(())
    }

    fn group_is_empty(&self, input: &MergeInput, e: &Entry, g: usize) -> bool {
        self.groups[g].seq_cols.iter().all(|&c| {
            input.batches[e.batch as usize]
                .column(c)
                .is_null(e.row as usize)
        })
    }

    /// `compare(kv.value(), row)` on the group's sequence fields.
    fn compare(&self, input: &MergeInput, e: &Entry, g: usize) -> Ordering {
        match &self.group_src[g] {
            // An all-null sequence is the smallest (nulls first); empty groups never get here.
            None => Ordering::Greater,
            Some(s) => {
                let rows = input.row_columns(self.groups[g].rows);
                rows.of(e.batch as usize)
                    .row(e.row as usize)
                    .cmp(&rows.of(s.batch as usize).row(s.row as usize))
            }
        }
    }

    fn mark_group(&mut self, g: usize) {
        for &c in &self.groups[g].seq_cols {
            self.processed[c] = true;
        }
    }

    /// Merges a sorted key group of two or more rows; the cells stay in `row_mut()`.
    pub fn merge(&mut self, input: &MergeInput, group: &[Entry]) -> Result<RowKind> {
        for c in self.row.iter_mut() {
            *c = Cell::Null;
        }
        for g in self.group_src.iter_mut() {
            *g = None;
        }
        for a in self.aggs.iter_mut().flatten() {
            a.reset();
        }
        let mut meet_insert = false;
        let mut not_null_filled = false;
        let mut deleted = false;
        for e in group {
            deleted = false;
            if !e.kind.is_add() {
                if !not_null_filled {
                    self.init_row(input, e)?;
                    not_null_filled = true;
                }
                if self.ignore_delete {
                    continue;
                }
                if !self.groups.is_empty() {
                    deleted = self.retract_with_groups(input, e)?;
                    continue;
                }
                if self.remove_record_on_delete {
                    if e.kind == RowKind::Delete {
                        deleted = true;
                        self.init_row(input, e)?;
                    }
                    continue;
                }
                return Err(Error::Invalid(
                    "By default, Partial update can not accept delete records, you can choose one \
                     of the following solutions: 1. Configure 'ignore-delete' to ignore delete \
                     records. 2. Configure 'partial-update.remove-record-on-delete' to remove the \
                     whole row when receiving delete records. 3. Configure 'sequence-group's to \
                     retract partial columns."
                        .into(),
                ));
            }
            if self.groups.is_empty() {
                for c in 0..self.row.len() {
                    let cell = Col { input, column: c }.cell(e);
                    if !cell.is_null() {
                        self.row[c] = cell;
                    } else if !self.nullables[c] {
                        return Err(self.not_null(c));
                    }
                }
            } else {
                self.update_with_groups(input, e)?;
            }
            meet_insert = true;
            not_null_filled = true;
        }
        Ok(if deleted || !meet_insert {
            RowKind::Delete
        } else {
            RowKind::Insert
        })
    }

    fn update_with_groups(&mut self, input: &MergeInput, e: &Entry) -> Result<()> {
        self.processed.iter_mut().for_each(|p| *p = false);
        for i in 0..self.row.len() {
            let cx = Col { input, column: i };
            let Some(g) = self.field_group[i] else {
                let field = cx.cell(e);
                if let Some(agg) = self.aggs[i].as_mut() {
                    let acc = std::mem::replace(&mut self.row[i], Cell::Null);
                    self.row[i] = agg.agg(&cx, acc, field)?;
                } else if !field.is_null() {
                    self.row[i] = field;
                }
                continue;
            };
            if self.processed[i] {
                continue;
            }
            if self.group_is_empty(input, e, g) {
                self.mark_group(g);
                continue;
            }
            let field = cx.cell(e);
            if self.compare(input, e, g) != Ordering::Less {
                if self.is_seq_field[i] {
                    for k in 0..self.groups[g].seq_cols.len() {
                        let c = self.groups[g].seq_cols[k];
                        self.row[c] = Col { input, column: c }.cell(e);
                        self.processed[c] = true;
                    }
                    self.group_src[g] = Some(*e);
                    continue;
                }
                let acc = std::mem::replace(&mut self.row[i], Cell::Null);
                self.row[i] = match self.aggs[i].as_mut() {
                    None => field,
                    Some(agg) => agg.agg(&cx, acc, field)?,
                };
            } else if let Some(agg) = self.aggs[i].as_mut() {
                let acc = std::mem::replace(&mut self.row[i], Cell::Null);
                self.row[i] = agg.agg_reversed(&cx, acc, field)?;
            }
        }
        Ok(())
    }

    /// Returns true when the record was removed (remove-record-on-sequence-group).
    fn retract_with_groups(&mut self, input: &MergeInput, e: &Entry) -> Result<bool> {
        self.processed.iter_mut().for_each(|p| *p = false);
        self.updated.iter_mut().for_each(|p| *p = false);
        for i in 0..self.row.len() {
            let Some(g) = self.field_group[i] else {
                continue;
            };
            if self.processed[i] {
                continue;
            }
            if self.group_is_empty(input, e, g) {
                self.mark_group(g);
                continue;
            }
            let cx = Col { input, column: i };
            if self.compare(input, e, g) != Ordering::Less {
                if self.is_seq_field[i] {
                    for k in 0..self.groups[g].seq_cols.len() {
                        let c = self.groups[g].seq_cols[k];
                        if !self.updated[c] {
                            if e.kind == RowKind::Delete && self.partial_delete[c] {
                                self.init_row(input, e)?;
                                return Ok(true);
                            }
                            self.row[c] = Col { input, column: c }.cell(e);
                            self.updated[c] = true;
                        }
                        self.processed[c] = true;
                    }
                    self.group_src[g] = Some(*e);
                } else {
                    let acc = std::mem::replace(&mut self.row[i], Cell::Null);
                    self.row[i] = match self.aggs[i].as_mut() {
                        None => Cell::Null,
                        Some(agg) => agg.retract(&cx, acc, cx.cell(e))?,
                    };
                }
            } else if let Some(agg) = self.aggs[i].as_mut() {
                let acc = std::mem::replace(&mut self.row[i], Cell::Null);
                self.row[i] = agg.retract(&cx, acc, cx.cell(e))?;
            }
        }
        Ok(false)
    }
}
