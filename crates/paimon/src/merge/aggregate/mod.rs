//! Paimon's field aggregators (`fields.<f>.aggregate-function`) and the aggregation engine.

pub(crate) mod collections;
pub(crate) mod scalar;
pub(crate) mod sketch;

use std::cmp::Ordering;

use arrow_array::Array;

use self::scalar::{Cell, Scalar};
use super::config::MergeConfig;
use super::sort_merge::{Entry, MergeInput};
use crate::spec::types::{DataField, TypeKind};
use crate::{Error, Result};

/// The aggregate functions Paimon ships. Not supported: `rbm64` (Paimon's Java-only serialized
/// layout, see [`sketch`]), `merge_map_with_keytime` and `nested_partial_update`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AggKind {
    Sum,
    Product,
    Max,
    Min,
    LastValue,
    LastNonNullValue,
    FirstValue,
    FirstNonNullValue,
    Listagg {
        delimiter: String,
        distinct: bool,
    },
    BoolAnd,
    BoolOr,
    Collect {
        distinct: bool,
    },
    MergeMap,
    NestedUpdate {
        keys: Vec<usize>,
    },
    PrimaryKey,
    /// Union of serialized 32-bit RoaringBitmaps (BYTES).
    Rbm32,
    /// Union of serialized DataSketches HLL sketches (BYTES).
    HllSketch,
    /// Union of serialized DataSketches Theta sketches (BYTES).
    ThetaSketch,
}

/// One column's aggregator with its per-key state.
#[derive(Debug, Clone)]
pub(crate) struct FieldAgg {
    pub kind: AggKind,
    pub name: String,
    ignore_retract: bool,
    initialized: bool,
}

fn is_numeric(k: &TypeKind) -> bool {
    matches!(
        k,
        TypeKind::TinyInt
            | TypeKind::SmallInt
            | TypeKind::Int
            | TypeKind::BigInt
            | TypeKind::Float
            | TypeKind::Double
            | TypeKind::Decimal { .. }
    )
}

impl FieldAgg {
    /// Creates the aggregator `func` for `field` (Paimon's `FieldAggregatorFactory`).
    pub fn create(func: &str, field: &DataField, config: &MergeConfig) -> Result<Self> {
        let name = &field.name;
        let kind_of = &field.data_type.kind;
        let type_err = |what: &str| {
            Error::Invalid(format!(
                "aggregate function '{func}' of field '{name}' requires {what}, but the type is {:?}",
                kind_of
            ))
        };
        let kind = match func {
            "sum" | "product" => {
                if !is_numeric(kind_of) {
                    return Err(type_err("a numeric type"));
                }
                if func == "sum" {
                    AggKind::Sum
                } else {
                    AggKind::Product
                }
            }
            // Java's `InternalRowUtils.compare` throws "Incomparable type: VARIANT"; the JSON
            // text lakescope reads a VARIANT as must not be compared in its place.
            "max" | "min" if *kind_of == TypeKind::Variant => {
                return Err(type_err("a comparable type"))
            }
            "max" => AggKind::Max,
            "min" => AggKind::Min,
            "last_value" => AggKind::LastValue,
            "last_non_null_value" => AggKind::LastNonNullValue,
            "first_value" => AggKind::FirstValue,
            "first_non_null_value" | "first_not_null_value" => AggKind::FirstNonNullValue,
            "listagg" => {
                if !matches!(kind_of, TypeKind::VarChar(_)) {
                    return Err(type_err("STRING/VARCHAR"));
                }
                AggKind::Listagg {
                    delimiter: config
                        .field_option(name, "list-agg-delimiter")
                        .unwrap_or(",")
                        .to_string(),
                    distinct: config.field_bool(name, "distinct")?,
                }
            }
            "bool_and" | "bool_or" => {
                if !matches!(kind_of, TypeKind::Boolean) {
                    return Err(type_err("BOOLEAN"));
                }
                if func == "bool_and" {
                    AggKind::BoolAnd
                } else {
                    AggKind::BoolOr
                }
            }
            "collect" => {
                let TypeKind::Array(element) = kind_of else {
                    return Err(type_err("ARRAY"));
                };
                let distinct = config.field_bool(name, "distinct")?;
                // Java's distinct compares variants by their bytes (`GenericVariant.equals`): two
                // encodings of one JSON text (keys in another dictionary order) stay distinct.
                if distinct && crate::read::variant::contains_variant(element) {
                    return Err(Error::unsupported(
                        name.as_str(),
                        "aggregate function 'collect' with distinct of VARIANT elements (Paimon \
                         compares their binary encodings; lakescope reads their JSON text)",
                    ));
                }
                AggKind::Collect { distinct }
            }
            "merge_map" => {
                if !matches!(kind_of, TypeKind::Map(_, _)) {
                    return Err(type_err("MAP"));
                }
                AggKind::MergeMap
            }
            "nested_update" => {
                let TypeKind::Array(elem) = kind_of else {
                    return Err(type_err("ARRAY<ROW>"));
                };
                let TypeKind::Row(nested) = &elem.kind else {
                    return Err(type_err("ARRAY<ROW>"));
                };
                let mut keys = Vec::new();
                if let Some(spec) = config.field_option(name, "nested-key") {
                    for k in spec.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                        let idx = nested.iter().position(|f| f.name == k).ok_or_else(|| {
                            Error::Invalid(format!(
                                "option 'fields.{name}.nested-key': no nested field '{k}'"
                            ))
                        })?;
                        keys.push(idx);
                    }
                }
                if config.field_option(name, "nested-sequence-field").is_some()
                    || config.field_option(name, "count-limit").is_some()
                {
                    return Err(Error::unsupported(
                        name.as_str(),
                        "nested_update with nested-sequence-field or count-limit",
                    ));
                }
                AggKind::NestedUpdate { keys }
            }
            "primary-key" => AggKind::PrimaryKey,
            "rbm32" | "hll_sketch" | "theta_sketch" => {
                if !matches!(kind_of, TypeKind::VarBinary(_)) {
                    return Err(type_err("VARBINARY/BYTES"));
                }
                match func {
                    "rbm32" => AggKind::Rbm32,
                    "hll_sketch" => AggKind::HllSketch,
                    _ => AggKind::ThetaSketch,
                }
            }
            "rbm64" => {
                return Err(Error::unsupported(
                    name.as_str(),
                    "aggregate function 'rbm64': Paimon stores Roaring64Bitmap in the Java \
                     library's ART-based serialization, not the portable 64-bit Roaring format",
                ))
            }
            "merge_map_with_keytime" | "nested_partial_update" => {
                return Err(Error::unsupported(
                    name.as_str(),
                    format!("aggregate function '{func}'"),
                ))
            }
            other => {
                return Err(Error::Invalid(format!(
                    "invalid value for option 'fields.{name}.aggregate-function': '{other}' \
                     (unsupported aggregation or misspelled aggregate function)"
                )))
            }
        };
        let ignore_retract = config.field_bool(name, "ignore-retract")?;
        if ignore_retract && config.aggregation_remove_record_on_delete {
            return Err(Error::Invalid(format!(
                "aggregation.remove-record-on-delete and fields.{name}.ignore-retract have \
                 conflicting behavior so should not be enabled at the same time"
            )));
        }
        Ok(Self {
            kind,
            name: name.clone(),
            ignore_retract,
            initialized: false,
        })
    }

    pub fn reset(&mut self) {
        self.initialized = false;
    }

    /// `agg(accumulator, input)`.
    pub fn agg(&mut self, cx: &Col<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        match &self.kind {
            AggKind::LastValue | AggKind::PrimaryKey => Ok(input),
            AggKind::LastNonNullValue => Ok(if input.is_null() { acc } else { input }),
            AggKind::FirstValue => {
                if self.initialized {
                    Ok(acc)
                } else {
                    self.initialized = true;
                    Ok(input)
                }
            }
            AggKind::FirstNonNullValue => {
                if !self.initialized && !input.is_null() {
                    self.initialized = true;
                    Ok(input)
                } else {
                    Ok(acc)
                }
            }
            AggKind::Listagg {
                delimiter,
                distinct,
            } => listagg(cx, acc, input, delimiter, *distinct),
            AggKind::Collect { distinct } => {
                if acc.is_null() && input.is_null() {
                    return Ok(Cell::Null);
                }
                if (acc.is_null() || input.is_null()) && !distinct {
                    return Ok(if acc.is_null() { input } else { acc });
                }
                collections::collect(cx, &acc, &input, *distinct)
            }
            AggKind::NestedUpdate { keys } => {
                if input.is_null() {
                    return Ok(acc);
                }
                collections::nested_update(cx, &acc, &input, keys)
            }
            _ => {
                if acc.is_null() || input.is_null() {
                    return Ok(if acc.is_null() { input } else { acc });
                }
                match &self.kind {
                    AggKind::Max | AggKind::Min => {
                        let c = cx.scalar(&acc).compare(&cx.scalar(&input))?;
                        let keep_acc = if self.kind == AggKind::Max {
                            c != Ordering::Less
                        } else {
                            c == Ordering::Less
                        };
                        Ok(if keep_acc { acc } else { input })
                    }
                    AggKind::MergeMap => collections::merge_map(cx, &acc, &input),
                    AggKind::Rbm32 | AggKind::HllSketch | AggKind::ThetaSketch => {
                        let (Scalar::Bytes(a), Scalar::Bytes(b)) =
                            (cx.scalar(&acc), cx.scalar(&input))
                        else {
                            return Err(Error::Invalid(format!(
                                "merge: field '{}' is not binary",
                                self.name
                            )));
                        };
                        let out = match self.kind {
                            AggKind::Rbm32 => sketch::rbm32_union(&self.name, &a, &b)?,
                            AggKind::HllSketch => sketch::hll_union(&self.name, &a, &b)?,
                            _ => sketch::theta_union(&self.name, &a, &b)?,
                        };
                        Ok(Cell::Owned(Scalar::Bytes(out)))
                    }
                    AggKind::Sum => arith(&self.name, cx.scalar(&acc), cx.scalar(&input), Op::Add),
                    AggKind::Product => {
                        arith(&self.name, cx.scalar(&acc), cx.scalar(&input), Op::Mul)
                    }
                    AggKind::BoolAnd | AggKind::BoolOr => {
                        let (Scalar::Bool(a), Scalar::Bool(b)) =
                            (cx.scalar(&acc), cx.scalar(&input))
                        else {
                            return Err(Error::Invalid(format!(
                                "merge: field '{}' is not boolean",
                                self.name
                            )));
                        };
                        let v = if self.kind == AggKind::BoolAnd {
                            a && b
                        } else {
                            a || b
                        };
                        Ok(Cell::Owned(Scalar::Bool(v)))
                    }
                    _ => Ok(input),
                }
            }
        }
    }

    /// `aggReversed(accumulator, input)` = `agg(input, accumulator)` (collect keeps its order).
    pub fn agg_reversed(&mut self, cx: &Col<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        if matches!(self.kind, AggKind::Collect { .. }) {
            self.agg(cx, acc, input)
        } else {
            self.agg(cx, input, acc)
        }
    }

    /// `retract(accumulator, retractField)`.
    pub fn retract(&mut self, cx: &Col<'_>, acc: Cell, input: Cell) -> Result<Cell> {
        if self.ignore_retract {
            return Ok(acc);
        }
        match &self.kind {
            AggKind::PrimaryKey => Ok(input),
            AggKind::LastValue => Ok(Cell::Null),
            AggKind::LastNonNullValue => Ok(if input.is_null() { acc } else { Cell::Null }),
            AggKind::Sum => {
                if input.is_null() {
                    return Ok(acc);
                }
                if acc.is_null() {
                    return negate(&self.name, cx.scalar(&input));
                }
                arith(&self.name, cx.scalar(&acc), cx.scalar(&input), Op::Sub)
            }
            AggKind::Product => {
                if acc.is_null() || input.is_null() {
                    return Ok(acc);
                }
                arith(&self.name, cx.scalar(&acc), cx.scalar(&input), Op::Div)
            }
            AggKind::Collect { .. } => {
                if acc.is_null() || input.is_null() {
                    return Ok(acc);
                }
                collections::collect_retract(cx, &acc, &input)
            }
            AggKind::MergeMap => {
                if acc.is_null() || input.is_null() {
                    return Ok(acc);
                }
                collections::merge_map_retract(cx, &acc, &input)
            }
            AggKind::NestedUpdate { keys } => {
                if acc.is_null() || input.is_null() {
                    return Ok(acc);
                }
                collections::nested_update_retract(cx, &acc, &input, keys)
            }
            _ => Err(Error::Invalid(format!(
                "Aggregate function '{}' of field '{}' does not support retraction; configure \
                 'fields.{}.ignore-retract'='true' to ignore retraction messages",
                self.kind.paimon_name(),
                self.name,
                self.name
            ))),
        }
    }
}

impl AggKind {
    fn paimon_name(&self) -> &'static str {
        match self {
            AggKind::Sum => "sum",
            AggKind::Product => "product",
            AggKind::Max => "max",
            AggKind::Min => "min",
            AggKind::LastValue => "last_value",
            AggKind::LastNonNullValue => "last_non_null_value",
            AggKind::FirstValue => "first_value",
            AggKind::FirstNonNullValue => "first_non_null_value",
            AggKind::Listagg { .. } => "listagg",
            AggKind::BoolAnd => "bool_and",
            AggKind::BoolOr => "bool_or",
            AggKind::Collect { .. } => "collect",
            AggKind::MergeMap => "merge_map",
            AggKind::NestedUpdate { .. } => "nested_update",
            AggKind::PrimaryKey => "primary-key",
            AggKind::Rbm32 => "rbm32",
            AggKind::HllSketch => "hll_sketch",
            AggKind::ThetaSketch => "theta_sketch",
        }
    }
}

/// Access to one value column of the merge input, to read picked cells.
pub(crate) struct Col<'a> {
    pub input: &'a MergeInput,
    pub column: usize,
}

impl Col<'_> {
    /// The cell of `entry` in this column (NULL if the value is null).
    pub fn cell(&self, e: &Entry) -> Cell {
        let array = self.input.batches[e.batch as usize].column(self.column);
        if array.is_null(e.row as usize) {
            Cell::Null
        } else {
            Cell::Pick(e.batch, e.row)
        }
    }

    /// The value of a cell.
    pub fn scalar(&self, cell: &Cell) -> Scalar {
        match cell {
            Cell::Null => Scalar::Null,
            Cell::Owned(v) => v.clone(),
            Cell::Pick(b, r) => Scalar::read(
                self.input.batches[*b as usize].column(self.column).as_ref(),
                *r as usize,
            ),
        }
    }
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

fn overflow(name: &str) -> Error {
    Error::Invalid(format!(
        "merge: arithmetic overflow aggregating field '{name}'"
    ))
}

fn decimal_fits(v: i128, precision: u8) -> bool {
    let limit = 10i128.checked_pow(precision as u32).unwrap_or(i128::MAX);
    v.unsigned_abs() < limit.unsigned_abs()
}

fn arith(name: &str, a: Scalar, b: Scalar, op: Op) -> Result<Cell> {
    macro_rules! int {
        ($a:expr, $b:expr, $var:ident) => {{
            let r = match op {
                Op::Add => $a.checked_add($b),
                Op::Sub => $a.checked_sub($b),
                Op::Mul => $a.checked_mul($b),
                Op::Div => $a.checked_div($b),
            };
            Scalar::$var(r.ok_or_else(|| overflow(name))?)
        }};
    }
    macro_rules! float {
        ($a:expr, $b:expr, $var:ident) => {{
            Scalar::$var(match op {
                Op::Add => $a + $b,
                Op::Sub => $a - $b,
                Op::Mul => $a * $b,
                Op::Div => $a / $b,
            })
        }};
    }
    let v = match (a, b) {
        (Scalar::I8(x), Scalar::I8(y)) => int!(x, y, I8),
        (Scalar::I16(x), Scalar::I16(y)) => int!(x, y, I16),
        (Scalar::I32(x), Scalar::I32(y)) => int!(x, y, I32),
        (Scalar::I64(x), Scalar::I64(y)) => int!(x, y, I64),
        (Scalar::F32(x), Scalar::F32(y)) => float!(x, y, F32),
        (Scalar::F64(x), Scalar::F64(y)) => float!(x, y, F64),
        (Scalar::Decimal(x, p), Scalar::Decimal(y, _)) => {
            let r = match op {
                Op::Add => x.checked_add(y),
                Op::Sub => x.checked_sub(y),
                // Multiplying / dividing unscaled values needs the scale; not supported.
                Op::Mul | Op::Div => {
                    return Err(Error::unsupported(
                        name,
                        "product aggregation of DECIMAL values",
                    ))
                }
            };
            match r {
                // Paimon's Decimal returns null when the result exceeds the precision.
                Some(v) if decimal_fits(v, p) => Scalar::Decimal(v, p),
                _ => Scalar::Null,
            }
        }
        (a, b) => {
            return Err(Error::Invalid(format!(
                "merge: cannot aggregate {a:?} and {b:?} of field '{name}'"
            )))
        }
    };
    Ok(Cell::Owned(v))
}

fn negate(name: &str, v: Scalar) -> Result<Cell> {
    let r = match v {
        Scalar::Null => Scalar::Null,
        Scalar::I8(x) => Scalar::I8(x.checked_neg().ok_or_else(|| overflow(name))?),
        Scalar::I16(x) => Scalar::I16(x.checked_neg().ok_or_else(|| overflow(name))?),
        Scalar::I32(x) => Scalar::I32(x.checked_neg().ok_or_else(|| overflow(name))?),
        Scalar::I64(x) => Scalar::I64(x.checked_neg().ok_or_else(|| overflow(name))?),
        Scalar::F32(x) => Scalar::F32(-x),
        Scalar::F64(x) => Scalar::F64(-x),
        Scalar::Decimal(x, p) => Scalar::Decimal(-x, p),
        other => {
            return Err(Error::Invalid(format!(
                "merge: cannot negate {other:?} of field '{name}'"
            )))
        }
    };
    Ok(Cell::Owned(r))
}

/// Java `StringUtils.isBlank`.
fn is_blank(s: &str) -> bool {
    s.chars().all(char::is_whitespace)
}

fn listagg(cx: &Col<'_>, acc: Cell, input: Cell, delimiter: &str, distinct: bool) -> Result<Cell> {
    let in_s = match cx.scalar(&input) {
        Scalar::Str(s) if !is_blank(&s) => s,
        _ => return Ok(acc),
    };
    let acc_s = match cx.scalar(&acc) {
        Scalar::Str(s) if !is_blank(&s) => s,
        _ => return Ok(input),
    };
    let mut out = acc_s.clone();
    if distinct {
        let mut seen: Vec<&str> = split_preserve(&acc_s, delimiter);
        for tok in split_preserve(&in_s, delimiter) {
            if is_blank(tok) || seen.contains(&tok) {
                continue;
            }
            seen.push(tok);
            out.push_str(delimiter);
            out.push_str(tok);
        }
    } else {
        out.push_str(delimiter);
        out.push_str(&in_s);
    }
    Ok(Cell::Owned(Scalar::Str(out)))
}

/// Commons-lang `splitByWholeSeparatorPreserveAllTokens`.
fn split_preserve<'s>(s: &'s str, sep: &str) -> Vec<&'s str> {
    if s.is_empty() {
        return Vec::new();
    }
    if sep.is_empty() {
        return s.split_whitespace().collect();
    }
    s.split(sep).collect()
}

/// Paimon's aggregation merge function over one key group (two or more rows).
pub(crate) struct AggregateMerge {
    pub aggs: Vec<FieldAgg>,
    remove_record_on_delete: bool,
    row: Vec<Cell>,
}

impl AggregateMerge {
    /// Aggregators per value column: sequence fields use last_value, primary keys primary-key,
    /// others their function, the default function, or last_non_null_value.
    pub fn new(
        fields: &[DataField],
        primary_keys: &[String],
        config: &MergeConfig,
    ) -> Result<Self> {
        let mut aggs = Vec::with_capacity(fields.len());
        for f in fields {
            let func = if config.sequence_fields.contains(&f.name) {
                "last_value"
            } else if primary_keys.contains(&f.name) {
                "primary-key"
            } else {
                config
                    .field_aggregate_function(&f.name)
                    .or(config.default_aggregate_function.as_deref())
                    .unwrap_or("last_non_null_value")
            };
            aggs.push(FieldAgg::create(func, f, config)?);
        }
        Ok(Self {
            row: vec![Cell::Null; aggs.len()],
            aggs,
            remove_record_on_delete: config.aggregation_remove_record_on_delete,
        })
    }

    /// Merges a group; leaves the cells in `self.row`, returns the row kind.
    pub fn merge(&mut self, input: &MergeInput, group: &[Entry]) -> Result<super::RowKind> {
        for c in self.row.iter_mut() {
            *c = Cell::Null;
        }
        for a in self.aggs.iter_mut() {
            a.reset();
        }
        let mut deleted = false;
        for e in group {
            deleted = self.remove_record_on_delete && e.kind == super::RowKind::Delete;
            if deleted {
                for (i, c) in self.row.iter_mut().enumerate() {
                    *c = Col { input, column: i }.cell(e);
                }
                continue;
            }
            let retract = !e.kind.is_add();
            for (i, agg) in self.aggs.iter_mut().enumerate() {
                let cx = Col { input, column: i };
                let acc = std::mem::replace(&mut self.row[i], Cell::Null);
                let inp = cx.cell(e);
                self.row[i] = if retract {
                    agg.retract(&cx, acc, inp)?
                } else {
                    agg.agg(&cx, acc, inp)?
                };
            }
        }
        Ok(if deleted {
            super::RowKind::Delete
        } else {
            super::RowKind::Insert
        })
    }

    pub fn row_mut(&mut self) -> &mut [Cell] {
        &mut self.row
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::types::DataType;

    #[test]
    fn variant_fields_take_value_picking_aggregators_only() {
        let config = MergeConfig::from_options(&Default::default()).unwrap();
        let field = DataField {
            id: 1,
            name: "v".into(),
            data_type: DataType::parse("VARIANT").unwrap(),
            description: None,
        };
        for func in ["max", "min"] {
            let msg = FieldAgg::create(func, &field, &config)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(
                msg.contains("comparable") && msg.contains("'v'"),
                "{func}: {msg}"
            );
        }
        for func in ["last_value", "last_non_null_value", "first_value"] {
            assert!(FieldAgg::create(func, &field, &config).is_ok(), "{func}");
        }
        let array = DataField {
            data_type: DataType::nullable(TypeKind::Array(Box::new(field.data_type.clone()))),
            ..field
        };
        assert!(FieldAgg::create("collect", &array, &config).is_ok());
        let distinct = MergeConfig::from_options(
            &[("fields.v.distinct".to_string(), "true".to_string())].into(),
        )
        .unwrap();
        let msg = FieldAgg::create("collect", &array, &distinct)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(msg.contains("distinct of VARIANT"), "{msg}");
    }
}
