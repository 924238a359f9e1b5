//! Completion at the cursor: column names and keywords in statements, option keys (with their documentation) in SET/RESET lists and string literals.

use super::option_docs::{COLUMN_PLACEHOLDER, OPTION_DOCS};
use super::tokens::{is_word, tokenize, TokenKind, KEYWORDS, TYPES};

/// What a suggestion is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuggestionKind {
    /// A column of the table.
    Column,
    /// A table option key.
    Option,
    /// A keyword or type name.
    Keyword,
}

/// One suggestion: the text shown and inserted, and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// What it is.
    pub kind: SuggestionKind,
    /// The text that replaces the word being typed.
    pub insert: String,
    /// One line about it (option keys).
    pub doc: Option<&'static str>,
}

/// Suggestions for the word that ends at the cursor, which they replace (`from..cursor`, in
/// characters).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// Where the replaced text starts.
    pub from: usize,
    /// Best first.
    pub items: Vec<Suggestion>,
}

/// Most suggestions offered at once.
const LIMIT: usize = 40;

/// Option keys for `prefix`, per-column patterns filled in with `columns`.
fn option_keys(prefix: &str, columns: &[String]) -> Vec<Suggestion> {
    let lower = prefix.to_lowercase();
    let mut out = Vec::new();
    for (key, doc) in OPTION_DOCS {
        let keys: Vec<String> = if key.contains(COLUMN_PLACEHOLDER) {
            columns
                .iter()
                .map(|c| key.replace(COLUMN_PLACEHOLDER, c))
                .collect()
        } else {
            vec![key.to_string()]
        };
        for k in keys {
            if k.to_lowercase().starts_with(&lower) {
                out.push(Suggestion {
                    kind: SuggestionKind::Option,
                    insert: k,
                    doc: Some(doc),
                });
            }
        }
    }
    out
}

/// Completion of `text` at character offset `cursor`, for a table with `columns`.
pub fn complete(text: &str, cursor: usize, columns: &[String]) -> Completion {
    let tokens = tokenize(text);
    let at = tokens
        .iter()
        .find(|t| t.start < cursor && cursor <= t.end());
    // Inside a comment: nothing.
    if at.is_some_and(|t| t.kind == TokenKind::Comment) {
        return Completion::default();
    }
    // The last SET/RESET/other keyword before the cursor decides between options and columns.
    let in_options = tokens
        .iter()
        .rev()
        .find(|t| t.end() <= cursor && t.kind == TokenKind::Keyword)
        .is_some_and(|t| {
            let w = t.text.to_ascii_uppercase();
            w == "SET" || w == "RESET" || w == "WITH"
        });
    if let Some(t) = at.filter(|t| t.kind == TokenKind::Str) {
        if !in_options {
            return Completion::default();
        }
        let from = t.start + 1;
        let prefix: String = t.text.chars().take(cursor - from).skip(1).collect();
        return Completion {
            from,
            items: option_keys(&prefix, columns)
                .into_iter()
                .take(LIMIT)
                .collect(),
        };
    }
    let chars: Vec<char> = text.chars().collect();
    let end = cursor.min(chars.len());
    let mut from = end;
    while from > 0 && is_word(chars[from - 1]) {
        from -= 1;
    }
    let prefix: String = chars[from..end].iter().collect();
    let lower = prefix.to_lowercase();
    if in_options {
        let items = option_keys(&prefix, columns)
            .into_iter()
            .map(|s| Suggestion {
                insert: format!("'{}'", s.insert),
                ..s
            })
            .take(LIMIT)
            .collect();
        return Completion { from, items };
    }
    let mut items: Vec<Suggestion> = columns
        .iter()
        .filter(|c| c.to_lowercase().starts_with(&lower) && c.as_str() != prefix)
        .map(|c| Suggestion {
            kind: SuggestionKind::Column,
            insert: c.clone(),
            doc: None,
        })
        .collect();
    if !prefix.is_empty() {
        items.extend(
            KEYWORDS
                .iter()
                .chain(TYPES)
                .filter(|k| k.to_lowercase().starts_with(&lower) && **k != prefix)
                .map(|k| Suggestion {
                    kind: SuggestionKind::Keyword,
                    insert: k.to_string(),
                    doc: None,
                }),
        );
    }
    items.truncate(LIMIT);
    Completion { from, items }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> Vec<String> {
        vec!["id".into(), "name".into(), "nickname".into()]
    }

    fn inserts(c: &Completion) -> Vec<&str> {
        c.items.iter().map(|s| s.insert.as_str()).collect()
    }

    #[test]
    fn columns_then_keywords_for_the_word_at_the_cursor() {
        let text = "ALTER TABLE t MODIFY n";
        let c = complete(text, text.len(), &cols());
        assert_eq!(c.from, text.len() - 1);
        assert_eq!(inserts(&c)[..2], ["name", "nickname"]);
        assert!(inserts(&c).contains(&"NOT"));
        assert!(c.items.iter().all(|s| s.kind != SuggestionKind::Option));
        // Ctrl+Space after a space: every column, no keywords
        let text = "ALTER TABLE t DROP ";
        assert_eq!(
            inserts(&complete(text, text.len(), &cols())),
            ["id", "name", "nickname"]
        );
    }

    #[test]
    fn option_keys_with_docs_after_set_and_in_strings() {
        let text = "ALTER TABLE t SET ('snapshot.num";
        let c = complete(text, text.chars().count(), &cols());
        assert_eq!(c.from, "ALTER TABLE t SET ('".len());
        assert_eq!(
            inserts(&c),
            ["snapshot.num-retained.min", "snapshot.num-retained.max"]
        );
        assert!(c.items.iter().all(|s| s.doc.is_some()));
        // outside quotes: quoted keys
        let text = "ALTER TABLE t RESET (buck";
        let c = complete(text, text.len(), &cols());
        assert_eq!(inserts(&c), ["'bucket'", "'bucket-key'"]);
        // per-column keys name the columns
        let text = "ALTER TABLE t SET ('fields.ni";
        let c = complete(text, text.len(), &cols());
        assert!(inserts(&c).contains(&"fields.nickname.aggregate-function"));
        // a string outside an option list (a comment) and a SQL comment: nothing
        let text = "ALTER TABLE t ADD x INT COMMENT 'na";
        assert!(complete(text, text.len(), &cols()).items.is_empty());
        let text = "-- na";
        assert!(complete(text, text.len(), &cols()).items.is_empty());
    }
}
