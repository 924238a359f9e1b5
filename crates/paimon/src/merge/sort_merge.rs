//! K-way merge of sorted runs (min-heap over run cursors; integer keys compared as i64, others as arrow-row bytes).

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_buffer::ScalarBuffer;
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType, SortOptions};

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
    keys: Keys,
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

/// Comparable primary keys of every input batch.
enum Keys {
    /// A single integer key column without nulls (the common case), widened to i64: compared
    /// as integers, which is the order arrow-row gives them.
    Int(Vec<ScalarBuffer<i64>>),
    /// Any other key: arrow-row bytes.
    Rows(Vec<Rows>),
}

impl Keys {
    fn new(batches: &[RecordBatch], columns: &[usize]) -> Result<Self> {
        if let Some(ints) = int_keys(batches, columns) {
            return Ok(Keys::Int(ints));
        }
        Ok(Keys::Rows(convert_columns(
            batches,
            columns,
            SortOptions::default(),
        )?))
    }

    /// Order of the keys at (batch a, row a) and (batch b, row b).
    #[inline]
    fn cmp(&self, a: (usize, usize), b: (usize, usize)) -> Ordering {
        match self {
            Keys::Int(k) => k[a.0][a.1].cmp(&k[b.0][b.1]),
            Keys::Rows(r) => r[a.0].row(a.1).cmp(&r[b.0].row(b.1)),
        }
    }

    /// The integer key at (batch, row), 0 for arrow-row keys.
    #[inline]
    fn int(&self, batch: usize, row: usize) -> i64 {
        match self {
            Keys::Int(k) => k[batch][row],
            Keys::Rows(_) => 0,
        }
    }
}

/// The single key column of every batch as i64, when it is a null-free integer column.
fn int_keys(batches: &[RecordBatch], columns: &[usize]) -> Option<Vec<ScalarBuffer<i64>>> {
    let &[column] = columns else {
        return None;
    };
    batches
        .iter()
        .map(|b| {
            let array = b.column(column);
            if array.null_count() > 0 {
                return None;
            }
            fn widen<T: ArrowPrimitiveType>(a: &dyn Array) -> Option<ScalarBuffer<i64>>
            where
                T::Native: Into<i64>,
            {
                let a = a.as_primitive_opt::<T>()?;
                Some(a.values().iter().map(|&v| v.into()).collect())
            }
            match array.data_type() {
                DataType::Int64 => Some(array.as_primitive_opt::<Int64Type>()?.values().clone()),
                DataType::Int32 => widen::<Int32Type>(array.as_ref()),
                DataType::Int16 => widen::<Int16Type>(array.as_ref()),
                DataType::Int8 => widen::<Int8Type>(array.as_ref()),
                DataType::Date32 => widen::<Date32Type>(array.as_ref()),
                _ => None,
            }
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
        let keys = Keys::new(&batches, key_columns)?;
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
            keys,
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
    /// Rows of `batch`.
    len: usize,
    run: usize,
    /// The integer key of the current row (integer keys only).
    key: i64,
}

/// Produces the groups of rows with equal keys, in key order, each sorted in Paimon's order.
pub(crate) struct SortMerger {
    pub input: MergeInput,
    cursors: Vec<Cursor>,
    /// Min-heap of cursor ids, ordered by (key, run).
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
                    len: input.batches[start].num_rows(),
                    run,
                    key: input.keys.int(start, 0),
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

    #[inline]
    fn less(&self, a: usize, b: usize) -> bool {
        let (ca, cb) = (&self.cursors[a], &self.cursors[b]);
        let by_key = match &self.input.keys {
            Keys::Int(_) => ca.key.cmp(&cb.key),
            keys => keys.cmp((ca.batch, ca.row), (cb.batch, cb.row)),
        };
        match by_key {
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

    /// Restores the heap order after the top cursor moved on.
    fn sift_down(&mut self) {
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
    }

    /// Advances a cursor; false when its run is exhausted.
    #[inline]
    fn advance(&mut self, c: usize) -> bool {
        let cur = &mut self.cursors[c];
        cur.row += 1;
        if cur.row >= cur.len {
            cur.row = 0;
            cur.batch += 1;
            if cur.batch >= cur.end {
                return false;
            }
            cur.len = self.input.batches[cur.batch].num_rows();
        }
        cur.key = self.input.keys.int(cur.batch, cur.row);
        true
    }

    /// Whether cursor `c` is at the key of `group` ((batch, row) of the group's first row, and
    /// its integer key).
    #[inline]
    fn at_key(&self, c: usize, group: (usize, usize), group_key: i64) -> bool {
        let cur = &self.cursors[c];
        match &self.input.keys {
            Keys::Int(_) => cur.key == group_key,
            keys => keys.cmp((cur.batch, cur.row), group) == Ordering::Equal,
        }
    }

    /// Fills `out` with the next key group in Paimon's merge order; false at the end.
    pub fn next_group(&mut self, out: &mut Vec<Entry>) -> Result<bool> {
        out.clear();
        let Some(&first) = self.heap.first() else {
            return Ok(false);
        };
        let first = self.cursors[first];
        let group = (first.batch, first.row);
        let group_key = first.key;
        // Cursors leave the heap top in (key, run) order; take every row of the group key from
        // each (a run may repeat a key).
        while let Some(&c) = self.heap.first() {
            if !self.at_key(c, group, group_key) {
                break;
            }
            loop {
                let cur = self.cursors[c];
                out.push(self.input.entry(cur.batch, cur.row)?);
                if !self.advance(c) {
                    self.heap.swap_remove(0);
                    self.sift_down();
                    break;
                }
                if !self.at_key(c, group, group_key) {
                    self.sift_down();
                    break;
                }
            }
        }
        match out.as_mut_slice() {
            [] | [_] => {}
            [a, b] => {
                // A stable sort of two.
                if self.input.order(b, a) == Ordering::Less {
                    std::mem::swap(a, b);
                }
            }
            many => {
                let input = &self.input;
                many.sort_by(|a, b| input.order(a, b));
            }
        }
        Ok(true)
    }
}
