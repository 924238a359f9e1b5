//! K-way merge of sorted runs (min-heap over run cursors; integer keys compared as i64, others as
//! arrow-row bytes), fed batch by batch: a run's next batch is taken only when its cursor reaches
//! the end of the current one, and passed batches are released once the output no longer needs
//! them.

use std::cmp::Ordering;
use std::collections::VecDeque;

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Int16Type, Int32Type, Int64Type, Int8Type};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_buffer::ScalarBuffer;
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType, SchemaRef, SortOptions};

use super::{arrow_err, RowKind};
use crate::{Error, Result};

/// Name of the sequence-number system column.
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
/// Name of the row-kind system column.
pub const VALUE_KIND: &str = "_VALUE_KIND";

/// One input row of a key group: where it is (batch slot, row), its sequence number and row kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    pub batch: u32,
    pub row: u32,
    pub seq: i64,
    pub kind: RowKind,
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

/// Comparable rows of some columns of every live batch slot, from one converter.
pub(crate) struct RowColumns {
    converter: RowConverter,
    columns: Vec<usize>,
    rows: Vec<Rows>,
}

impl RowColumns {
    fn new(schema: &SchemaRef, columns: &[usize], options: SortOptions) -> Result<Self> {
        let fields = columns
            .iter()
            .map(|&c| SortField::new_with_options(schema.field(c).data_type().clone(), options))
            .collect();
        Ok(Self {
            converter: RowConverter::new(fields).map_err(arrow_err)?,
            columns: columns.to_vec(),
            rows: Vec::new(),
        })
    }

    fn convert(&self, batch: &RecordBatch) -> Result<Rows> {
        let cols: Vec<ArrayRef> = self
            .columns
            .iter()
            .map(|&c| batch.column(c).clone())
            .collect();
        self.converter.convert_columns(&cols).map_err(arrow_err)
    }

    fn empty(&self) -> Rows {
        self.converter.empty_rows(0, 0)
    }

    /// The rows of batch slot `slot`.
    #[inline]
    pub fn of(&self, slot: usize) -> &Rows {
        &self.rows[slot]
    }
}

/// Comparable primary keys of every live batch slot.
enum Keys {
    /// A single integer key column (the common case), widened to i64: compared as integers,
    /// which is the order arrow-row gives them.
    Int(Vec<ScalarBuffer<i64>>),
    /// Any other key: arrow-row bytes.
    Rows(RowColumns),
}

impl Keys {
    fn new(schema: &SchemaRef, columns: &[usize]) -> Result<Self> {
        if let &[c] = columns {
            if int_key_type(schema.field(c).data_type()) {
                return Ok(Keys::Int(Vec::new()));
            }
        }
        Ok(Keys::Rows(RowColumns::new(
            schema,
            columns,
            SortOptions::default(),
        )?))
    }

    /// Order of the keys at (slot a, row a) and (slot b, row b).
    #[inline]
    fn cmp(&self, a: (usize, usize), b: (usize, usize)) -> Ordering {
        match self {
            Keys::Int(k) => k[a.0][a.1].cmp(&k[b.0][b.1]),
            Keys::Rows(r) => r.rows[a.0].row(a.1).cmp(&r.rows[b.0].row(b.1)),
        }
    }

    /// The integer key at (slot, row), 0 for arrow-row keys.
    #[inline]
    fn int(&self, slot: usize, row: usize) -> i64 {
        match self {
            Keys::Int(k) => k[slot][row],
            Keys::Rows(_) => 0,
        }
    }
}

fn int_key_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int64 | DataType::Int32 | DataType::Int16 | DataType::Int8 | DataType::Date32
    )
}

/// The integer key column of a batch as i64 (primary keys are never null).
fn int_keys(array: &ArrayRef) -> Result<ScalarBuffer<i64>> {
    if array.null_count() > 0 {
        return Err(Error::Invalid("merge: null primary key".into()));
    }
    fn widen<T: ArrowPrimitiveType>(a: &dyn Array) -> Option<ScalarBuffer<i64>>
    where
        T::Native: Into<i64>,
    {
        let a = a.as_primitive_opt::<T>()?;
        Some(a.values().iter().map(|&v| v.into()).collect())
    }
    let keys = match array.data_type() {
        DataType::Int64 => array
            .as_primitive_opt::<Int64Type>()
            .map(|a| a.values().clone()),
        DataType::Int32 => widen::<Int32Type>(array.as_ref()),
        DataType::Int16 => widen::<Int16Type>(array.as_ref()),
        DataType::Int8 => widen::<Int8Type>(array.as_ref()),
        DataType::Date32 => widen::<Date32Type>(array.as_ref()),
        _ => None,
    };
    keys.ok_or_else(|| {
        Error::Invalid(format!(
            "merge: key column of type {} in a batch",
            array.data_type()
        ))
    })
}

/// The live input batches, in slots (a released slot is reused), with their pre-computed
/// comparison keys, sequence numbers and row kinds.
pub(crate) struct MergeInput {
    /// Batch of every slot (an empty batch in released slots).
    pub batches: Vec<RecordBatch>,
    /// Number of value columns (the batch columns before the two system columns).
    pub value_columns: usize,
    schema: SchemaRef,
    empty: RecordBatch,
    key_columns: Vec<usize>,
    keys: Keys,
    /// Rows of the user sequence fields (`sequence.field`), if any.
    user_seq_rows: Option<RowColumns>,
    /// Further comparable columns engines asked for ([`Self::add_row_columns`]).
    extra_rows: Vec<RowColumns>,
    seqs: Vec<ScalarBuffer<i64>>,
    kinds: Vec<ScalarBuffer<i8>>,
    free: Vec<usize>,
}

impl MergeInput {
    /// Prepares the input of batches with `schema` (value columns, then `_SEQUENCE_NUMBER` and
    /// `_VALUE_KIND`). `key_columns` / `user_seq_columns` index value columns.
    pub fn new(
        schema: SchemaRef,
        key_columns: &[usize],
        user_seq_columns: &[usize],
        user_seq_ascending: bool,
    ) -> Result<Self> {
        let (value_columns, _) = system_columns(&schema)?;
        let keys = Keys::new(&schema, key_columns)?;
        let user_seq_rows = if user_seq_columns.is_empty() {
            None
        } else {
            // Paimon's user sequence comparator: nulls always first, non-null values reversed
            // for a descending order.
            let opts = SortOptions {
                descending: !user_seq_ascending,
                nulls_first: true,
            };
            Some(RowColumns::new(&schema, user_seq_columns, opts)?)
        };
        Ok(Self {
            batches: Vec::new(),
            value_columns,
            empty: RecordBatch::new_empty(schema.clone()),
            schema,
            key_columns: key_columns.to_vec(),
            keys,
            user_seq_rows,
            extra_rows: Vec::new(),
            seqs: Vec::new(),
            kinds: Vec::new(),
            free: Vec::new(),
        })
    }

    /// Also keeps comparable rows of `columns` (ascending, nulls first) for every batch; returns
    /// their id for [`Self::row_columns`]. Call before any batch is added.
    pub fn add_row_columns(&mut self, columns: &[usize]) -> Result<usize> {
        let rows = RowColumns::new(&self.schema, columns, SortOptions::default())?;
        self.extra_rows.push(rows);
        Ok(self.extra_rows.len() - 1)
    }

    /// The rows of [`Self::add_row_columns`]'s id.
    pub fn row_columns(&self, id: usize) -> &RowColumns {
        &self.extra_rows[id]
    }

    /// Number of batches held.
    pub fn live_batches(&self) -> usize {
        self.batches.len() - self.free.len()
    }

    /// Stores a batch in a slot and returns the slot.
    fn add(&mut self, batch: RecordBatch) -> Result<usize> {
        if batch.num_columns() != self.schema.fields().len() {
            return Err(Error::Invalid(
                "merge: input batches have different column counts".into(),
            ));
        }
        let (seq_col, kind_col) = (self.value_columns, self.value_columns + 1);
        let seq = batch
            .column(seq_col)
            .as_primitive_opt::<Int64Type>()
            .ok_or_else(|| Error::Invalid(format!("merge: {SEQUENCE_NUMBER} must be Int64")))?;
        let kind = batch
            .column(kind_col)
            .as_primitive_opt::<Int8Type>()
            .ok_or_else(|| Error::Invalid(format!("merge: {VALUE_KIND} must be Int8")))?;
        if seq.null_count() > 0 || kind.null_count() > 0 {
            return Err(Error::Invalid(format!(
                "merge: null {SEQUENCE_NUMBER} or {VALUE_KIND}"
            )));
        }
        let (seq, kind) = (seq.values().clone(), kind.values().clone());
        let key = match &self.keys {
            Keys::Int(_) => Some(int_keys(batch.column(self.key_columns[0]))?),
            Keys::Rows(_) => None,
        };
        let key_rows = match &self.keys {
            Keys::Rows(r) => Some(r.convert(&batch)?),
            Keys::Int(_) => None,
        };
        let user = match &self.user_seq_rows {
            Some(r) => Some(r.convert(&batch)?),
            None => None,
        };
        let extra = self
            .extra_rows
            .iter()
            .map(|r| r.convert(&batch))
            .collect::<Result<Vec<_>>>()?;
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.batches.push(self.empty.clone());
                self.seqs.push(ScalarBuffer::from(Vec::new()));
                self.kinds.push(ScalarBuffer::from(Vec::new()));
                match &mut self.keys {
                    Keys::Int(k) => k.push(ScalarBuffer::from(Vec::new())),
                    Keys::Rows(r) => r.rows.push(r.empty()),
                }
                if let Some(r) = &mut self.user_seq_rows {
                    r.rows.push(r.empty());
                }
                for r in &mut self.extra_rows {
                    r.rows.push(r.empty());
                }
                self.batches.len() - 1
            }
        };
        self.batches[slot] = batch;
        self.seqs[slot] = seq;
        self.kinds[slot] = kind;
        match (&mut self.keys, key, key_rows) {
            (Keys::Int(k), Some(key), _) => k[slot] = key,
            (Keys::Rows(r), _, Some(rows)) => r.rows[slot] = rows,
            _ => {}
        }
        if let (Some(r), Some(rows)) = (&mut self.user_seq_rows, user) {
            r.rows[slot] = rows;
        }
        for (r, rows) in self.extra_rows.iter_mut().zip(extra) {
            r.rows[slot] = rows;
        }
        Ok(slot)
    }

    /// Frees a slot no cursor, group or pending output row refers to.
    fn release(&mut self, slot: usize) {
        self.batches[slot] = self.empty.clone();
        self.seqs[slot] = ScalarBuffer::from(Vec::new());
        self.kinds[slot] = ScalarBuffer::from(Vec::new());
        match &mut self.keys {
            Keys::Int(k) => k[slot] = ScalarBuffer::from(Vec::new()),
            Keys::Rows(r) => r.rows[slot] = r.empty(),
        }
        if let Some(r) = &mut self.user_seq_rows {
            r.rows[slot] = r.empty();
        }
        for r in &mut self.extra_rows {
            r.rows[slot] = r.empty();
        }
        self.free.push(slot);
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
            let ra = rows.rows[a.batch as usize].row(a.row as usize);
            let rb = rows.rows[b.batch as usize].row(b.row as usize);
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

/// Positions of `_SEQUENCE_NUMBER` and `_VALUE_KIND`, which must be the last two columns.
pub(crate) fn system_columns(schema: &SchemaRef) -> Result<(usize, usize)> {
    let seq = schema.index_of(SEQUENCE_NUMBER).map_err(|_| {
        Error::Invalid(format!(
            "merge: input batch has no {SEQUENCE_NUMBER} column"
        ))
    })?;
    let kind = schema
        .index_of(VALUE_KIND)
        .map_err(|_| Error::Invalid(format!("merge: input batch has no {VALUE_KIND} column")))?;
    let n = schema.fields().len();
    if seq + 2 != n || kind + 1 != n {
        return Err(Error::Invalid(format!(
            "merge: {SEQUENCE_NUMBER} and {VALUE_KIND} must be the last two columns"
        )));
    }
    Ok((seq, kind))
}

/// A run's position: the slot and row of its current row.
#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
    batch: usize,
    row: usize,
    /// Rows of `batch`.
    len: usize,
    /// The integer key of the current row (integer keys only).
    key: i64,
}

/// Batches given for a run and not taken by its cursor yet.
#[derive(Default)]
struct RunInput {
    queue: VecDeque<RecordBatch>,
    ended: bool,
}

/// What [`SortMerger::next_group`] produced.
pub(crate) enum Step {
    /// The next key group is in the output vector.
    Group,
    /// The run's cursor is at the end of its batch: give the run's next batch (or end it).
    NeedInput(usize),
    /// Every run is exhausted.
    End,
}

/// Produces the groups of rows with equal keys, in key order, each sorted in Paimon's order.
pub(crate) struct SortMerger {
    pub input: MergeInput,
    /// One cursor per run (cursor id = run).
    cursors: Vec<Cursor>,
    runs: Vec<RunInput>,
    /// Min-heap of the runs positioned at a row, ordered by (key, run).
    heap: Vec<usize>,
    /// Runs whose cursor needs their next batch (neither in the heap nor exhausted).
    waiting: Vec<usize>,
    /// Slots cursors have passed, released by [`Self::release_passed`].
    passed: Vec<usize>,
    /// The key group being collected: (slot, row, integer key) of its first row.
    collecting: Option<(usize, usize, i64)>,
}

impl SortMerger {
    /// A merge of `runs` sorted runs, all waiting for their first batch.
    pub fn new(input: MergeInput, runs: usize) -> Self {
        Self {
            input,
            cursors: vec![Cursor::default(); runs],
            runs: (0..runs).map(|_| RunInput::default()).collect(),
            heap: Vec::with_capacity(runs),
            waiting: (0..runs).collect(),
            passed: Vec::new(),
            collecting: None,
        }
    }

    /// Number of runs.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Queues the next batch of `run` (empty batches are skipped).
    pub fn push(&mut self, run: usize, batch: RecordBatch) -> Result<()> {
        let input = self.run_input(run)?;
        if input.ended {
            return Err(Error::Invalid(format!(
                "merge: a batch for run {run} after its end"
            )));
        }
        if batch.num_rows() > 0 {
            input.queue.push_back(batch);
        }
        Ok(())
    }

    /// Marks that `run` has no further batch.
    pub fn end(&mut self, run: usize) -> Result<()> {
        self.run_input(run)?.ended = true;
        Ok(())
    }

    fn run_input(&mut self, run: usize) -> Result<&mut RunInput> {
        self.runs
            .get_mut(run)
            .ok_or_else(|| Error::Invalid(format!("merge: no run {run}")))
    }

    /// Batches held: in slots and queued.
    pub fn live_batches(&self) -> usize {
        self.input.live_batches() + self.runs.iter().map(|r| r.queue.len()).sum::<usize>()
    }

    /// Releases the slots every cursor has passed and `kept` does not hold on to; call only
    /// between groups (no group refers to them).
    pub fn release_passed(&mut self, kept: impl Fn(usize) -> bool) {
        let mut i = 0;
        while i < self.passed.len() {
            let slot = self.passed[i];
            if kept(slot) {
                i += 1;
            } else {
                self.input.release(slot);
                self.passed.swap_remove(i);
            }
        }
    }

    /// Moves waiting cursors onto their runs' queued batches; the first run still waiting for
    /// input, if any.
    fn fill(&mut self) -> Result<Option<usize>> {
        let mut i = 0;
        while i < self.waiting.len() {
            let run = self.waiting[i];
            if let Some(batch) = self.runs[run].queue.pop_front() {
                let len = batch.num_rows();
                let slot = self.input.add(batch)?;
                self.cursors[run] = Cursor {
                    batch: slot,
                    row: 0,
                    len,
                    key: self.input.keys.int(slot, 0),
                };
                self.push_heap(run);
                self.waiting.swap_remove(i);
            } else if self.runs[run].ended {
                self.waiting.swap_remove(i);
            } else {
                i += 1;
            }
        }
        Ok(self.waiting.first().copied())
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
            Ordering::Equal => a < b,
        }
    }

    fn push_heap(&mut self, c: usize) {
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

    /// Advances a cursor within its batch; false at the end of the batch.
    #[inline]
    fn advance(&mut self, c: usize) -> bool {
        let cur = &mut self.cursors[c];
        cur.row += 1;
        if cur.row >= cur.len {
            return false;
        }
        cur.key = self.input.keys.int(cur.batch, cur.row);
        true
    }

    /// Whether cursor `c` is at the key of `group` ((slot, row) of the group's first row, and
    /// its integer key).
    #[inline]
    fn at_key(&self, c: usize, group: (usize, usize), group_key: i64) -> bool {
        let cur = &self.cursors[c];
        match &self.input.keys {
            Keys::Int(_) => cur.key == group_key,
            keys => keys.cmp((cur.batch, cur.row), group) == Ordering::Equal,
        }
    }

    /// Fills `out` with the next key group in Paimon's merge order. A group interrupted by
    /// [`Step::NeedInput`] is continued (not restarted) by the next call.
    pub fn next_group(&mut self, out: &mut Vec<Entry>) -> Result<Step> {
        if let Some(run) = self.fill()? {
            return Ok(Step::NeedInput(run));
        }
        let (slot, row, group_key) = match self.collecting {
            Some(group) => group,
            None => {
                out.clear();
                let Some(&first) = self.heap.first() else {
                    return Ok(Step::End);
                };
                let first = self.cursors[first];
                let group = (first.batch, first.row, first.key);
                self.collecting = Some(group);
                group
            }
        };
        let group = (slot, row);
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
                    self.passed.push(cur.batch);
                    self.heap.swap_remove(0);
                    self.sift_down();
                    self.waiting.push(c);
                    if let Some(run) = self.fill()? {
                        return Ok(Step::NeedInput(run));
                    }
                    break;
                }
                if !self.at_key(c, group, group_key) {
                    self.sift_down();
                    break;
                }
            }
        }
        self.collecting = None;
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
        Ok(Step::Group)
    }
}
