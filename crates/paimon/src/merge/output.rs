//! Assembles merged rows into record batches with `interleave` over (batch, row) indices.

use std::sync::Arc;

use arrow_array::{new_null_array, Array, ArrayRef, Int8Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::aggregate::scalar::{build_array, Cell, Scalar};
use super::sort_merge::{MergeInput, VALUE_KIND};
use super::{arrow_err, RowKind};
use crate::Result;

/// Output schema: the value columns of `input_schema` followed by `_VALUE_KIND` Int8.
pub(crate) fn output_schema(input_schema: &Schema, value_columns: usize) -> SchemaRef {
    let mut fields: Vec<Arc<Field>> = input_schema.fields()[..value_columns].to_vec();
    fields.push(Arc::new(Field::new(VALUE_KIND, DataType::Int8, false)));
    Arc::new(Schema::new_with_metadata(
        fields,
        input_schema.metadata().clone(),
    ))
}

/// Accumulates output rows as per-column indices into the inputs (plus computed values).
///
/// While every row of the batch is a whole input row, one index list serves all columns; the
/// per-column lists exist only once a computed row (partial update, aggregation) arrives.
pub(crate) struct OutputBuilder {
    columns: usize,
    /// (source, row) of every row, while all rows are whole input rows.
    shared: Vec<(usize, usize)>,
    /// Per column: (source, row); source = input batch slot, [`NULL_SOURCE`] or
    /// [`OWNED_SOURCE`]. Empty while `shared` is in use.
    indices: Vec<Vec<(usize, usize)>>,
    owned: Vec<Vec<Scalar>>,
    kinds: Vec<i8>,
    /// Whether a buffered row refers to each input batch slot.
    referenced: Vec<bool>,
}

/// Source marker of a null cell.
const NULL_SOURCE: usize = usize::MAX;
/// Source marker of an owned (computed) value.
const OWNED_SOURCE: usize = usize::MAX - 1;

impl OutputBuilder {
    pub fn new(columns: usize) -> Self {
        Self {
            columns,
            shared: Vec::new(),
            indices: Vec::new(),
            owned: vec![Vec::new(); columns],
            kinds: Vec::new(),
            referenced: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether a buffered row refers to input batch slot `slot`.
    pub fn refers_to(&self, slot: usize) -> bool {
        self.referenced.get(slot).copied().unwrap_or(false)
    }

    fn refer(&mut self, slot: usize) {
        if self.referenced.len() <= slot {
            self.referenced.resize(slot + 1, false);
        }
        self.referenced[slot] = true;
    }

    /// Appends a whole input row.
    #[inline]
    pub fn push_row(&mut self, batch: u32, row: u32, kind: RowKind) {
        let idx = (batch as usize, row as usize);
        self.refer(idx.0);
        if self.indices.is_empty() {
            self.shared.push(idx);
        } else {
            for col in &mut self.indices {
                col.push(idx);
            }
        }
        self.kinds.push(kind as i8);
    }

    /// Appends a row given cell by cell (consumes owned values).
    pub fn push_cells(&mut self, cells: &mut [Cell], kind: RowKind) {
        if self.indices.is_empty() {
            self.indices = vec![std::mem::take(&mut self.shared); self.columns];
        }
        for (c, cell) in cells.iter_mut().enumerate() {
            let idx = match std::mem::replace(cell, Cell::Null) {
                Cell::Null | Cell::Owned(Scalar::Null) => (NULL_SOURCE, 0),
                Cell::Pick(b, r) => {
                    self.refer(b as usize);
                    (b as usize, r as usize)
                }
                Cell::Owned(v) => {
                    self.owned[c].push(v);
                    (OWNED_SOURCE, self.owned[c].len() - 1)
                }
            };
            self.indices[c].push(idx);
        }
        self.kinds.push(kind as i8);
    }

    /// Builds the batch and resets the builder.
    pub fn finish(&mut self, input: &MergeInput, schema: &SchemaRef) -> Result<RecordBatch> {
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.columns + 1);
        let per_column = std::mem::take(&mut self.indices);
        for c in 0..self.columns {
            let indices = per_column.get(c).unwrap_or(&self.shared);
            let mut sources: Vec<&dyn Array> =
                input.batches.iter().map(|b| b.column(c).as_ref()).collect();
            if per_column.is_empty() {
                // Only whole input rows: no null or computed source.
                columns.push(
                    arrow_select::interleave::interleave(&sources, indices).map_err(arrow_err)?,
                );
                continue;
            }
            let data_type = schema.field(c).data_type();
            let null = new_null_array(data_type, 1);
            let owned = build_array(data_type, &self.owned[c])?;
            let (null_at, owned_at) = (sources.len(), sources.len() + 1);
            sources.push(null.as_ref());
            sources.push(owned.as_ref());
            let indices: Vec<(usize, usize)> = indices
                .iter()
                .map(|&(s, r)| match s {
                    NULL_SOURCE => (null_at, r),
                    OWNED_SOURCE => (owned_at, r),
                    _ => (s, r),
                })
                .collect();
            columns
                .push(arrow_select::interleave::interleave(&sources, &indices).map_err(arrow_err)?);
            self.owned[c].clear();
        }
        self.shared.clear();
        self.referenced.iter_mut().for_each(|r| *r = false);
        columns.push(Arc::new(Int8Array::from(std::mem::take(&mut self.kinds))));
        RecordBatch::try_new(schema.clone(), columns).map_err(arrow_err)
    }
}
