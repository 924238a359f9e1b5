//! Evaluation on Arrow batches: the exact row-level filter (NULL results drop the row).

use super::unbound::literal_text;
use super::{BoundLeaf, BoundPredicate, Node, Op};
use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;
use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, RecordBatch, Scalar, StringArray,
    Time64MicrosecondArray, TimestampMicrosecondArray, TimestampNanosecondArray,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use std::sync::Arc;

impl BoundPredicate {
    /// Evaluates the predicate on every row of `batch`; `column_of` gives the batch column of a
    /// field id. NULL results are NULL in the returned array.
    pub fn evaluate(
        &self,
        batch: &RecordBatch,
        column_of: &dyn Fn(i32) -> Option<usize>,
    ) -> Result<BooleanArray> {
        eval_node(&self.node, batch, column_of)
    }

    /// Keeps the rows of `batch` where the predicate is TRUE.
    pub fn filter(
        &self,
        batch: &RecordBatch,
        column_of: &dyn Fn(i32) -> Option<usize>,
    ) -> Result<RecordBatch> {
        let mask = self.evaluate(batch, column_of)?;
        if mask.true_count() == batch.num_rows() {
            return Ok(batch.clone());
        }
        arrow_select::filter::filter_record_batch(batch, &mask)
            .map_err(|e| Error::Invalid(format!("applying filter: {e}")))
    }
}

fn eval_node(
    node: &Node,
    batch: &RecordBatch,
    column_of: &dyn Fn(i32) -> Option<usize>,
) -> Result<BooleanArray> {
    match node {
        Node::Leaf(leaf) => {
            let idx = column_of(leaf.field_id).ok_or_else(|| {
                Error::Invalid(format!(
                    "filter column '{}' (field id {}) is not in the rows read",
                    leaf.name, leaf.field_id
                ))
            })?;
            eval_leaf(leaf, batch.column(idx))
        }
        Node::And(v) | Node::Or(v) => {
            let is_and = matches!(node, Node::And(_));
            let mut acc: Option<BooleanArray> = None;
            for n in v {
                let next = eval_node(n, batch, column_of)?;
                acc = Some(match acc {
                    None => next,
                    Some(a) => kleene(&a, &next, is_and),
                });
            }
            Ok(acc.unwrap_or_else(|| BooleanArray::from(vec![is_and; batch.num_rows()])))
        }
        Node::Not(n) => {
            let a = eval_node(n, batch, column_of)?;
            Ok(a.iter().map(|v| v.map(|b| !b)).collect())
        }
    }
}

fn kleene(a: &BooleanArray, b: &BooleanArray, is_and: bool) -> BooleanArray {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| {
            let dominant = !is_and; // AND: false dominates; OR: true dominates.
            match (x, y) {
                (Some(v), _) | (_, Some(v)) if v == dominant => Some(dominant),
                (Some(x), Some(y)) => Some(if is_and { x && y } else { x || y }),
                _ => None,
            }
        })
        .collect()
}

fn eval_leaf(leaf: &BoundLeaf, col: &ArrayRef) -> Result<BooleanArray> {
    let n = col.len();
    let nulls = col.logical_nulls();
    let is_null = |i: usize| nulls.as_ref().is_some_and(|b| b.is_null(i));
    match leaf.op {
        Op::IsNull => return Ok((0..n).map(|i| Some(is_null(i))).collect()),
        Op::IsNotNull => return Ok((0..n).map(|i| Some(!is_null(i))).collect()),
        Op::StartsWith => {
            let Some(Datum::String(p)) = leaf.literals.first() else {
                return Ok(BooleanArray::new_null(n));
            };
            let strings = col.as_string_opt::<i32>().ok_or_else(|| {
                Error::Invalid(format!(
                    "filter column '{}' is not a string column",
                    leaf.name
                ))
            })?;
            return Ok(strings
                .iter()
                .map(|v| v.map(|s| s.starts_with(p.as_str())))
                .collect());
        }
        Op::In | Op::NotIn => {
            let has_null = leaf.literals.iter().any(Datum::is_null);
            let mut acc: Option<BooleanArray> = None;
            for lit in leaf.literals.iter().filter(|l| !l.is_null()) {
                let eq = compare(leaf, col, Op::Eq, lit)?;
                acc = Some(match acc {
                    None => eq,
                    Some(a) => kleene(&a, &eq, false),
                });
            }
            let hit = acc.unwrap_or_else(|| BooleanArray::from(vec![false; n]));
            let out: BooleanArray = hit
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    _ if is_null(i) => None,
                    Some(true) => Some(leaf.op == Op::In),
                    _ if has_null => None,
                    _ => Some(leaf.op == Op::NotIn),
                })
                .collect();
            return Ok(out);
        }
        _ => {}
    }
    match leaf.literals.first() {
        Some(lit) if !lit.is_null() => compare(leaf, col, leaf.op, lit),
        _ => Ok(BooleanArray::new_null(n)),
    }
}

fn compare(leaf: &BoundLeaf, col: &ArrayRef, op: Op, lit: &Datum) -> Result<BooleanArray> {
    let scalar = Scalar::new(literal_array(lit, col.data_type(), &leaf.name)?);
    let r = match op {
        Op::Eq => arrow_ord::cmp::eq(col, &scalar),
        Op::NotEq => arrow_ord::cmp::neq(col, &scalar),
        Op::Lt => arrow_ord::cmp::lt(col, &scalar),
        Op::LtEq => arrow_ord::cmp::lt_eq(col, &scalar),
        Op::Gt => arrow_ord::cmp::gt(col, &scalar),
        Op::GtEq => arrow_ord::cmp::gt_eq(col, &scalar),
        _ => {
            return Err(Error::Invalid(format!(
                "filter on '{}': {} is not a comparison",
                leaf.name,
                op.symbol()
            )))
        }
    };
    r.map_err(|e| {
        Error::Invalid(format!(
            "filter {} {} {}: {e}",
            leaf.name,
            op.symbol(),
            literal_text(lit)
        ))
    })
}

/// A one-element array of `ty` holding `lit` (already coerced to the column type).
fn literal_array(lit: &Datum, ty: &ArrowType, column: &str) -> Result<ArrayRef> {
    let nanos = |millis: i64, nanos_of_milli: i32| {
        i128::from(millis) * 1_000_000 + i128::from(nanos_of_milli)
    };
    let arr: Option<ArrayRef> = match (lit, ty) {
        (Datum::Boolean(v), ArrowType::Boolean) => Some(Arc::new(BooleanArray::from(vec![*v]))),
        (Datum::TinyInt(v), ArrowType::Int8) => Some(Arc::new(Int8Array::from(vec![*v]))),
        (Datum::SmallInt(v), ArrowType::Int16) => Some(Arc::new(Int16Array::from(vec![*v]))),
        (Datum::Int(v), ArrowType::Int32) => Some(Arc::new(Int32Array::from(vec![*v]))),
        (Datum::BigInt(v), ArrowType::Int64) => Some(Arc::new(Int64Array::from(vec![*v]))),
        (Datum::Float(v), ArrowType::Float32) => Some(Arc::new(Float32Array::from(vec![*v]))),
        (Datum::Double(v), ArrowType::Float64) => Some(Arc::new(Float64Array::from(vec![*v]))),
        (
            Datum::Decimal {
                unscaled, scale, ..
            },
            ArrowType::Decimal128(p, s),
        ) if i16::from(*scale) == i16::from(*s) => Decimal128Array::from(vec![*unscaled])
            .with_precision_and_scale(*p, *s)
            .ok()
            .map(|a| Arc::new(a) as ArrayRef),
        (Datum::String(v), ArrowType::Utf8) => Some(Arc::new(StringArray::from(vec![v.as_str()]))),
        (Datum::Binary(v), ArrowType::Binary) => {
            Some(Arc::new(BinaryArray::from(vec![v.as_slice()])))
        }
        (Datum::Date(v), ArrowType::Date32) => Some(Arc::new(Date32Array::from(vec![*v]))),
        (Datum::Time(ms), ArrowType::Time64(TimeUnit::Microsecond)) => {
            Some(Arc::new(Time64MicrosecondArray::from(vec![
                i64::from(*ms) * 1000,
            ])))
        }
        (
            Datum::Timestamp {
                millis,
                nanos_of_milli,
            }
            | Datum::LocalZonedTimestamp {
                millis,
                nanos_of_milli,
            },
            ArrowType::Timestamp(unit, tz),
        ) => {
            let ns = nanos(*millis, *nanos_of_milli);
            match unit {
                TimeUnit::Microsecond => i64::try_from(ns / 1000).ok().map(|v| {
                    Arc::new(TimestampMicrosecondArray::from(vec![v]).with_timezone_opt(tz.clone()))
                        as ArrayRef
                }),
                TimeUnit::Nanosecond => i64::try_from(ns).ok().map(|v| {
                    Arc::new(TimestampNanosecondArray::from(vec![v]).with_timezone_opt(tz.clone()))
                        as ArrayRef
                }),
                _ => None,
            }
        }
        _ => None,
    };
    arr.ok_or_else(|| {
        Error::Invalid(format!(
            "filter on column '{column}': literal {} cannot be compared with {ty} values",
            literal_text(lit)
        ))
    })
}
