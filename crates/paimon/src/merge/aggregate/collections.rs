//! Aggregators over nested values: collect (ARRAY), merge_map (MAP), nested_update (ARRAY<ROW>).
//!
//! Paimon builds these with Java hash sets/maps (unspecified order); here the order is the
//! first-insertion order, which is deterministic.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, ListArray, MapArray, StructArray, UInt32Array};
use arrow_buffer::OffsetBuffer;
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::DataType;

use super::scalar::{Cell, Scalar};
use super::Col;
use crate::merge::arrow_err;
use crate::{Error, Result};

fn nested(cx: &Col<'_>, cell: &Cell) -> Option<ArrayRef> {
    match cx.scalar(cell) {
        Scalar::Nested(a) if a.is_valid(0) => Some(a),
        _ => None,
    }
}

fn column_type(cx: &Col<'_>) -> Result<DataType> {
    cx.input
        .batches
        .first()
        .map(|b| b.column(cx.column).data_type().clone())
        .ok_or_else(|| Error::Invalid("merge: no input".into()))
}

/// Elements of a length-1 list array.
fn list_values(a: &ArrayRef) -> Result<ArrayRef> {
    let list = a
        .as_list_opt::<i32>()
        .ok_or_else(|| Error::Invalid(format!("merge: expected a List, got {}", a.data_type())))?;
    Ok(list.value(0))
}

fn make_list(data_type: &DataType, values: ArrayRef) -> Result<Cell> {
    let DataType::List(field) = data_type else {
        return Err(Error::Invalid(format!(
            "merge: expected a List column, got {data_type}"
        )));
    };
    let offsets = OffsetBuffer::from_lengths([values.len()]);
    let list = ListArray::try_new(field.clone(), offsets, values, None).map_err(arrow_err)?;
    Ok(Cell::Owned(Scalar::Nested(Arc::new(list))))
}

fn concat_values(parts: &[ArrayRef]) -> Result<ArrayRef> {
    let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    arrow_select::concat::concat(&refs).map_err(arrow_err)
}

fn rows_of(columns: &[ArrayRef]) -> Result<Rows> {
    let fields = columns
        .iter()
        .map(|c| SortField::new(c.data_type().clone()))
        .collect();
    let conv = RowConverter::new(fields).map_err(arrow_err)?;
    conv.convert_columns(columns).map_err(arrow_err)
}

fn take(values: &ArrayRef, idx: &[u32]) -> Result<ArrayRef> {
    let idx = UInt32Array::from(idx.to_vec());
    arrow_select::take::take(values.as_ref(), &idx, None).map_err(arrow_err)
}

/// `collect`: concatenates the arrays; with `distinct`, keeps first occurrences only.
pub(crate) fn collect(cx: &Col<'_>, acc: &Cell, input: &Cell, distinct: bool) -> Result<Cell> {
    let data_type = column_type(cx)?;
    let mut parts = Vec::new();
    for c in [acc, input] {
        if let Some(a) = nested(cx, c) {
            parts.push(list_values(&a)?);
        }
    }
    if parts.is_empty() {
        return Ok(Cell::Null);
    }
    let values = concat_values(&parts)?;
    if !distinct || values.is_empty() {
        return make_list(&data_type, values);
    }
    let rows = rows_of(std::slice::from_ref(&values))?;
    let mut keep: Vec<u32> = Vec::new();
    for i in 0..rows.num_rows() {
        if !keep.iter().any(|&k| rows.row(k as usize) == rows.row(i)) {
            keep.push(i as u32);
        }
    }
    make_list(&data_type, take(&values, &keep)?)
}

/// `collect` retraction: removes one occurrence per retracted element.
pub(crate) fn collect_retract(cx: &Col<'_>, acc: &Cell, input: &Cell) -> Result<Cell> {
    let data_type = column_type(cx)?;
    let (Some(a), Some(r)) = (nested(cx, acc), nested(cx, input)) else {
        return Ok(acc.clone());
    };
    let (av, rv) = (list_values(&a)?, list_values(&r)?);
    if rv.is_empty() {
        return Ok(acc.clone());
    }
    let n = av.len();
    let all = concat_values(&[av.clone(), rv])?;
    let rows = rows_of(std::slice::from_ref(&all))?;
    let mut retract: Vec<usize> = (n..all.len()).collect();
    let mut keep = Vec::new();
    for i in 0..n {
        if let Some(p) = retract.iter().position(|&j| rows.row(j) == rows.row(i)) {
            retract.remove(p);
        } else {
            keep.push(i as u32);
        }
    }
    make_list(&data_type, take(&av, &keep)?)
}

fn map_entries(a: &ArrayRef) -> Result<StructArray> {
    let map = a
        .as_map_opt()
        .ok_or_else(|| Error::Invalid(format!("merge: expected a Map, got {}", a.data_type())))?;
    Ok(map.value(0))
}

fn make_map(data_type: &DataType, entries: ArrayRef) -> Result<Cell> {
    let DataType::Map(field, ordered) = data_type else {
        return Err(Error::Invalid(format!(
            "merge: expected a Map column, got {data_type}"
        )));
    };
    let entries = entries.as_struct().clone();
    let offsets = OffsetBuffer::from_lengths([entries.len()]);
    let map =
        MapArray::try_new(field.clone(), offsets, entries, None, *ordered).map_err(arrow_err)?;
    Ok(Cell::Owned(Scalar::Nested(Arc::new(map))))
}

/// `merge_map`: later entries replace earlier ones with the same key.
pub(crate) fn merge_map(cx: &Col<'_>, acc: &Cell, input: &Cell) -> Result<Cell> {
    let data_type = column_type(cx)?;
    let (Some(a), Some(i)) = (nested(cx, acc), nested(cx, input)) else {
        return Ok(if acc.is_null() {
            input.clone()
        } else {
            acc.clone()
        });
    };
    let entries: ArrayRef = Arc::new(map_entries(&a)?);
    let more: ArrayRef = Arc::new(map_entries(&i)?);
    let all = concat_values(&[entries, more])?;
    let keys = all.as_struct().column(0).clone();
    let rows = rows_of(&[keys])?;
    let mut idx: Vec<u32> = Vec::new();
    for j in 0..rows.num_rows() {
        match idx
            .iter()
            .position(|&k| rows.row(k as usize) == rows.row(j))
        {
            Some(p) => idx[p] = j as u32,
            None => idx.push(j as u32),
        }
    }
    make_map(&data_type, take(&all, &idx)?)
}

/// `merge_map` retraction: removes the retracted keys.
pub(crate) fn merge_map_retract(cx: &Col<'_>, acc: &Cell, input: &Cell) -> Result<Cell> {
    let data_type = column_type(cx)?;
    let (Some(a), Some(r)) = (nested(cx, acc), nested(cx, input)) else {
        return Ok(acc.clone());
    };
    let entries: ArrayRef = Arc::new(map_entries(&a)?);
    let retract: ArrayRef = Arc::new(map_entries(&r)?);
    if retract.is_empty() {
        return Ok(acc.clone());
    }
    let n = entries.len();
    let all = concat_values(&[entries.clone(), retract])?;
    let rows = rows_of(&[all.as_struct().column(0).clone()])?;
    let keep: Vec<u32> = (0..n)
        .filter(|&i| !(n..all.len()).any(|j| rows.row(j) == rows.row(i)))
        .map(|i| i as u32)
        .collect();
    make_map(&data_type, take(&entries, &keep)?)
}

/// Key rows of nested ROW elements (the whole row when `keys` is empty).
fn element_keys(values: &ArrayRef, keys: &[usize]) -> Result<Rows> {
    let s = values.as_struct_opt().ok_or_else(|| {
        Error::Invalid(format!(
            "merge: nested_update expects ARRAY<ROW>, got {}",
            values.data_type()
        ))
    })?;
    let cols: Vec<ArrayRef> = if keys.is_empty() {
        s.columns().to_vec()
    } else {
        keys.iter().map(|&k| s.column(k).clone()).collect()
    };
    rows_of(&cols)
}

/// `nested_update`: appends rows, or with `nested-key` replaces rows with the same key.
pub(crate) fn nested_update(
    cx: &Col<'_>,
    acc: &Cell,
    input: &Cell,
    keys: &[usize],
) -> Result<Cell> {
    let data_type = column_type(cx)?;
    let mut parts = Vec::new();
    for c in [acc, input] {
        if let Some(a) = nested(cx, c) {
            parts.push(list_values(&a)?);
        }
    }
    let all = concat_values(&parts)?;
    let valid = |i: usize| all.is_valid(i);
    let mut idx: Vec<u32> = Vec::new();
    if keys.is_empty() {
        idx.extend((0..all.len()).filter(|&i| valid(i)).map(|i| i as u32));
    } else {
        let rows = element_keys(&all, keys)?;
        for j in (0..all.len()).filter(|&i| valid(i)) {
            match idx
                .iter()
                .position(|&k| rows.row(k as usize) == rows.row(j))
            {
                Some(p) => idx[p] = j as u32,
                None => idx.push(j as u32),
            }
        }
    }
    make_list(&data_type, take(&all, &idx)?)
}

/// `nested_update` retraction: removes equal rows (or rows with the same key).
pub(crate) fn nested_update_retract(
    cx: &Col<'_>,
    acc: &Cell,
    input: &Cell,
    keys: &[usize],
) -> Result<Cell> {
    let data_type = column_type(cx)?;
    let (Some(a), Some(r)) = (nested(cx, acc), nested(cx, input)) else {
        return Ok(acc.clone());
    };
    let (av, rv) = (list_values(&a)?, list_values(&r)?);
    let n = av.len();
    let all = concat_values(&[av.clone(), rv])?;
    let rows = element_keys(&all, keys)?;
    let keep: Vec<u32> = (0..n)
        .filter(|&i| all.is_valid(i))
        .filter(|&i| {
            !(n..all.len())
                .filter(|&j| all.is_valid(j))
                .any(|j| rows.row(j) == rows.row(i))
        })
        .map(|i| i as u32)
        .collect();
    make_list(&data_type, take(&av, &keep)?)
}
