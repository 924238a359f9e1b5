//! Recognises the page a web host serves in place of a missing object (single-page-app fallback).
//!
//! `trunk serve`, Netlify, Cloudflare Pages, Vercel, CloudFront's "404 → 200 /index.html" rule and
//! nginx's `try_files $uri /index.html` answer a missing path with `200` and the app's HTML page.
//! No table file is HTML (JSON starts with `{`, Avro with `Obj`, Parquet with `PAR1`, ORC with
//! `ORC`, hints with a digit), so an HTML answer for a key that names no HTML file means the key
//! is absent: the HTTP stores turn it into [`crate::Error::NotFound`].

/// Whether an answer with `content_type` for object `path` is a host's fallback page: the key
/// names no HTML file and the answer says it is HTML.
pub(crate) fn is_html_answer(path: &str, content_type: Option<&str>) -> bool {
    !names_html_file(path)
        && content_type.is_some_and(|ct| {
            let media = ct.split(';').next().unwrap_or_default().trim();
            media.eq_ignore_ascii_case("text/html")
                || media.eq_ignore_ascii_case("application/xhtml+xml")
        })
}

/// Whether `body`, the start of object `path`, is an HTML document where a table file was
/// expected (for hosts that serve their fallback page under another media type).
pub(crate) fn is_html_body(path: &str, body: &[u8]) -> bool {
    if names_html_file(path) {
        return false;
    }
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let head = &body[start..body.len().min(start + 16)];
    const OPENINGS: [&[u8]; 4] = [b"<!doctype html", b"<html", b"<head", b"<!--"];
    OPENINGS.iter().any(|opening| {
        head.len() >= opening.len() && head[..opening.len()].eq_ignore_ascii_case(opening)
    })
}

fn names_html_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    name.ends_with(".html") || name.ends_with(".htm")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_html_answer_for_a_table_file_is_a_fallback_page() {
        assert!(is_html_answer(
            "d.db/t/snapshot/snapshot-7",
            Some("text/html")
        ));
        assert!(is_html_answer(
            "t/metadata/version-hint.text",
            Some("text/html; charset=utf-8")
        ));
        assert!(is_html_answer("x", Some("TEXT/HTML")));
        assert!(!is_html_answer(
            "d.db/t/snapshot/snapshot-7",
            Some("application/octet-stream")
        ));
        assert!(!is_html_answer("d.db/t/snapshot/snapshot-7", None));
        // A key that is an HTML file is what it says.
        assert!(!is_html_answer("docs/index.html", Some("text/html")));
    }

    #[test]
    fn an_html_document_where_a_table_file_was_expected_is_a_fallback_page() {
        let page = b"<!DOCTYPE html>\n<html><head><title>lakescope</title>";
        assert!(is_html_body("d.db/t/snapshot/LATEST", page));
        assert!(is_html_body(
            "d.db/t/snapshot/LATEST",
            b"\xEF\xBB\xBF  \r\n<html lang=en>"
        ));
        assert!(is_html_body(
            "d.db/t/schema/schema-1",
            b"<!-- built by trunk -->"
        ));
        assert!(!is_html_body("docs/page.htm", page));
        // Table files never start like that; a short or empty body is not HTML either.
        assert!(!is_html_body(
            "d.db/t/snapshot/snapshot-1",
            br#"{"version":3}"#
        ));
        assert!(!is_html_body("d.db/t/manifest/m-0", b"Obj\x01"));
        assert!(!is_html_body("d.db/t/snapshot/LATEST", b"4"));
        assert!(!is_html_body("d.db/t/snapshot/LATEST", b""));
        assert!(!is_html_body("d.db/t/snapshot/LATEST", b"<ht"));
        // Garbage that is not HTML stays for the reader to report as a bad file.
        assert!(!is_html_body(
            "d.db/t/snapshot/snapshot-2",
            b"<?xml version=\"1.0\"?><Error/>"
        ));
    }
}
