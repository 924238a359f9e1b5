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
//!
//! Files: `unbound` ([`Predicate`], [`Op`]), `parse` (text → [`Predicate`]), `bind` (schema
//! resolution and literal coercion), `stats` ([`ColStats`], `may_match`), `eval` (Arrow
//! batches). The bound tree they share is defined here.

mod bind;
mod eval;
pub mod parse;
mod stats;
mod unbound;

pub use stats::ColStats;
pub use unbound::{Op, Predicate};

use crate::spec::binary_row::Datum;
use crate::spec::types::DataType;
use std::collections::BTreeSet;

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

impl BoundPredicate {
    /// Field ids of every column the predicate reads.
    pub fn field_ids(&self) -> BTreeSet<i32> {
        let mut out = BTreeSet::new();
        collect_ids(&self.node, &mut out);
        out
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
