//! Unbound predicates: the filter over column names and literals that callers build or parse.

use crate::spec::binary_row::Datum;
use std::fmt;

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
    pub(super) fn symbol(self) -> &'static str {
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

    pub(super) fn arity(self) -> Option<usize> {
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

pub(super) fn literal_text(d: &Datum) -> String {
    match d {
        Datum::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}
