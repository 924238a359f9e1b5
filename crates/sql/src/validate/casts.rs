//! Which column type changes Paimon's schema evolution accepts (its explicit cast rules, roughly `DataTypeCasts`).

use lakescope_format::spec::types::{DataType, TypeKind};

#[derive(PartialEq, Eq, Clone, Copy)]
enum Family {
    Boolean,
    Numeric,
    Character,
    Binary,
    Date,
    Time,
    Timestamp,
    Nested,
    Variant,
}

fn family(t: &TypeKind) -> Family {
    match t {
        TypeKind::Boolean => Family::Boolean,
        TypeKind::TinyInt
        | TypeKind::SmallInt
        | TypeKind::Int
        | TypeKind::BigInt
        | TypeKind::Float
        | TypeKind::Double
        | TypeKind::Decimal { .. } => Family::Numeric,
        TypeKind::Char(_) | TypeKind::VarChar(_) => Family::Character,
        TypeKind::Binary(_) | TypeKind::VarBinary(_) => Family::Binary,
        TypeKind::Date => Family::Date,
        TypeKind::Time(_) => Family::Time,
        TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_) => Family::Timestamp,
        // VECTOR and BLOB change to no other type (as nested types, only to themselves).
        TypeKind::Array(_)
        | TypeKind::Multiset(_)
        | TypeKind::Map(..)
        | TypeKind::Row(_)
        | TypeKind::Vector(..)
        | TypeKind::Blob => Family::Nested,
        TypeKind::Variant => Family::Variant,
    }
}

/// Whether a column of type `from` may be changed to `to` (nullability is checked separately).
pub fn supports_cast(from: &DataType, to: &DataType) -> bool {
    use Family::*;
    let (a, b) = (family(&from.kind), family(&to.kind));
    if from.kind == to.kind {
        return true;
    }
    match (&from.kind, &to.kind) {
        (TypeKind::Array(x), TypeKind::Array(y))
        | (TypeKind::Multiset(x), TypeKind::Multiset(y)) => return supports_cast(x, y),
        (TypeKind::Map(k1, v1), TypeKind::Map(k2, v2)) => {
            return k1.kind == k2.kind && supports_cast(v1, v2)
        }
        (TypeKind::Row(_), TypeKind::Row(_)) => return true,
        _ => {}
    }
    match (a, b) {
        (x, y) if x == y => x != Nested,
        (Character, Boolean | Numeric | Date | Time | Timestamp | Binary) => true,
        (Boolean | Numeric | Date | Time | Timestamp | Binary, Character) => true,
        (Boolean, Numeric) | (Numeric, Boolean) => true,
        (Date, Timestamp) | (Timestamp, Date) | (Timestamp, Time) | (Time, Timestamp) => true,
        (Numeric, Timestamp) | (Timestamp, Numeric) => true,
        _ => false,
    }
}
