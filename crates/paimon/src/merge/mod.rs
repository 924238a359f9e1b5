//! Merge-on-read of primary-key tables: k-way merge of sorted runs and the merge engines.
//!
//! Input: the sorted runs of one (partition, bucket), each a sequence of record batches with the
//! value columns followed by `_SEQUENCE_NUMBER` (Int64) and `_VALUE_KIND` (Int8). Output: the
//! merged rows in key order, value columns followed by `_VALUE_KIND`.
//!
//! Semantics follow Apache Paimon's `SortMergeReaderWithMinHeap`, `ReducerMergeFunctionWrapper`
//! and the merge functions: rows with equal keys are ordered by the user `sequence.field` (if
//! set), then `_SEQUENCE_NUMBER`, then retract-before-add; a key with a single row is passed
//! through unchanged; the engine decides the rest. Rows whose result kind is a retraction
//! (-U/-D) are dropped unless [`MergeSettings::keep_deletes`] is set.
//!
//! `rowkind.field` is a write-time option in Paimon (`RowKindGenerator` is used only by
//! `TableWriteImpl`); readers take the row kind from `_VALUE_KIND`, and so does this module.

pub mod aggregate;
pub mod config;
mod deduplicate;
mod first_row;
mod output;
mod partial_update;
pub mod sort_merge;

use std::collections::BTreeMap;

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef};

use self::aggregate::AggregateMerge;
use self::config::{MergeConfig, MergeEngine};
use self::output::{output_schema, OutputBuilder};
use self::partial_update::PartialUpdateMerge;
use self::sort_merge::{Entry, MergeInput, SortMerger, Step};
use crate::spec::types::{DataField, TypeKind};
use crate::{Error, Result};

pub use self::sort_merge::{SEQUENCE_NUMBER, VALUE_KIND};

/// Paimon's row kind, as stored in `_VALUE_KIND`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i8)]
pub enum RowKind {
    /// `+I`
    Insert = 0,
    /// `-U`
    UpdateBefore = 1,
    /// `+U`
    UpdateAfter = 2,
    /// `-D`
    Delete = 3,
}

impl RowKind {
    /// From the `_VALUE_KIND` byte.
    pub fn from_i8(v: i8) -> Option<Self> {
        Some(match v {
            0 => RowKind::Insert,
            1 => RowKind::UpdateBefore,
            2 => RowKind::UpdateAfter,
            3 => RowKind::Delete,
            _ => return None,
        })
    }

    /// From the short string form (`+I`, `-U`, `+U`, `-D`).
    pub fn from_short_string(s: &str) -> Option<Self> {
        Some(match s {
            "+I" => RowKind::Insert,
            "-U" => RowKind::UpdateBefore,
            "+U" => RowKind::UpdateAfter,
            "-D" => RowKind::Delete,
            _ => return None,
        })
    }

    /// The short string form.
    pub fn short_string(self) -> &'static str {
        match self {
            RowKind::Insert => "+I",
            RowKind::UpdateBefore => "-U",
            RowKind::UpdateAfter => "+U",
            RowKind::Delete => "-D",
        }
    }

    /// `+I` or `+U`.
    pub fn is_add(self) -> bool {
        matches!(self, RowKind::Insert | RowKind::UpdateAfter)
    }
}

pub(crate) fn arrow_err(e: ArrowError) -> Error {
    Error::Invalid(format!("merge: {e}"))
}

/// Knobs of a merge that are not table options.
#[derive(Debug, Clone, Copy)]
pub struct MergeSettings {
    /// Maximum rows per output batch.
    pub batch_size: usize,
    /// Maximum rows of the first output batch, when fewer than `batch_size`: a viewer shows the
    /// first merged rows without waiting for a whole batch to be merged and assembled.
    pub first_batch_size: Option<usize>,
    /// Keep keys whose merged row is a retraction (for `$audit_log`-like views).
    pub keep_deletes: bool,
}

impl Default for MergeSettings {
    fn default() -> Self {
        Self {
            batch_size: 8192,
            first_batch_size: None,
            keep_deletes: false,
        }
    }
}

/// The merged rows of one (partition, bucket).
#[derive(Debug, Clone, Default)]
pub struct MergeOutput {
    /// Output schema (value columns + `_VALUE_KIND`); `None` when there was no input batch.
    pub schema: Option<SchemaRef>,
    /// Batches in key order.
    pub batches: Vec<RecordBatch>,
}

impl MergeOutput {
    /// Total number of rows.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
}

enum Engine {
    Deduplicate,
    FirstRow,
    PartialUpdate(Box<PartialUpdateMerge>),
    Aggregate(Box<AggregateMerge>),
}

/// Streaming merge: yields batches of at most `batch_size` rows, in key order, pulling the
/// runs' batches one at a time (see [`MergeReader::step`]).
pub struct MergeReader {
    merger: SortMerger,
    engine: Engine,
    ignore_delete: bool,
    settings: MergeSettings,
    schema: Option<SchemaRef>,
    builder: OutputBuilder,
    group: Vec<Entry>,
    /// `_SEQUENCE_NUMBER` of each buffered output row, when requested
    /// ([`MergeReader::with_sequence_numbers`]).
    sequences: Option<Vec<i64>>,
    /// Whether an output batch was produced (later batches are `batch_size` rows).
    produced: bool,
    done: bool,
    failed: bool,
}

/// Merges the sorted runs of one (partition, bucket) into batches (see the module docs).
pub fn merge_runs(
    runs: Vec<Vec<RecordBatch>>,
    fields: &[DataField],
    primary_keys: &[String],
    options: &BTreeMap<String, String>,
) -> Result<MergeOutput> {
    let reader = MergeReader::new(
        runs,
        fields,
        primary_keys,
        options,
        MergeSettings::default(),
    )?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<_>>>()?;
    Ok(MergeOutput { schema, batches })
}

impl MergeReader {
    /// Prepares a merge of whole runs given up front; `fields` describe the value columns
    /// (matched by name).
    pub fn new(
        runs: Vec<Vec<RecordBatch>>,
        fields: &[DataField],
        primary_keys: &[String],
        options: &BTreeMap<String, String>,
        settings: MergeSettings,
    ) -> Result<Self> {
        let first_schema = runs.iter().flatten().map(|b| b.schema()).next();
        let mut reader = Self::build(
            first_schema,
            runs.len(),
            fields,
            primary_keys,
            options,
            settings,
        )?;
        for (run, batches) in runs.into_iter().enumerate() {
            if reader.schema.is_some() {
                for batch in batches {
                    reader.merger.push(run, batch)?;
                }
            }
            reader.merger.end(run)?;
        }
        Ok(reader)
    }

    /// Prepares a merge of `runs` sorted runs of batches with `schema` (value columns, then
    /// `_SEQUENCE_NUMBER` and `_VALUE_KIND`) given one at a time: [`Self::step`] says which run
    /// needs its next batch, [`Self::push_batch`] / [`Self::end_run`] give it.
    pub fn streaming(
        schema: SchemaRef,
        runs: usize,
        fields: &[DataField],
        primary_keys: &[String],
        options: &BTreeMap<String, String>,
        settings: MergeSettings,
    ) -> Result<Self> {
        Self::build(Some(schema), runs, fields, primary_keys, options, settings)
    }

    fn build(
        input_schema: Option<SchemaRef>,
        runs: usize,
        fields: &[DataField],
        primary_keys: &[String],
        options: &BTreeMap<String, String>,
        settings: MergeSettings,
    ) -> Result<Self> {
        let config = MergeConfig::from_options(options)?;
        let value_names: Vec<String> = match &input_schema {
            Some(s) => {
                let n = s.fields().len().saturating_sub(2);
                s.fields()[..n].iter().map(|f| f.name().clone()).collect()
            }
            None => Vec::new(),
        };
        let col = |name: &str, what: &str| {
            value_names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| Error::Invalid(format!("merge: {what} '{name}' is not a column")))
        };
        let key_cols = primary_keys
            .iter()
            .map(|k| col(k, "primary key"))
            .collect::<Result<Vec<_>>>()?;
        if key_cols.is_empty() && !value_names.is_empty() {
            return Err(Error::Invalid("merge: table has no primary key".into()));
        }
        if config.engine == MergeEngine::FirstRow && !config.sequence_fields.is_empty() {
            return Err(Error::Invalid(
                "merge: sequence.field is not supported by the first-row merge engine".into(),
            ));
        }
        // Java's sequence comparators cannot compare variants; their JSON text must not stand in
        // (`sequence.field` and the sequence fields of partial-update sequence groups).
        let mut sequence_fields = config.sequence_fields.iter().chain(
            config
                .sequence_groups
                .iter()
                .flat_map(|g| g.sequence_fields.iter()),
        );
        if let Some(f) = sequence_fields.find_map(|name| {
            fields
                .iter()
                .find(|f| &f.name == name && f.data_type.kind == TypeKind::Variant)
        }) {
            return Err(Error::unsupported(
                f.name.as_str(),
                "a VARIANT column as sequence field (variants are not comparable)",
            ));
        }
        let seq_cols = config
            .sequence_fields
            .iter()
            .map(|k| col(k, "sequence.field"))
            .collect::<Result<Vec<_>>>()?;
        // Fields in value-column order.
        let value_fields = value_names
            .iter()
            .map(|n| {
                fields
                    .iter()
                    .find(|f| &f.name == n)
                    .cloned()
                    .ok_or_else(|| {
                        Error::Invalid(format!("merge: column '{n}' is not a table field"))
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        // Without any input batch there is nothing to merge; a schema of the value fields keeps
        // the engines' option checks.
        let schema_for_input = match &input_schema {
            Some(s) => s.clone(),
            None => crate::read::output_schema(&value_fields, crate::read::FileKind::KeyValue),
        };
        let mut input = MergeInput::new(
            schema_for_input,
            &key_cols,
            &seq_cols,
            config.sequence_ascending,
        )?;
        let engine =
            match config.engine {
                MergeEngine::Deduplicate => Engine::Deduplicate,
                MergeEngine::FirstRow => Engine::FirstRow,
                MergeEngine::PartialUpdate => Engine::PartialUpdate(Box::new(
                    PartialUpdateMerge::new(&mut input, &value_fields, primary_keys, &config)?,
                )),
                MergeEngine::Aggregation => Engine::Aggregate(Box::new(AggregateMerge::new(
                    &value_fields,
                    primary_keys,
                    &config,
                )?)),
            };
        let schema = input_schema.map(|s| output_schema(&s, input.value_columns));
        let builder = OutputBuilder::new(input.value_columns);
        Ok(Self {
            merger: SortMerger::new(input, runs),
            engine,
            ignore_delete: config.ignore_delete,
            settings: MergeSettings {
                batch_size: settings.batch_size.max(1),
                ..settings
            },
            schema,
            builder,
            group: Vec::new(),
            sequences: None,
            produced: false,
            done: false,
            failed: false,
        })
    }

    /// Gives `run` its next batch (after [`MergeStep::NeedInput`], or ahead of time).
    pub fn push_batch(&mut self, run: usize, batch: RecordBatch) -> Result<()> {
        self.merger.push(run, batch)
    }

    /// Says that `run` has no further batch.
    pub fn end_run(&mut self, run: usize) -> Result<()> {
        self.merger.end(run)
    }

    /// Number of runs.
    pub fn runs(&self) -> usize {
        self.merger.runs()
    }

    /// Input batches held now (queued or referenced by the merge): at most about one per run
    /// plus those the pending output batch refers to.
    pub fn live_batches(&self) -> usize {
        self.merger.live_batches()
    }

    /// Output schema; `None` when there is no input batch.
    pub fn schema(&self) -> Option<SchemaRef> {
        self.schema.clone()
    }

    /// Also outputs each merged row's `_SEQUENCE_NUMBER` (Int64, before `_VALUE_KIND`), as
    /// Paimon's merge functions give it to a compaction's output: the winner's for deduplicate
    /// and first-row, the latest of the key for partial-update and aggregation.
    pub fn with_sequence_numbers(mut self) -> Self {
        self.schema = self.schema.map(|s| {
            let mut fields = s.fields().to_vec();
            let at = fields.len().saturating_sub(1);
            fields.insert(
                at,
                std::sync::Arc::new(arrow_schema::Field::new(
                    SEQUENCE_NUMBER,
                    arrow_schema::DataType::Int64,
                    false,
                )),
            );
            std::sync::Arc::new(arrow_schema::Schema::new_with_metadata(
                fields,
                s.metadata().clone(),
            ))
        });
        self.sequences = Some(Vec::new());
        self
    }

    /// Merges one key group into the builder.
    fn merge_group(&mut self) -> Result<()> {
        let group = &self.group;
        let input = &self.merger.input;
        let keep = |k: RowKind| k.is_add() || self.settings.keep_deletes;
        let mut pushed = None;
        match &mut self.engine {
            Engine::Deduplicate => {
                if let Some(w) = deduplicate::winner(group, self.ignore_delete) {
                    if keep(w.kind) {
                        self.builder.push_row(w.batch, w.row, w.kind);
                        pushed = Some(w.seq);
                    }
                }
            }
            Engine::FirstRow => {
                if let Some(w) = first_row::winner(group, self.ignore_delete)? {
                    if keep(w.kind) {
                        self.builder.push_row(w.batch, w.row, w.kind);
                        pushed = Some(w.seq);
                    }
                }
            }
            Engine::PartialUpdate(m) => {
                if let [only] = group.as_slice() {
                    if keep(only.kind) {
                        self.builder.push_row(only.batch, only.row, only.kind);
                        pushed = Some(only.seq);
                    }
                } else {
                    let kind = m.merge(input, group)?;
                    if keep(kind) {
                        self.builder.push_cells(m.row_mut(), kind);
                        pushed = group.last().map(|e| e.seq);
                    }
                }
            }
            Engine::Aggregate(m) => {
                if let [only] = group.as_slice() {
                    if keep(only.kind) {
                        self.builder.push_row(only.batch, only.row, only.kind);
                        pushed = Some(only.seq);
                    }
                } else {
                    let kind = m.merge(input, group)?;
                    if keep(kind) {
                        self.builder.push_cells(m.row_mut(), kind);
                        pushed = group.last().map(|e| e.seq);
                    }
                }
            }
        }
        if let (Some(seqs), Some(seq)) = (self.sequences.as_mut(), pushed) {
            seqs.push(seq);
        }
        Ok(())
    }

    /// Merges until an output batch is full, a run needs input or the runs are exhausted.
    pub fn step(&mut self) -> Result<MergeStep> {
        if self.failed {
            return Ok(MergeStep::Done);
        }
        let step = self.try_step();
        if step.is_err() {
            self.failed = true;
        }
        step
    }

    fn try_step(&mut self) -> Result<MergeStep> {
        if self.schema.is_none() {
            return Ok(MergeStep::Done);
        }
        let limit = match self.settings.first_batch_size {
            Some(first) if !self.produced => first.clamp(1, self.settings.batch_size),
            _ => self.settings.batch_size,
        };
        while !self.done && self.builder.len() < limit {
            match self.merger.next_group(&mut self.group)? {
                Step::Group => {
                    self.merge_group()?;
                    // Batches passed by every cursor that no buffered row refers to (e.g. of
                    // keys merged away) go at once.
                    let builder = &self.builder;
                    self.merger.release_passed(|slot| builder.refers_to(slot));
                }
                Step::NeedInput(run) => return Ok(MergeStep::NeedInput(run)),
                Step::End => self.done = true,
            }
        }
        if self.builder.len() == 0 {
            return Ok(MergeStep::Done);
        }
        let batch = self.finish_batch()?;
        self.produced = true;
        // No group is open and the builder is empty: passed batches are no longer needed.
        self.merger.release_passed(|_| false);
        Ok(MergeStep::Batch(batch))
    }

    fn finish_batch(&mut self) -> Result<RecordBatch> {
        let Some(schema) = self.schema.clone() else {
            return Err(Error::Invalid("merge: no input schema".into()));
        };
        let Some(seqs) = self.sequences.as_mut() else {
            return self.builder.finish(&self.merger.input, &schema);
        };
        // The builder assembles the columns without `_SEQUENCE_NUMBER`; it goes in before
        // `_VALUE_KIND`.
        let at = schema.fields().len().saturating_sub(2);
        let mut fields = schema.fields().to_vec();
        fields.remove(at);
        let inner = std::sync::Arc::new(arrow_schema::Schema::new_with_metadata(
            fields,
            schema.metadata().clone(),
        ));
        let batch = self.builder.finish(&self.merger.input, &inner)?;
        let mut columns = batch.columns().to_vec();
        let seq: arrow_array::ArrayRef =
            std::sync::Arc::new(arrow_array::Int64Array::from(std::mem::take(seqs)));
        columns.insert(at, seq);
        RecordBatch::try_new(schema, columns).map_err(arrow_err)
    }
}

/// What [`MergeReader::step`] produced.
#[derive(Debug)]
pub enum MergeStep {
    /// An output batch (at most `batch_size` rows).
    Batch(RecordBatch),
    /// Run `.0` needs its next batch: [`MergeReader::push_batch`] or [`MergeReader::end_run`].
    NeedInput(usize),
    /// Every run is exhausted and every row was output.
    Done,
}

impl Iterator for MergeReader {
    type Item = Result<RecordBatch>;

    /// For merges of whole runs ([`MergeReader::new`]); a streaming merge that needs input
    /// yields an error.
    fn next(&mut self) -> Option<Self::Item> {
        match self.step() {
            Ok(MergeStep::Batch(b)) => Some(Ok(b)),
            Ok(MergeStep::Done) => None,
            Ok(MergeStep::NeedInput(run)) => {
                self.failed = true;
                Some(Err(Error::Invalid(format!(
                    "merge: run {run} needs input that was not given"
                ))))
            }
            Err(e) => Some(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::types::DataType;
    use arrow_schema::{DataType as ArrowType, Field, Schema};
    use std::sync::Arc;

    #[test]
    fn a_variant_sequence_field_is_refused() {
        let field = |id, name: &str, ty: &str| DataField {
            id,
            name: name.into(),
            data_type: DataType::parse(ty).unwrap(),
            description: None,
        };
        let fields = [
            field(0, "k", "INT NOT NULL"),
            field(1, "v", "VARIANT"),
            field(2, "w", "INT"),
        ];
        let schema = Arc::new(Schema::new(vec![
            Field::new("k", ArrowType::Int32, false),
            Field::new("v", ArrowType::Utf8, true),
            Field::new("w", ArrowType::Int32, true),
            Field::new(SEQUENCE_NUMBER, ArrowType::Int64, false),
            Field::new(VALUE_KIND, ArrowType::Int8, false),
        ]));
        let runs = || vec![vec![RecordBatch::new_empty(schema.clone())]];
        let keys = ["k".to_string()];
        let plain = BTreeMap::new();
        assert!(MergeReader::new(runs(), &fields, &keys, &plain, MergeSettings::default()).is_ok());
        for options in [
            vec![("sequence.field", "v")],
            vec![
                ("merge-engine", "partial-update"),
                ("fields.v.sequence-group", "w"),
            ],
        ] {
            let options: BTreeMap<String, String> = options
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let msg = MergeReader::new(runs(), &fields, &keys, &options, MergeSettings::default())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                msg.starts_with("v: unsupported: a VARIANT column as sequence field"),
                "{options:?}: {msg}"
            );
        }
    }
}
