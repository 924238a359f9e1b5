//! Jackson's text forms (`JsonGenerator.writeString`, `DefaultPrettyPrinter`), for text that
//! must equal what Java Paimon prints.

use std::fmt::Write;

/// A JSON string as Jackson's `JsonGenerator.writeString` writes it: short escapes for quote,
/// backslash, `\b \t \n \f \r`, other control characters as `\u00XX` (upper-case hex),
/// everything else as is.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0C}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// An object of `members` (a key and its value's text, already written) as Jackson's
/// `DefaultPrettyPrinter` writes it at nesting `depth`: `{`, each member on its own line
/// indented by two spaces per level as `"key" : value`, then `}` on its own line; an empty
/// object is `{ }`.
pub fn pretty_object(members: &[(&str, String)], depth: usize) -> String {
    if members.is_empty() {
        return "{ }".into();
    }
    let mut out = String::from("{");
    for (i, (key, value)) in members.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(&"  ".repeat(depth + 1));
        write_string(&mut out, key);
        out.push_str(" : ");
        out.push_str(value);
    }
    out.push('\n');
    out.push_str(&"  ".repeat(depth));
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_jackson_does() {
        let mut out = String::new();
        write_string(&mut out, "a\"b\\c\n\u{1f}ä");
        assert_eq!(out, "\"a\\\"b\\\\c\\n\\u001Fä\"");
    }

    #[test]
    fn objects_are_pretty_printed_as_jackson_does() {
        let inner = pretty_object(&[("x", "1".into())], 1);
        let outer = pretty_object(&[("k", inner), ("e", pretty_object(&[], 1))], 0);
        assert_eq!(
            outer,
            "{\n  \"k\" : {\n    \"x\" : 1\n  },\n  \"e\" : { }\n}"
        );
    }
}
