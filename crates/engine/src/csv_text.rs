//! CSV lines of text cells (RFC 4180 quoting), for the CLI's `--format csv` and the app's export.

/// One CSV line (no line end): the cells joined by `,`, each quoted when it holds a comma, a
/// quote or a line break (quotes doubled). A `None` cell is empty.
pub fn line<S: AsRef<str>>(cells: impl IntoIterator<Item = Option<S>>) -> String {
    let mut out = String::new();
    for (i, cell) in cells.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let Some(cell) = cell else { continue };
        let text = cell.as_ref();
        if text.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&text.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::line;

    #[test]
    fn fields_are_quoted_only_when_they_must_be() {
        let cells = [
            Some("plain"),
            None,
            Some("a,b"),
            Some("say \"hi\""),
            Some("two\nlines"),
            Some("cr\r"),
            Some(""),
        ];
        assert_eq!(
            line(cells),
            "plain,,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\","
        );
        assert_eq!(line(Vec::<Option<&str>>::new()), "");
    }
}
