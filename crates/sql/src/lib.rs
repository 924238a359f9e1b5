//! Flink SQL front end for lakescope: script splitting, a typed statement AST built on sqlparser's
//! tokenizer and parser, validation with Paimon's and Flink's rules, and SHOW CREATE TABLE.
//!
//! No IO: the engine resolves catalogs and tables and passes existing schemas in.

#![warn(missing_docs)]

pub mod ast;
mod cursor;
pub mod dialect;
pub mod editor;
pub mod error;
pub mod evolve;
mod parser;
pub mod rewrite;
pub mod script;
pub mod show;
pub mod types;
pub mod validate;

pub use ast::{Parsed, Statement};
pub use error::{ErrorKind, Pos, Result, SqlError};
pub use evolve::apply_alter;
pub use parser::{parse_script, parse_statement};
pub use script::{split_script, StatementSource};
pub use show::{create_table_schema, show_create_table};
pub use types::parse_data_type;
pub use validate::{validate, TableFormat, ValidationContext};
