//! Filter predicates: bound to a schema by field id, evaluated on stats ("may match") and on rows.
//!
//! A [`Predicate`] names columns; [`Predicate::bind`] resolves them against the read schema to
//! field ids and coerces the literals to the column types, giving a [`BoundPredicate`]. That is
//! evaluated two ways:
//! - on statistics ([`BoundPredicate::may_match`]): partition values, manifest partition stats
//!   and data file min/max/null-count stats. Each leaf yields the set of outcomes (TRUE, FALSE,
//!   NULL) some row described by the stats might produce, combined with SQL's three-valued
//!   logic; a file is skipped only when TRUE is impossible, so pruning never drops a row the
//!   predicate accepts (as Java `LeafPredicate.test(rowCount, min, max, nullCounts)`, including
//!   `Not`, which Java handles by negating leaves);
//! - on Arrow batches ([`BoundPredicate::evaluate`], [`BoundPredicate::filter`]): the exact
//!   row-level filter applied to the final (merged) rows; rows where it is NULL are dropped.
//!
//! Values compare as Paimon compares them (`CompareUtils`): strings and binaries by unsigned
//! bytes, decimals by value, dates/times/timestamps by instant, floats by total order.

pub mod parse;

use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;
use crate::spec::schema::TableSchema;
use crate::spec::types::{DataType, TypeKind};
use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, RecordBatch, Scalar, StringArray,
    Time64MicrosecondArray, TimestampMicrosecondArray, TimestampNanosecondArray,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

/// The leaf functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `col = lit`
    Eq,
    /// `col <> lit`
    NotEq,
    /// `col < lit`
    Lt,
    /// `col <= lit`
    LtEq,
    /// `col > lit`
    Gt,
    /// `col >= lit`
    GtEq,
    /// `col IS NULL`
    IsNull,
    /// `col IS NOT NULL`
    IsNotNull,
    /// `col IN (lits)`
    In,
    /// `col NOT IN (lits)`
    NotIn,
    /// `col LIKE 'lit%'` (strings only).
    StartsWith,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::NotEq => "<>",
            Op::Lt => "<",
            Op::LtEq => "<=",
            Op::Gt => ">",
            Op::GtEq => ">=",
            Op::IsNull => "IS NULL",
            Op::IsNotNull => "IS NOT NULL",
            Op::In => "IN",
            Op::NotIn => "NOT IN",
            Op::StartsWith => "STARTS WITH",
        }
    }

    fn arity(self) -> Option<usize> {
        match self {
            Op::IsNull | Op::IsNotNull => Some(0),
            Op::In | Op::NotIn => None,
            _ => Some(1),
        }
    }
}

/// A filter over named columns with literal values.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// `column op literals`.
    Leaf {
        /// Column name in the read schema.
        column: String,
        /// Function.
        op: Op,
        /// Literals (none for IS [NOT] NULL, one or more for IN / NOT IN, else one). Their kind
        /// is coerced to the column's type when binding (e.g. a string to a DATE).
        literals: Vec<Datum>,
    },
    /// All must hold.
    And(Vec<Predicate>),
    /// One must hold.
    Or(Vec<Predicate>),
    /// Negation (SQL: NOT NULL is NULL).
    Not(Box<Predicate>),
}

impl Predicate {
    /// A leaf `column op literals`.
    pub fn leaf(column: impl Into<String>, op: Op, literals: Vec<Datum>) -> Self {
        Predicate::Leaf {
            column: column.into(),
            op,
            literals,
        }
    }

    /// `column = value`.
    pub fn equal(column: impl Into<String>, value: Datum) -> Self {
        Self::leaf(column, Op::Eq, vec![value])
    }

    /// `column IS NULL`.
    pub fn is_null(column: impl Into<String>) -> Self {
        Self::leaf(column, Op::IsNull, Vec::new())
    }

    /// `self AND other`.
    pub fn and(self, other: Predicate) -> Self {
        match self {
            Predicate::And(mut v) => {
                v.push(other);
                Predicate::And(v)
            }
            p => Predicate::And(vec![p, other]),
        }
    }

    /// Resolves column names against `schema` (to field ids) and coerces literals to the
    /// column types. Errors name the column and literal.
    pub fn bind(&self, schema: &TableSchema) -> Result<BoundPredicate> {
        Ok(BoundPredicate {
            node: bind_node(self, schema)?,
        })
    }
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Predicate::Leaf {
                column,
                op,
                literals,
            } => {
                let lits: Vec<String> = literals.iter().map(literal_text).collect();
                match op {
                    Op::IsNull | Op::IsNotNull => write!(f, "{column} {}", op.symbol()),
                    Op::In | Op::NotIn => {
                        write!(f, "{column} {} ({})", op.symbol(), lits.join(", "))
                    }
                    _ => write!(f, "{column} {} {}", op.symbol(), lits.join(", ")),
                }
            }
            Predicate::And(v) | Predicate::Or(v) => {
                let sep = if matches!(self, Predicate::And(_)) {
                    " AND "
                } else {
                    " OR "
                };
                let parts: Vec<String> = v.iter().map(|p| format!("({p})")).collect();
                write!(f, "{}", parts.join(sep))
            }
            Predicate::Not(p) => write!(f, "NOT ({p})"),
        }
    }
}

fn literal_text(d: &Datum) -> String {
    match d {
        Datum::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

/// A leaf resolved against a schema.
#[derive(Debug, Clone, PartialEq)]
struct BoundLeaf {
    field_id: i32,
    name: String,
    data_type: DataType,
    op: Op,
    literals: Vec<Datum>,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Leaf(BoundLeaf),
    And(Vec<Node>),
    Or(Vec<Node>),
    Not(Box<Node>),
}

/// A predicate resolved against a read schema: columns are field ids, literals have the
/// columns' types.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundPredicate {
    node: Node,
}

/// What the statistics say about one column over a set of rows. `None` fields are unknown.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColStats {
    /// Lower bound of the non-null values.
    pub min: Option<Datum>,
    /// Upper bound of the non-null values.
    pub max: Option<Datum>,
    /// Number of NULLs.
    pub null_count: Option<i64>,
    /// Number of rows.
    pub row_count: Option<i64>,
}

impl ColStats {
    /// Nothing known.
    pub fn unknown() -> Self {
        Self::default()
    }

    /// A single known value (a partition value).
    pub fn exact(value: &Datum) -> Self {
        if value.is_null() {
            Self::all_null(1)
        } else {
            ColStats {
                min: Some(value.clone()),
                max: Some(value.clone()),
                null_count: Some(0),
                row_count: Some(1),
            }
        }
    }

    /// `rows` rows, all NULL (e.g. a column added after the file was written).
    pub fn all_null(rows: i64) -> Self {
        ColStats {
            min: None,
            max: None,
            null_count: Some(rows),
            row_count: Some(rows),
        }
    }
}

/// Possible outcomes of a predicate over a set of rows (bit set).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Outcomes(u8);

const T: u8 = 1;
const F: u8 = 2;
const N: u8 = 4;

impl Outcomes {
    const ANY: Outcomes = Outcomes(T | F | N);

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    fn not(self) -> Outcomes {
        let mut out = self.0 & N;
        if self.has(T) {
            out |= F;
        }
        if self.has(F) {
            out |= T;
        }
        Outcomes(out)
    }

    fn and(self, o: Outcomes) -> Outcomes {
        let mut out = 0;
        if self.has(T) && o.has(T) {
            out |= T;
        }
        if self.has(F) || o.has(F) {
            out |= F;
        }
        if (self.has(N) && (o.has(N) || o.has(T))) || (self.has(T) && o.has(N)) {
            out |= N;
        }
        Outcomes(out)
    }

    fn or(self, o: Outcomes) -> Outcomes {
        self.not().and(o.not()).not()
    }
}

impl BoundPredicate {
    /// Field ids of every column the predicate reads.
    pub fn field_ids(&self) -> BTreeSet<i32> {
        let mut out = BTreeSet::new();
        collect_ids(&self.node, &mut out);
        out
    }

    /// Whether some row described by `stats` (per field id; `None` = unknown) may satisfy the
    /// predicate. `false` means: no such row can match, the rows may be skipped.
    pub fn may_match(&self, stats: &dyn Fn(i32) -> Option<ColStats>) -> bool {
        outcomes(&self.node, stats).has(T)
    }

    /// The predicate restricted to conjuncts that only read `ids` (the rest replaced by TRUE);
    /// `None` when nothing is left. Used for key filters: `k = 1 AND v = 2` on keys → `k = 1`.
    pub fn conjuncts_on(&self, ids: &BTreeSet<i32>) -> Option<BoundPredicate> {
        let parts: Vec<Node> = match &self.node {
            Node::And(v) => v.clone(),
            other => vec![other.clone()],
        };
        let kept: Vec<Node> = parts
            .into_iter()
            .filter(|n| {
                let mut used = BTreeSet::new();
                collect_ids(n, &mut used);
                used.is_subset(ids)
            })
            .collect();
        match kept.len() {
            0 => None,
            1 => kept.into_iter().next().map(|node| BoundPredicate { node }),
            _ => Some(BoundPredicate {
                node: Node::And(kept),
            }),
        }
    }

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

fn collect_ids(node: &Node, out: &mut BTreeSet<i32>) {
    match node {
        Node::Leaf(l) => {
            out.insert(l.field_id);
        }
        Node::And(v) | Node::Or(v) => v.iter().for_each(|n| collect_ids(n, out)),
        Node::Not(n) => collect_ids(n, out),
    }
}

// ---------------------------------------------------------------------------------------------
// Binding and literal coercion

fn bind_node(p: &Predicate, schema: &TableSchema) -> Result<Node> {
    Ok(match p {
        Predicate::Leaf {
            column,
            op,
            literals,
        } => {
            let field = schema.field(column).ok_or_else(|| Error::NotFound {
                what: format!("filter column '{column}'"),
                context: Some(format!(
                    "columns: {}",
                    schema
                        .fields
                        .iter()
                        .map(|f| f.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            })?;
            if field.data_type.is_nested() {
                return Err(Error::Invalid(format!(
                    "filter on column '{column}': {} columns cannot be compared",
                    field.data_type.to_json()
                )));
            }
            match op.arity() {
                Some(n) if n != literals.len() => {
                    return Err(Error::Invalid(format!(
                        "filter on column '{column}': {} takes {n} literal(s), got {}",
                        op.symbol(),
                        literals.len()
                    )))
                }
                None if literals.is_empty() => {
                    return Err(Error::Invalid(format!(
                        "filter on column '{column}': {} needs at least one literal",
                        op.symbol()
                    )))
                }
                _ => {}
            }
            if *op == Op::StartsWith
                && !matches!(
                    field.data_type.kind,
                    TypeKind::Char(_) | TypeKind::VarChar(_)
                )
            {
                return Err(Error::Invalid(format!(
                    "filter on column '{column}': STARTS WITH needs a string column"
                )));
            }
            let literals = literals
                .iter()
                .map(|l| coerce(l, &field.data_type, column))
                .collect::<Result<Vec<_>>>()?;
            Node::Leaf(BoundLeaf {
                field_id: field.id,
                name: column.clone(),
                data_type: field.data_type.clone(),
                op: *op,
                literals,
            })
        }
        Predicate::And(v) => Node::And(
            v.iter()
                .map(|p| bind_node(p, schema))
                .collect::<Result<_>>()?,
        ),
        Predicate::Or(v) => Node::Or(
            v.iter()
                .map(|p| bind_node(p, schema))
                .collect::<Result<_>>()?,
        ),
        Predicate::Not(p) => Node::Not(Box::new(bind_node(p, schema)?)),
    })
}

/// Converts a literal to the Datum kind of `ty`; errors name the column and literal.
fn coerce(lit: &Datum, ty: &DataType, column: &str) -> Result<Datum> {
    let bad = |why: &str| {
        Error::Invalid(format!(
            "filter on column '{column}': literal {} {why}",
            literal_text(lit)
        ))
    };
    if lit.is_null() {
        return Ok(Datum::Null);
    }
    let int = || -> Option<i128> {
        match lit {
            Datum::TinyInt(v) => Some(i128::from(*v)),
            Datum::SmallInt(v) => Some(i128::from(*v)),
            Datum::Int(v) => Some(i128::from(*v)),
            Datum::BigInt(v) => Some(i128::from(*v)),
            Datum::Decimal {
                unscaled, scale: 0, ..
            } => Some(*unscaled),
            Datum::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    };
    let out_of_range = || bad(&format!("is not a value of type {}", type_name(ty)));
    Ok(match &ty.kind {
        TypeKind::Boolean => match lit {
            Datum::Boolean(b) => Datum::Boolean(*b),
            Datum::String(s) if s.eq_ignore_ascii_case("true") => Datum::Boolean(true),
            Datum::String(s) if s.eq_ignore_ascii_case("false") => Datum::Boolean(false),
            _ => return Err(out_of_range()),
        },
        TypeKind::TinyInt => Datum::TinyInt(
            int()
                .and_then(|v| i8::try_from(v).ok())
                .ok_or_else(out_of_range)?,
        ),
        TypeKind::SmallInt => Datum::SmallInt(
            int()
                .and_then(|v| i16::try_from(v).ok())
                .ok_or_else(out_of_range)?,
        ),
        TypeKind::Int => Datum::Int(
            int()
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(out_of_range)?,
        ),
        TypeKind::BigInt => Datum::BigInt(
            int()
                .and_then(|v| i64::try_from(v).ok())
                .ok_or_else(out_of_range)?,
        ),
        TypeKind::Float | TypeKind::Double => {
            let v = match lit {
                Datum::Float(v) => f64::from(*v),
                Datum::Double(v) => *v,
                Datum::Decimal {
                    unscaled, scale, ..
                } => *unscaled as f64 / 10f64.powi(i32::from(*scale)),
                Datum::String(s) => s.trim().parse().map_err(|_| out_of_range())?,
                _ => int().ok_or_else(out_of_range)? as f64,
            };
            if ty.kind == TypeKind::Float {
                Datum::Float(v as f32)
            } else {
                Datum::Double(v)
            }
        }
        TypeKind::Decimal { precision, scale } => {
            let (unscaled, from_scale) = match lit {
                Datum::Decimal {
                    unscaled, scale, ..
                } => (*unscaled, *scale),
                Datum::String(s) => parse_decimal(s.trim()).ok_or_else(out_of_range)?,
                _ => (int().ok_or_else(out_of_range)?, 0),
            };
            let unscaled = rescale(unscaled, from_scale, *scale).ok_or_else(|| {
                bad(&format!(
                    "has more fractional digits than {}",
                    type_name(ty)
                ))
            })?;
            if unscaled.unsigned_abs() >= 10u128.pow(u32::from(*precision).min(38)) {
                return Err(out_of_range());
            }
            Datum::Decimal {
                unscaled,
                precision: *precision,
                scale: *scale,
            }
        }
        TypeKind::Char(_) | TypeKind::VarChar(_) => match lit {
            Datum::String(s) => Datum::String(s.clone()),
            other => Datum::String(other.to_string()),
        },
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => match lit {
            Datum::Binary(b) => Datum::Binary(b.clone()),
            Datum::String(s) => Datum::Binary(s.as_bytes().to_vec()),
            _ => return Err(out_of_range()),
        },
        TypeKind::Date => match lit {
            Datum::Date(d) => Datum::Date(*d),
            Datum::String(s) => {
                Datum::Date(parse_date(s.trim()).ok_or_else(|| bad("is not a DATE (YYYY-MM-DD)"))?)
            }
            _ => return Err(out_of_range()),
        },
        TypeKind::Time(p) => match lit {
            Datum::Time(t) => Datum::Time(*t),
            Datum::String(s) => {
                let (secs, nanos, digits) =
                    parse_time(s.trim()).ok_or_else(|| bad("is not a TIME (HH:MM:SS[.fff])"))?;
                if digits > usize::from((*p).min(3)) {
                    return Err(bad(&format!(
                        "has more fractional digits than {}",
                        type_name(ty)
                    )));
                }
                Datum::Time(secs * 1000 + nanos / 1_000_000)
            }
            _ => return Err(out_of_range()),
        },
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let (millis, nanos_of_milli) = match lit {
                Datum::Timestamp {
                    millis,
                    nanos_of_milli,
                }
                | Datum::LocalZonedTimestamp {
                    millis,
                    nanos_of_milli,
                } => (*millis, *nanos_of_milli),
                Datum::String(s) => {
                    let (millis, nanos, digits) = parse_timestamp(s.trim()).ok_or_else(|| {
                        bad("is not a TIMESTAMP (YYYY-MM-DD HH:MM:SS[.fffffffff])")
                    })?;
                    if digits > usize::from(*p) {
                        return Err(bad(&format!(
                            "has more fractional digits than {}",
                            type_name(ty)
                        )));
                    }
                    (millis, nanos)
                }
                _ => return Err(out_of_range()),
            };
            if matches!(ty.kind, TypeKind::Timestamp(_)) {
                Datum::Timestamp {
                    millis,
                    nanos_of_milli,
                }
            } else {
                Datum::LocalZonedTimestamp {
                    millis,
                    nanos_of_milli,
                }
            }
        }
        _ => return Err(out_of_range()),
    })
}

fn type_name(ty: &DataType) -> String {
    match ty.to_json() {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    }
}

/// `unscaled * 10^-from` as an unscaled value of scale `to`, if exact.
fn rescale(unscaled: i128, from: u8, to: u8) -> Option<i128> {
    match from.cmp(&to) {
        Ordering::Equal => Some(unscaled),
        Ordering::Less => unscaled.checked_mul(10i128.checked_pow(u32::from(to - from))?),
        Ordering::Greater => {
            let div = 10i128.checked_pow(u32::from(from - to))?;
            (unscaled % div == 0).then_some(unscaled / div)
        }
    }
}

/// Parses `-12.345` into (unscaled, scale).
pub(crate) fn parse_decimal(s: &str) -> Option<(i128, u8)> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits = format!("{int}{frac}");
    let v: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    let scale = u8::try_from(frac.len()).ok()?;
    Some((if neg { -v } else { v }, scale))
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn parse_date(s: &str) -> Option<i32> {
    let mut parts = s.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    i32::try_from(days_from_civil(y, m, d)).ok()
}

/// `HH:MM[:SS[.fraction]]` → (seconds of day, nanos, fraction digits).
fn parse_time(s: &str) -> Option<(i32, i32, usize)> {
    let (hms, frac) = s.split_once('.').unwrap_or((s, ""));
    let mut parts = hms.split(':');
    let h: i32 = parts.next()?.parse().ok()?;
    let m: i32 = parts.next()?.parse().ok()?;
    let sec: i32 = parts.next().map_or(Some(0), |p| p.parse().ok())?;
    if parts.next().is_some()
        || !(0..24).contains(&h)
        || !(0..60).contains(&m)
        || !(0..60).contains(&sec)
    {
        return None;
    }
    if frac.len() > 9 || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let nanos: i32 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    Some((h * 3600 + m * 60 + sec, nanos, frac.len()))
}

/// `YYYY-MM-DD[ T]HH:MM[:SS[.f]]` or a date → (millis, nanos of milli, fraction digits).
fn parse_timestamp(s: &str) -> Option<(i64, i32, usize)> {
    let (date, time) = match s.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let days = i64::from(parse_date(date)?);
    let (secs, nanos, digits) = match time {
        Some(t) => parse_time(t)?,
        None => (0, 0, 0),
    };
    let millis = days * 86_400_000 + i64::from(secs) * 1000 + i64::from(nanos / 1_000_000);
    Some((millis, nanos % 1_000_000, digits))
}

// ---------------------------------------------------------------------------------------------
// Evaluation on statistics

fn outcomes(node: &Node, stats: &dyn Fn(i32) -> Option<ColStats>) -> Outcomes {
    match node {
        Node::Leaf(leaf) => match stats(leaf.field_id) {
            Some(s) => leaf_outcomes(leaf, &s),
            None => Outcomes::ANY,
        },
        Node::And(v) => v
            .iter()
            .fold(Outcomes(T), |acc, n| acc.and(outcomes(n, stats))),
        Node::Or(v) => v
            .iter()
            .fold(Outcomes(F), |acc, n| acc.or(outcomes(n, stats))),
        Node::Not(n) => outcomes(n, stats).not(),
    }
}

fn leaf_outcomes(leaf: &BoundLeaf, s: &ColStats) -> Outcomes {
    let all_null = matches!((s.null_count, s.row_count), (Some(n), Some(r)) if n >= r);
    let may_null = s.null_count.is_none_or(|n| n > 0);
    let may_value = !all_null;
    match leaf.op {
        Op::IsNull | Op::IsNotNull => {
            let mut out = 0;
            if may_null {
                out |= T;
            }
            if may_value {
                out |= F;
            }
            let o = Outcomes(out);
            return if leaf.op == Op::IsNull { o } else { o.not() };
        }
        _ => {}
    }
    let mut out = if may_null { N } else { 0 };
    if may_value {
        out |= match (&s.min, &s.max) {
            (Some(lo), Some(hi))
                if !lo.is_null()
                    && !hi.is_null()
                    && same_kind(lo, &leaf.data_type)
                    && same_kind(hi, &leaf.data_type) =>
            {
                value_outcomes(leaf.op, lo, hi, &leaf.literals).0
            }
            _ => T | F | N,
        };
    }
    Outcomes(out)
}

/// Whether a stats value has the Datum kind of the column (else the stats are not trusted).
fn same_kind(d: &Datum, ty: &DataType) -> bool {
    matches!(
        (d, &ty.kind),
        (Datum::Boolean(_), TypeKind::Boolean)
            | (Datum::TinyInt(_), TypeKind::TinyInt)
            | (Datum::SmallInt(_), TypeKind::SmallInt)
            | (Datum::Int(_), TypeKind::Int)
            | (Datum::BigInt(_), TypeKind::BigInt)
            | (Datum::Float(_), TypeKind::Float)
            | (Datum::Double(_), TypeKind::Double)
            | (Datum::String(_), TypeKind::Char(_) | TypeKind::VarChar(_))
            | (
                Datum::Binary(_),
                TypeKind::Binary(_) | TypeKind::VarBinary(_)
            )
            | (Datum::Date(_), TypeKind::Date)
            | (Datum::Time(_), TypeKind::Time(_))
            | (Datum::Timestamp { .. }, TypeKind::Timestamp(_))
            | (
                Datum::LocalZonedTimestamp { .. },
                TypeKind::LocalZonedTimestamp(_)
            )
    ) || matches!(
        (d, &ty.kind),
        (Datum::Decimal { scale: a, .. }, TypeKind::Decimal { scale: b, .. }) if a == b
    )
}

/// Outcomes over non-null values within `[lo, hi]`.
fn value_outcomes(op: Op, lo: &Datum, hi: &Datum, lits: &[Datum]) -> Outcomes {
    let has_null_lit = lits.iter().any(Datum::is_null);
    let cmp = |a: &Datum, b: &Datum| a.total_cmp(b);
    let in_range = |l: &Datum| cmp(lo, l).is_le() && cmp(l, hi).is_le();
    let single = |l: &Datum| cmp(lo, l).is_eq() && cmp(hi, l).is_eq();
    let bits = |t: bool, f: bool| Outcomes((if t { T } else { 0 }) | (if f { F } else { 0 }));
    let Some(lit) = lits.first() else {
        return Outcomes::ANY;
    };
    if lit.is_null() && !matches!(op, Op::In | Op::NotIn) {
        // Comparing with NULL is NULL.
        return Outcomes(N);
    }
    match op {
        Op::Eq => bits(in_range(lit), !single(lit)),
        Op::NotEq => bits(!single(lit), in_range(lit)),
        Op::Lt => bits(cmp(lo, lit).is_lt(), cmp(hi, lit).is_ge()),
        Op::LtEq => bits(cmp(lo, lit).is_le(), cmp(hi, lit).is_gt()),
        Op::Gt => bits(cmp(hi, lit).is_gt(), cmp(lo, lit).is_le()),
        Op::GtEq => bits(cmp(hi, lit).is_ge(), cmp(lo, lit).is_lt()),
        Op::In | Op::NotIn => {
            let values: Vec<&Datum> = lits.iter().filter(|l| !l.is_null()).collect();
            let may_hit = values.iter().any(|l| in_range(l));
            let may_miss = !values.iter().any(|l| single(l));
            // A value not in the list gives FALSE, or NULL when the list holds a NULL.
            let miss = if has_null_lit { N } else { F };
            let (hit_bit, miss_bit) = if op == Op::In {
                (T, miss)
            } else {
                (F, if has_null_lit { N } else { T })
            };
            let mut out = 0;
            if may_hit {
                out |= hit_bit;
            }
            if may_miss {
                out |= miss_bit;
            }
            Outcomes(out)
        }
        Op::StartsWith => match (lo, hi, lit) {
            (Datum::String(lo), Datum::String(hi), Datum::String(p)) => {
                // As Java StartsWith.test(min, max): some value in range may start with p.
                let t = (lo.starts_with(p.as_str()) || lo.as_bytes() <= p.as_bytes())
                    && (hi.starts_with(p.as_str()) || hi.as_bytes() >= p.as_bytes());
                let f = !(lo.starts_with(p.as_str()) && hi.starts_with(p.as_str()));
                bits(t, f)
            }
            _ => Outcomes::ANY,
        },
        Op::IsNull | Op::IsNotNull => Outcomes::ANY,
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation on Arrow batches

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

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(lo: Datum, hi: Datum, nulls: i64, rows: i64) -> ColStats {
        ColStats {
            min: Some(lo),
            max: Some(hi),
            null_count: Some(nulls),
            row_count: Some(rows),
        }
    }

    fn leaf(op: Op, lits: Vec<Datum>) -> BoundPredicate {
        BoundPredicate {
            node: Node::Leaf(BoundLeaf {
                field_id: 0,
                name: "c".into(),
                data_type: DataType::nullable(TypeKind::VarChar(u32::MAX)),
                op,
                literals: lits,
            }),
        }
    }

    fn s(v: &str) -> Datum {
        Datum::String(v.into())
    }

    #[test]
    fn stats_three_valued() {
        let st = stats(s("b"), s("d"), 0, 10);
        let may = |p: &BoundPredicate| p.may_match(&|_| Some(st.clone()));
        assert!(may(&leaf(Op::Eq, vec![s("c")])));
        assert!(!may(&leaf(Op::Eq, vec![s("e")])));
        assert!(!may(&leaf(Op::Lt, vec![s("b")])));
        assert!(may(&leaf(Op::LtEq, vec![s("b")])));
        assert!(!may(&leaf(Op::IsNull, vec![])));
        assert!(may(&leaf(Op::In, vec![s("a"), s("c")])));
        assert!(!may(&leaf(Op::In, vec![s("a"), Datum::Null])));
        assert!(!may(&leaf(Op::StartsWith, vec![s("e")])));
        assert!(may(&leaf(Op::StartsWith, vec![s("c")])));
        assert!(may(&leaf(Op::StartsWith, vec![s("bz")])));
        // NOT (c = 'x') where all values are 'x': impossible; with NULLs still impossible.
        let one = stats(s("x"), s("x"), 3, 10);
        let not_eq = BoundPredicate {
            node: Node::Not(Box::new(leaf(Op::Eq, vec![s("x")]).node)),
        };
        assert!(!not_eq.may_match(&|_| Some(one.clone())));
        // NOT (c IS NULL) with every row NULL.
        let not_null = BoundPredicate {
            node: Node::Not(Box::new(leaf(Op::IsNull, vec![]).node)),
        };
        assert!(!not_null.may_match(&|_| Some(ColStats::all_null(4))));
        // NOT IN with a NULL literal never holds.
        assert!(!may(&leaf(Op::NotIn, vec![s("a"), Datum::Null])));
        // Unknown stats always may match.
        assert!(leaf(Op::Eq, vec![s("zz")]).may_match(&|_| None));
    }

    #[test]
    fn literal_parsing() {
        assert_eq!(parse_date("1970-01-02"), Some(1));
        assert_eq!(parse_date("2024-03-01"), Some(19783));
        assert_eq!(parse_timestamp("1970-01-01 00:00:01.5"), Some((1500, 0, 1)));
        assert_eq!(parse_decimal("-1.50"), Some((-150, 2)));
        assert_eq!(rescale(150, 2, 1), Some(15));
        assert_eq!(rescale(155, 2, 1), None);
    }
}
