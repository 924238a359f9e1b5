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
    /// Per column: (source, row); source < n = input batch, n = null, n + 1 = owned values.
    /// Empty while `shared` is in use.
    indices: Vec<Vec<(usize, usize)>>,
    owned: Vec<Vec<Scalar>>,
    kinds: Vec<i8>,
    null_source: usize,
}

impl OutputBuilder {
    pub fn new(columns: usize, batches: usize) -> Self {
        Self {
            columns,
            shared: Vec::new(),
            indices: Vec::new(),
            owned: vec![Vec::new(); columns],
            kinds: Vec::new(),
            null_source: batches,
        }
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Appends a whole input row.
    #[inline]
    pub fn push_row(&mut self, batch: u32, row: u32, kind: RowKind) {
        let idx = (batch as usize, row as usize);
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
                Cell::Null | Cell::Owned(Scalar::Null) => (self.null_source, 0),
                Cell::Pick(b, r) => (b as usize, r as usize),
                Cell::Owned(v) => {
                    self.owned[c].push(v);
                    (self.null_source + 1, self.owned[c].len() - 1)
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
            sources.push(null.as_ref());
            sources.push(owned.as_ref());
            columns
                .push(arrow_select::interleave::interleave(&sources, indices).map_err(arrow_err)?);
            self.owned[c].clear();
        }
        self.shared.clear();
        columns.push(Arc::new(Int8Array::from(std::mem::take(&mut self.kinds))));
        RecordBatch::try_new(schema.clone(), columns).map_err(arrow_err)
    }
}
