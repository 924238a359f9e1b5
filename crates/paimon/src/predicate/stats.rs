//! Evaluation on statistics: whether rows described by min/max/null counts may match.

use super::{BoundLeaf, BoundPredicate, Node, Op};
use crate::spec::binary_row::Datum;
use crate::spec::types::{DataType, TypeKind};

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
    /// Whether some row described by `stats` (per field id; `None` = unknown) may satisfy the
    /// predicate. `false` means: no such row can match, the rows may be skipped.
    pub fn may_match(&self, stats: &dyn Fn(i32) -> Option<ColStats>) -> bool {
        outcomes(&self.node, stats).has(T)
    }
}

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
}
