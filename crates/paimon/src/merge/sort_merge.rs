//! K-way merge of sorted runs (min-heap over run cursors, keys compared as arrow-row bytes).

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int64Type, Int8Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_buffer::ScalarBuffer;
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::SortOptions;

use super::{arrow_err, RowKind};
use crate::{Error, Result};

/// Name of the sequence-number system column.
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
/// Name of the row-kind system column.
pub const VALUE_KIND: &str = "_VALUE_KIND";

/// One input row of a key group: where it is, its sequence number and row kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub batch: u32,
    pub row: u32,
    pub seq: i64,
    pub kind: RowKind,
}

/// All input batches (flattened over runs) with their pre-computed comparison keys.
pub(crate) struct MergeInput {
    pub batches: Vec<RecordBatch>,
    /// Number of value columns (the batch columns before the two system columns).
    pub value_columns: usize,
    key_rows: Vec<Rows>,
    /// Rows of the user sequence fields (`sequence.field`), if any.
    user_seq_rows: Option<Vec<Rows>>,
    seqs: Vec<ScalarBuffer<i64>>,
    kinds: Vec<ScalarBuffer<i8>>,
    /// `[start, end)` global batch ids of every run.
    runs: Vec<(usize, usize)>,
}

/// Converts the given columns of every batch into comparable rows.
pub(crate) fn convert_columns(
    batches: &[RecordBatch],
    columns: &[usize],
    options: SortOptions,
) -> Result<Vec<Rows>> {
    let Some(first) = batches.first() else {
        return Ok(Vec::new());
    };
    let fields = columns
        .iter()
        .map(|&c| SortField::new_with_options(first.column(c).data_type().clone(), options))
        .collect();
    let converter = RowConverter::new(fields).map_err(arrow_err)?;
    batches
        .iter()
        .map(|b| {
            let cols: Vec<ArrayRef> = columns.iter().map(|&c| b.column(c).clone()).collect();
            converter.convert_columns(&cols).map_err(arrow_err)
        })
        .collect()
}

impl MergeInput {
    /// Flattens the runs and converts keys. `key_columns` / `user_seq_columns` index value columns.
    pub fn new(
        runs: Vec<Vec<RecordBatch>>,
        key_columns: &[usize],
        user_seq_columns: &[usize],
        user_seq_ascending: bool,
    ) -> Result<Self> {
        let mut batches = Vec::new();
        let mut ranges = Vec::with_capacity(runs.len());
        for run in runs {
            let start = batches.len();
            batches.extend(run.into_iter().filter(|b| b.num_rows() > 0));
            ranges.push((start, batches.len()));
        }
        let value_columns = match batches.first() {
            Some(b) => system_columns(b)?.0,
            None => 0,
        };
        let mut seqs = Vec::with_capacity(batches.len());
        let mut kinds = Vec::with_capacity(batches.len());
        for b in &batches {
            let (seq_col, kind_col) = system_columns(b)?;
            if seq_col != value_columns {
                return Err(Error::Invalid(
                    "merge: input batches have different column counts".into(),
                ));
            }
            let seq = b.column(seq_col);
            let kind = b.column(kind_col);
            let seq = seq
                .as_primitive_opt::<Int64Type>()
                .ok_or_else(|| Error::Invalid(format!("merge: {SEQUENCE_NUMBER} must be Int64")))?;
            let kind = kind
                .as_primitive_opt::<Int8Type>()
                .ok_or_else(|| Error::Invalid(format!("merge: {VALUE_KIND} must be Int8")))?;
            if seq.null_count() > 0 || kind.null_count() > 0 {
                return Err(Error::Invalid(format!(
                    "merge: null {SEQUENCE_NUMBER} or {VALUE_KIND}"
                )));
            }
            seqs.push(seq.values().clone());
            kinds.push(kind.values().clone());
        }
        let key_rows = convert_columns(&batches, key_columns, SortOptions::default())?;
        let user_seq_rows = if user_seq_columns.is_empty() {
            None
        } else {
            // Paimon's user sequence comparator: nulls always first, non-null values reversed
            // for a descending order.
            let opts = SortOptions {
                descending: !user_seq_ascending,
                nulls_first: true,
            };
            Some(convert_columns(&batches, user_seq_columns, opts)?)
        };
        Ok(Self {
            batches,
            value_columns,
            key_rows,
            user_seq_rows,
            seqs,
            kinds,
            runs: ranges,
        })
    }

    fn entry(&self, batch: usize, row: usize) -> Result<Entry> {
        let raw = self.kinds[batch][row];
        let kind = RowKind::from_i8(raw)
            .ok_or_else(|| Error::Invalid(format!("merge: invalid {VALUE_KIND} {raw}")))?;
        Ok(Entry {
            batch: batch as u32,
            row: row as u32,
            seq: self.seqs[batch][row],
            kind,
        })
    }

    /// Paimon's order of rows with the same key: user sequence, `_SEQUENCE_NUMBER`, retract
    /// before add.
    fn order(&self, a: &Entry, b: &Entry) -> Ordering {
        if let Some(rows) = &self.user_seq_rows {
            let ra = rows[a.batch as usize].row(a.row as usize);
            let rb = rows[b.batch as usize].row(b.row as usize);
            let c = ra.cmp(&rb);
            if c != Ordering::Equal {
                return c;
            }
        }
        a.seq
            .cmp(&b.seq)
            .then(a.kind.is_add().cmp(&b.kind.is_add()))
    }
}

fn system_columns(b: &RecordBatch) -> Result<(usize, usize)> {
    let schema = b.schema();
    let seq = schema.index_of(SEQUENCE_NUMBER).map_err(|_| {
        Error::Invalid(format!(
            "merge: input batch has no {SEQUENCE_NUMBER} column"
        ))
    })?;
    let kind = schema
        .index_of(VALUE_KIND)
        .map_err(|_| Error::Invalid(format!("merge: input batch has no {VALUE_KIND} column")))?;
    if seq + 2 != b.num_columns() || kind + 1 != b.num_columns() {
        return Err(Error::Invalid(format!(
            "merge: {SEQUENCE_NUMBER} and {VALUE_KIND} must be the last two columns"
        )));
    }
    Ok((seq, kind))
}

#[derive(Debug, Clone, Copy)]
struct Cursor {
    batch: usize,
    end: usize,
    row: usize,
    run: usize,
}

/// Produces the groups of rows with equal keys, in key order, each sorted in Paimon's order.
pub(crate) struct SortMerger {
    pub input: MergeInput,
    cursors: Vec<Cursor>,
    /// Min-heap of cursor ids.
    heap: Vec<usize>,
}

impl SortMerger {
    pub fn new(input: MergeInput) -> Self {
        let mut cursors = Vec::new();
        for (run, &(start, end)) in input.runs.iter().enumerate() {
            if start < end {
                cursors.push(Cursor {
                    batch: start,
                    end,
                    row: 0,
                    run,
                });
            }
        }
        let mut this = Self {
            input,
            heap: Vec::with_capacity(cursors.len()),
            cursors,
        };
        for i in 0..this.cursors.len() {
            this.push(i);
        }
        this
    }

    fn less(&self, a: usize, b: usize) -> bool {
        let (ca, cb) = (&self.cursors[a], &self.cursors[b]);
        let ka = self.input.key_rows[ca.batch].row(ca.row);
        let kb = self.input.key_rows[cb.batch].row(cb.row);
        match ka.cmp(&kb) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => ca.run < cb.run,
        }
    }

    fn push(&mut self, c: usize) {
        self.heap.push(c);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let p = (i - 1) / 2;
            if self.less(self.heap[i], self.heap[p]) {
                self.heap.swap(i, p);
                i = p;
            } else {
                break;
            }
        }
    }

    fn pop(&mut self) -> Option<usize> {
        if self.heap.is_empty() {
            return None;
        }
        let top = self.heap.swap_remove(0);
        let n = self.heap.len();
        let mut i = 0;
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut m = i;
            if l < n && self.less(self.heap[l], self.heap[m]) {
                m = l;
            }
            if r < n && self.less(self.heap[r], self.heap[m]) {
                m = r;
            }
            if m == i {
                break;
            }
            self.heap.swap(i, m);
            i = m;
        }
        Some(top)
    }

    /// Advances a cursor; false when its run is exhausted.
    fn advance(&mut self, c: usize) -> bool {
        let cur = &mut self.cursors[c];
        cur.row += 1;
        if cur.row >= self.input.batches[cur.batch].num_rows() {
            cur.row = 0;
            cur.batch += 1;
        }
        cur.batch < cur.end
    }

    /// Fills `out` with the next key group in Paimon's merge order; false at the end.
    pub fn next_group(&mut self, out: &mut Vec<Entry>) -> Result<bool> {
        out.clear();
        let Some(first) = self.pop() else {
            return Ok(false);
        };
        let (kb, kr) = (self.cursors[first].batch, self.cursors[first].row);
        let mut next = Some(first);
        while let Some(c) = next {
            // Take every row of this cursor with the group key (a run may repeat a key).
            loop {
                let cur = self.cursors[c];
                out.push(self.input.entry(cur.batch, cur.row)?);
                if !self.advance(c) {
                    break;
                }
                let cur = self.cursors[c];
                let same =
                    self.input.key_rows[cur.batch].row(cur.row) == self.input.key_rows[kb].row(kr);
                if !same {
                    self.push(c);
                    break;
                }
            }
            next = match self.heap.first() {
                Some(&top) => {
                    let cur = self.cursors[top];
                    if self.input.key_rows[cur.batch].row(cur.row)
                        == self.input.key_rows[kb].row(kr)
                    {
                        self.pop()
                    } else {
                        None
                    }
                }
                None => None,
            };
        }
        if out.len() > 1 {
            let input = &self.input;
            out.sort_by(|a, b| input.order(a, b));
        }
        Ok(true)
    }
}
