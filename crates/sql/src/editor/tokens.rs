//! A small, forgiving tokenizer for highlighting Flink SQL (never fails: unfinished strings and comments run to the end).

/// What a piece of text is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// A reserved word (`ALTER`, `ADD`, …).
    Keyword,
    /// A data type name (`INT`, `STRING`, …).
    Type,
    /// A plain or backquoted identifier.
    Ident,
    /// A `'string literal'`.
    Str,
    /// A number.
    Number,
    /// A `-- line` or `/* block */` comment.
    Comment,
    /// Punctuation and operators.
    Punct,
    /// Spaces and line breaks.
    Space,
}

impl TokenKind {
    /// A CSS class name for the kind.
    pub fn class(self) -> &'static str {
        match self {
            TokenKind::Keyword => "tk-kw",
            TokenKind::Type => "tk-type",
            TokenKind::Ident => "tk-id",
            TokenKind::Str => "tk-str",
            TokenKind::Number => "tk-num",
            TokenKind::Comment => "tk-com",
            TokenKind::Punct => "tk-p",
            TokenKind::Space => "tk-sp",
        }
    }
}

/// One token: its kind, where it starts (in characters) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Its kind.
    pub kind: TokenKind,
    /// Offset of its first character, in characters.
    pub start: usize,
    /// Its text.
    pub text: String,
}

impl Token {
    /// Offset after its last character.
    pub fn end(&self) -> usize {
        self.start + self.text.chars().count()
    }
}

/// Words highlighted as keywords (DDL and the clauses around it).
pub const KEYWORDS: &[&str] = &[
    "ADD",
    "AFTER",
    "ALTER",
    "AS",
    "BY",
    "CATALOG",
    "COLUMN",
    "COMMENT",
    "CONSTRAINT",
    "CREATE",
    "DATABASE",
    "DISTRIBUTED",
    "DROP",
    "ENFORCED",
    "EXISTS",
    "FIRST",
    "FOR",
    "FROM",
    "IF",
    "INTO",
    "KEY",
    "LIKE",
    "METADATA",
    "MODIFY",
    "NOT",
    "NULL",
    "PARTITION",
    "PARTITIONED",
    "PRIMARY",
    "RENAME",
    "RESET",
    "SELECT",
    "SET",
    "SHOW",
    "TABLE",
    "TO",
    "VIRTUAL",
    "WATERMARK",
    "WHERE",
    "WITH",
];

/// Words highlighted as data types.
pub const TYPES: &[&str] = &[
    "ARRAY",
    "BIGINT",
    "BINARY",
    "BOOLEAN",
    "BYTES",
    "CHAR",
    "DATE",
    "DECIMAL",
    "DOUBLE",
    "FLOAT",
    "INT",
    "INTEGER",
    "LOCAL",
    "LTZ",
    "MAP",
    "MULTISET",
    "PRECISION",
    "ROW",
    "SMALLINT",
    "STRING",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMP_LTZ",
    "TINYINT",
    "VARBINARY",
    "VARCHAR",
    "WITHOUT",
    "ZONE",
];

fn word_kind(word: &str) -> TokenKind {
    let upper = word.to_ascii_uppercase();
    if KEYWORDS.contains(&upper.as_str()) {
        TokenKind::Keyword
    } else if TYPES.contains(&upper.as_str()) {
        TokenKind::Type
    } else {
        TokenKind::Ident
    }
}

/// Whether `c` continues a plain word.
pub(crate) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Splits `text` into tokens covering every character, in order.
pub fn tokenize(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        let c = chars[i];
        let until = |from: usize, stop: &dyn Fn(usize) -> bool| {
            let mut j = from;
            while j < chars.len() && !stop(j) {
                j += 1;
            }
            j
        };
        let (kind, end) = if c.is_whitespace() {
            (TokenKind::Space, until(i, &|j| !chars[j].is_whitespace()))
        } else if c == '-' && chars.get(i + 1) == Some(&'-') {
            (TokenKind::Comment, until(i, &|j| chars[j] == '\n'))
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            let close = until(i + 2, &|j| {
                chars[j] == '*' && chars.get(j + 1) == Some(&'/')
            });
            (TokenKind::Comment, (close + 2).min(chars.len()))
        } else if c == '\'' || c == '`' || c == '"' {
            // A doubled quote stays inside; an unfinished literal runs to the end.
            let mut j = i + 1;
            while j < chars.len() {
                if chars[j] == c {
                    if chars.get(j + 1) == Some(&c) {
                        j += 2;
                        continue;
                    }
                    j += 1;
                    break;
                }
                j += 1;
            }
            let kind = if c == '\'' {
                TokenKind::Str
            } else {
                TokenKind::Ident
            };
            (kind, j)
        } else if c.is_ascii_digit() {
            (
                TokenKind::Number,
                until(i, &|j| {
                    !(chars[j].is_ascii_alphanumeric() || chars[j] == '.')
                }),
            )
        } else if is_word(c) {
            let end = until(i, &|j| !is_word(chars[j]));
            let word: String = chars[i..end].iter().collect();
            (word_kind(&word), end)
        } else {
            (TokenKind::Punct, i + 1)
        };
        tokens.push(Token {
            kind,
            start,
            text: chars[start..end].iter().collect(),
        });
        i = end;
    }
    tokens
}

/// A run of text to render with one class; `error` marks the token an error points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The CSS class of its token kind.
    pub class: &'static str,
    /// Its text.
    pub text: String,
    /// Whether the error underline covers it.
    pub error: bool,
}

/// The segments of `text`, with the token at character offset `error_at` (or the next one when
/// it points at spaces) marked. An error past the last token marks nothing: callers show a marker
/// at the end.
pub fn highlight(text: &str, error_at: Option<usize>) -> Vec<Segment> {
    let tokens = tokenize(text);
    let marked = error_at.and_then(|at| {
        tokens
            .iter()
            .position(|t| t.kind != TokenKind::Space && t.end() > at)
    });
    tokens
        .into_iter()
        .enumerate()
        .map(|(n, t)| Segment {
            class: t.kind.class(),
            error: Some(n) == marked,
            text: t.text,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokenKind, String)> {
        tokenize(text)
            .into_iter()
            .filter(|t| t.kind != TokenKind::Space)
            .map(|t| (t.kind, t.text))
            .collect()
    }

    #[test]
    fn tokens_cover_the_text_and_are_classified() {
        let text =
            "ALTER TABLE `my``t` ADD (x DECIMAL(10, 2) COMMENT 'it''s <b>') -- done\n/* c */";
        let tokens = tokenize(text);
        let joined: String = tokens.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(joined, text);
        let got = kinds(text);
        assert_eq!(got[0], (TokenKind::Keyword, "ALTER".into()));
        assert_eq!(got[2], (TokenKind::Ident, "`my``t`".into()));
        assert_eq!(got[5], (TokenKind::Ident, "x".into()));
        assert_eq!(got[6], (TokenKind::Type, "DECIMAL".into()));
        assert_eq!(got[8], (TokenKind::Number, "10".into()));
        assert!(got.contains(&(TokenKind::Str, "'it''s <b>'".into())));
        assert!(got.contains(&(TokenKind::Comment, "-- done".into())));
        assert_eq!(got.last(), Some(&(TokenKind::Comment, "/* c */".into())));
    }

    #[test]
    fn unfinished_literals_run_to_the_end() {
        let got = kinds("SET ('a' = 'b");
        assert_eq!(got.last(), Some(&(TokenKind::Str, "'b".into())));
        let got = kinds("x /* open");
        assert_eq!(got.last(), Some(&(TokenKind::Comment, "/* open".into())));
    }

    #[test]
    fn offsets_count_characters() {
        let tokens = tokenize("'é' x");
        let x = tokens.last().expect("x");
        assert_eq!((x.start, x.text.as_str()), (4, "x"));
    }

    #[test]
    fn the_error_marks_its_token() {
        let segments = highlight("ALTER TABLE t ADD x INTT", Some(20));
        let marked: Vec<&str> = segments
            .iter()
            .filter(|s| s.error)
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(marked, ["INTT"]);
        // in spaces: the next token
        let segments = highlight("a  b", Some(1));
        assert!(segments.iter().any(|s| s.error && s.text == "b"));
        // past the end: nothing
        assert!(!highlight("a ", Some(2)).iter().any(|s| s.error));
    }
}
