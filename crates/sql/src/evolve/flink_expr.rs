//! Computed-column and watermark expressions as Flink stores them in Paimon options: serialized text and result type.

use crate::dialect::FlinkDialect;
use lakescope_format::spec::types::{DataType, TypeKind, MAX_LENGTH};
use sqlparser::ast::{self as sp, BinaryOperator, FunctionArg, FunctionArgExpr, FunctionArguments};
use sqlparser::tokenizer::{Token, Tokenizer};

/// The expression as Flink's `asSerializableString` writes it: normalized spacing, column
/// references backquoted, built-in function names upper case (e.g. `` `et` - INTERVAL '1' SECOND ``,
/// `` TO_TIMESTAMP_LTZ(`ts`, 3) ``). `columns` are the table's column names.
pub(super) fn serialize(expr: &sp::Expr, columns: &[&str]) -> String {
    let text = expr.to_string();
    let Ok(tokens) = Tokenizer::new(&FlinkDialect, &text).tokenize() else {
        return text;
    };
    let mut out = String::with_capacity(text.len() + 8);
    for (i, token) in tokens.iter().enumerate() {
        let Token::Word(w) = token else {
            out.push_str(&token.to_string());
            continue;
        };
        if w.quote_style.is_some() {
            out.push_str(&token.to_string());
            continue;
        }
        let is_call = tokens[i + 1..]
            .iter()
            .find(|t| !matches!(t, Token::Whitespace(_)))
            .is_some_and(|t| matches!(t, Token::LParen));
        if is_call {
            out.push_str(&w.value.to_ascii_uppercase());
        } else if columns.contains(&w.value.as_str()) {
            out.push_str(&format!("`{}`", w.value.replace('`', "``")));
        } else {
            out.push_str(&w.value);
        }
    }
    out
}

/// A type as Flink's `LogicalType.asSerializableString` writes it (`STRING` is
/// `VARCHAR(2147483647)`, `BYTES` is `VARBINARY(2147483647)`).
pub(super) fn serializable_type(t: &DataType) -> String {
    let body = match &t.kind {
        TypeKind::VarChar(MAX_LENGTH) => format!("VARCHAR({MAX_LENGTH})"),
        TypeKind::VarBinary(MAX_LENGTH) => format!("VARBINARY({MAX_LENGTH})"),
        TypeKind::Array(e) => format!("ARRAY<{}>", serializable_type(e)),
        TypeKind::Multiset(e) => format!("MULTISET<{}>", serializable_type(e)),
        TypeKind::Map(k, v) => format!("MAP<{}, {}>", serializable_type(k), serializable_type(v)),
        TypeKind::Row(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|f| format!("`{}` {}", f.name, serializable_type(&f.data_type)))
                .collect();
            format!("ROW<{}>", inner.join(", "))
        }
        _ => return t.to_string(),
    };
    if t.nullable {
        body
    } else {
        format!("{body} NOT NULL")
    }
}

fn rank(k: &TypeKind) -> Option<u8> {
    Some(match k {
        TypeKind::TinyInt => 1,
        TypeKind::SmallInt => 2,
        TypeKind::Int => 3,
        TypeKind::BigInt => 4,
        TypeKind::Float => 5,
        TypeKind::Double => 6,
        _ => return None,
    })
}

fn is_time(k: &TypeKind) -> bool {
    matches!(
        k,
        TypeKind::Timestamp(_) | TypeKind::LocalZonedTimestamp(_) | TypeKind::Date
    )
}

fn ty(kind: TypeKind, nullable: bool) -> DataType {
    DataType::nullable(kind).with_nullable(nullable)
}

fn args(f: &sp::Function) -> Vec<&sp::Expr> {
    match &f.args {
        FunctionArguments::List(l) => l
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The result type of `expr` under Flink's typing for the common computed-column and watermark
/// forms (column references, literals, CAST, arithmetic, timestamp ± INTERVAL, comparisons and a
/// few time functions); `None` when this does not know it. `column` gives a column's type.
pub(super) fn infer(
    expr: &sp::Expr,
    column: &dyn Fn(&str) -> Option<DataType>,
) -> Option<DataType> {
    match expr {
        sp::Expr::Identifier(id) => column(&id.value),
        sp::Expr::Nested(e) => infer(e, column),
        sp::Expr::Value(v) => match &v.value {
            sp::Value::Number(n, _) => {
                if let Ok(i) = n.parse::<i64>() {
                    let kind = if i32::try_from(i).is_ok() {
                        TypeKind::Int
                    } else {
                        TypeKind::BigInt
                    };
                    Some(ty(kind, false))
                } else if n.contains(['e', 'E']) {
                    Some(ty(TypeKind::Double, false))
                } else {
                    let (int, frac) = n.split_once('.')?;
                    let scale = u8::try_from(frac.len()).ok()?;
                    let digits = int.trim_start_matches('0').len() + frac.len();
                    let precision = u8::try_from(digits.max(1)).ok()?.max(scale);
                    Some(ty(TypeKind::Decimal { precision, scale }, false))
                }
            }
            sp::Value::SingleQuotedString(s) => {
                Some(ty(TypeKind::Char(s.chars().count().max(1) as u32), false))
            }
            sp::Value::Boolean(_) => Some(ty(TypeKind::Boolean, false)),
            _ => None,
        },
        sp::Expr::Cast {
            expr, data_type, ..
        } => {
            let inner = infer(expr, column)?;
            let target = crate::types::parse_data_type(&data_type.to_string()).ok()?;
            Some(target.with_nullable(inner.nullable))
        }
        sp::Expr::BinaryOp { left, op, right } => {
            let (l, r) = (infer(left, column), infer(right, column));
            match op {
                BinaryOperator::Plus | BinaryOperator::Minus
                    if matches!(**right, sp::Expr::Interval(_)) =>
                {
                    l.filter(|l| is_time(&l.kind))
                }
                BinaryOperator::Plus
                | BinaryOperator::Minus
                | BinaryOperator::Multiply
                | BinaryOperator::Divide
                | BinaryOperator::Modulo => {
                    let (l, r) = (l?, r?);
                    let (rl, rr) = (rank(&l.kind)?, rank(&r.kind)?);
                    let kind = if rl >= rr { l.kind } else { r.kind };
                    Some(ty(kind, l.nullable || r.nullable))
                }
                BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq
                | BinaryOperator::And
                | BinaryOperator::Or => {
                    let (l, r) = (l?, r?);
                    Some(ty(TypeKind::Boolean, l.nullable || r.nullable))
                }
                _ => None,
            }
        }
        sp::Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            let a = args(f);
            match name.as_str() {
                // Flink 1.x: TIMESTAMP_LTZ(3), forced nullable, whatever the precision argument.
                "TO_TIMESTAMP_LTZ" => Some(ty(TypeKind::LocalZonedTimestamp(3), true)),
                "TO_TIMESTAMP" => Some(ty(TypeKind::Timestamp(3), true)),
                "PROCTIME" | "NOW" | "CURRENT_TIMESTAMP" | "CURRENT_ROW_TIMESTAMP" => {
                    Some(ty(TypeKind::LocalZonedTimestamp(3), false))
                }
                "LOCALTIMESTAMP" => Some(ty(TypeKind::Timestamp(3), false)),
                "DATE_FORMAT" | "FROM_UNIXTIME" => Some(ty(TypeKind::VarChar(MAX_LENGTH), true)),
                "UPPER" | "LOWER" | "TRIM" | "ABS" => infer(a.first()?, column),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_data_type;
    use sqlparser::parser::Parser;

    fn parse(s: &str) -> sp::Expr {
        Parser::new(&FlinkDialect)
            .try_with_sql(s)
            .unwrap()
            .parse_expr()
            .unwrap()
    }

    fn cols(name: &str) -> Option<DataType> {
        match name {
            "ts" => parse_data_type("BIGINT").ok(),
            "price" => parse_data_type("INT").ok(),
            "et" => parse_data_type("TIMESTAMP(3) WITH LOCAL TIME ZONE").ok(),
            "order_time" => parse_data_type("TIMESTAMP(3)").ok(),
            _ => None,
        }
    }

    #[test]
    fn serializes_like_flink() {
        let c = ["ts", "price", "et", "order_time"];
        assert_eq!(serialize(&parse("price*2"), &c), "`price` * 2");
        assert_eq!(
            serialize(&parse("order_time - interval '5' second"), &c),
            "`order_time` - INTERVAL '5' SECOND"
        );
        assert_eq!(
            serialize(&parse("to_timestamp_ltz(ts, 3)"), &c),
            "TO_TIMESTAMP_LTZ(`ts`, 3)"
        );
        assert_eq!(
            serialize(&parse("CAST(`price` AS BIGINT)"), &c),
            "CAST(`price` AS BIGINT)"
        );
    }

    #[test]
    fn infers_flink_result_types() {
        let t = |s: &str| infer(&parse(s), &cols).map(|t| serializable_type(&t));
        assert_eq!(t("price * 2").as_deref(), Some("INT"));
        assert_eq!(
            t("TO_TIMESTAMP_LTZ(ts, 3)").as_deref(),
            Some("TIMESTAMP(3) WITH LOCAL TIME ZONE")
        );
        assert_eq!(
            t("et - INTERVAL '1' SECOND").as_deref(),
            Some("TIMESTAMP(3) WITH LOCAL TIME ZONE")
        );
        assert_eq!(
            t("order_time - INTERVAL '5' SECOND").as_deref(),
            Some("TIMESTAMP(3)")
        );
        assert_eq!(
            t("CAST(price AS STRING)").as_deref(),
            Some("VARCHAR(2147483647)")
        );
        assert_eq!(
            t("PROCTIME()").as_deref(),
            Some("TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL")
        );
        assert_eq!(t("my_udf(price)"), None);
    }
}
