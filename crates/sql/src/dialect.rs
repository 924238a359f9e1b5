//! The Flink SQL dialect for sqlparser's tokenizer and parser: backtick identifiers, `$` in names.

use sqlparser::dialect::Dialect;

/// Flink SQL as sqlparser sees it (expressions and queries; DDL is handled by our front end).
#[derive(Debug, Default, Clone, Copy)]
pub struct FlinkDialect;

impl Dialect for FlinkDialect {
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        ch == '`'
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        ch.is_alphabetic() || ch == '_'
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        ch.is_alphabetic() || ch.is_ascii_digit() || ch == '_' || ch == '$'
    }

    fn supports_named_fn_args_with_rarrow_operator(&self) -> bool {
        true
    }

    fn supports_group_by_expr(&self) -> bool {
        true
    }

    fn supports_left_associative_joins_without_parens(&self) -> bool {
        true
    }
}
