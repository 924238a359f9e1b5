//! Editor support for DDL text, without the parser: highlighting tokens, completion of columns, option keys and keywords.

mod complete;
pub mod option_docs;
mod tokens;

pub use complete::{complete, Completion, Suggestion, SuggestionKind};
pub use tokens::{highlight, tokenize, Segment, Token, TokenKind};
