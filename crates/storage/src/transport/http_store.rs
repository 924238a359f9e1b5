//! A read-only store over plain HTTP(S) through any [`HttpTransport`], plus the response checks S3 shares.

use super::{HttpRequest, HttpResponse};
use crate::fallback::{is_html_answer, is_html_body};
use crate::retry::{is_retryable_status, status_error, transport_error, Attempt, Sender};
use crate::{Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::ops::Range;

/// A read-only store rooted at a base URL (a static web host); wrap it in
/// [`crate::IndexedStore`] to list from the generated index file.
#[derive(Clone)]
pub struct HttpReadStore {
    base: String,
    sender: Sender,
}

impl HttpReadStore {
    /// A store rooted at `base_url` (`http://` or `https://`).
    pub fn new(base_url: &str, sender: Sender) -> Self {
        let mut base = base_url.trim().to_string();
        if !base.ends_with('/') {
            base.push('/');
        }
        Self { base, sender }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, encode_key(path.trim_start_matches('/')))
    }

    async fn read(
        &self,
        method: &'static str,
        path: &str,
        range: Option<Range<u64>>,
    ) -> Result<(HttpResponse, Bytes)> {
        let operation = if method == "HEAD" { "head" } else { "read" };
        self.sender
            .run(|_| {
                let mut request = HttpRequest::new(method, self.url(path));
                if let Some(r) = &range {
                    request = request.header("range", format!("bytes={}-{}", r.start, r.end - 1));
                }
                let range = range.clone();
                async move {
                    let response = match self.sender.send_once(request).await {
                        Ok(r) => r,
                        Err(e) => return Attempt::Retry(transport_error(operation, path, e)),
                    };
                    if let Some(done) = classify_status(operation, path, &response, &|_| {
                        "the web host refused this object (if it is on another origin, it must allow \
                         this page's origin via CORS and expose Content-Range and Content-Length)"
                            .to_string()
                    }) {
                        return done;
                    }
                    if is_fallback_page(path, &response, range.as_ref()) {
                        return Attempt::Done(Err(Error::NotFound {
                            path: path.to_string(),
                        }));
                    }
                    if method == "HEAD" {
                        return Attempt::Done(Ok((response, Bytes::new())));
                    }
                    match checked_body(path, &response, range) {
                        Attempt::Done(Ok(body)) => Attempt::Done(Ok((response, body))),
                        Attempt::Done(Err(e)) => Attempt::Done(Err(e)),
                        Attempt::Retry(e) => Attempt::Retry(e),
                    }
                }
            })
            .await
    }

    fn unsupported(&self, operation: &str) -> Error {
        Error::Unsupported {
            store: self.describe(),
            operation: format!("{operation} (HTTP stores are read-only)"),
        }
    }
}

/// `None` if the status is a success; otherwise the final error or a retry.
pub(crate) fn classify_status<T>(
    operation: &'static str,
    path: &str,
    response: &HttpResponse,
    denied_hint: &dyn Fn(&HttpResponse) -> String,
) -> Option<Attempt<T>> {
    let status = response.status;
    if (200..300).contains(&status) {
        return None;
    }
    Some(match status {
        404 => Attempt::Done(Err(Error::NotFound {
            path: path.to_string(),
        })),
        401 | 403 => Attempt::Done(Err(Error::PermissionDenied {
            path: path.to_string(),
            hint: denied_hint(response),
        })),
        s if is_retryable_status(s) => Attempt::Retry(status_error(operation, path, s)),
        s => Attempt::Done(Err(Error::Io {
            operation,
            path: path.to_string(),
            message: format!("server answered HTTP {s}{}", error_code_suffix(response)),
        })),
    })
}

/// Whether a successful answer for `path` is the host's single-page-app fallback page (HTML by
/// its media type, or by the start of a body that begins at the object's first byte), not the object.
fn is_fallback_page(path: &str, response: &HttpResponse, range: Option<&Range<u64>>) -> bool {
    let body_is_object_start = response.status == 200 || range.is_none_or(|r| r.start == 0);
    is_html_answer(path, response.header("content-type"))
        || (body_is_object_start && is_html_body(path, &response.body))
}

/// ` (S3 error Code: message)` from an S3-style XML error body, or nothing.
pub(crate) fn error_code_suffix(response: &HttpResponse) -> String {
    let text = String::from_utf8_lossy(&response.body);
    let tag = |name: &str| {
        let open = format!("<{name}>");
        let close = format!("</{name}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&close)? + start;
        Some(text[start..end].to_string())
    };
    match (tag("Code"), tag("Message")) {
        (Some(code), Some(message)) => format!(" ({code}: {message})"),
        (Some(code), None) => format!(" ({code})"),
        _ => String::new(),
    }
}

/// The body of a successful read, checked against `Content-Length` and the asked range: a short
/// body is retried (and reported as [`Error::ShortRead`] if it stays short), a range past the end
/// of the object is [`Error::OutOfRange`]. A `200` answer to a range request is sliced here.
pub(crate) fn checked_body(
    path: &str,
    response: &HttpResponse,
    range: Option<Range<u64>>,
) -> Attempt<Bytes> {
    let body = response.body.clone();
    let received = body.len() as u64;
    if let Some(expected) = response.content_length() {
        if received < expected {
            return Attempt::Retry(Error::ShortRead {
                path: path.to_string(),
                expected,
                received,
            });
        }
    }
    let Some(range) = range else {
        return Attempt::Done(Ok(body));
    };
    let total = content_range_total(response);
    if response.status == 206 {
        let start = content_range_start(response).unwrap_or(range.start);
        if start != range.start {
            return Attempt::Done(Err(Error::Io {
                operation: "read",
                path: path.to_string(),
                message: format!(
                    "asked for bytes from {} but the server sent bytes from {start}",
                    range.start
                ),
            }));
        }
        if let Some(size) = total.filter(|size| *size < range.end) {
            return Attempt::Done(Err(Error::OutOfRange {
                path: path.to_string(),
                start: range.start,
                end: range.end,
                size,
            }));
        }
        let expected = range.end - range.start;
        if received < expected {
            return Attempt::Retry(Error::ShortRead {
                path: path.to_string(),
                expected,
                received,
            });
        }
        return Attempt::Done(Ok(body.slice(..expected as usize)));
    }
    // 200: the whole object.
    if received < range.end {
        return Attempt::Done(Err(Error::OutOfRange {
            path: path.to_string(),
            start: range.start,
            end: range.end,
            size: received,
        }));
    }
    Attempt::Done(Ok(body.slice(range.start as usize..range.end as usize)))
}

fn content_range_total(response: &HttpResponse) -> Option<u64> {
    response
        .header("content-range")?
        .rsplit('/')
        .next()?
        .trim()
        .parse()
        .ok()
}

fn content_range_start(response: &HttpResponse) -> Option<u64> {
    let v = response.header("content-range")?.trim();
    let v = v.strip_prefix("bytes ")?;
    v.split('-').next()?.trim().parse().ok()
}

/// Percent-encodes a key for a URL path: every byte but unreserved characters and `/`.
pub fn encode_key(key: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~')
        .remove(b'/');
    percent_encoding::utf8_percent_encode(key, SET).to_string()
}

/// The range to ask for, or an immediate answer for empty and inverted ranges.
pub(crate) fn trivial_range(path: &str, range: &Range<u64>) -> Option<Result<Bytes>> {
    if range.start > range.end {
        return Some(Err(Error::OutOfRange {
            path: path.to_string(),
            start: range.start,
            end: range.end,
            size: 0,
        }));
    }
    (range.start == range.end).then(|| Ok(Bytes::new()))
}

#[async_trait(?Send)]
impl ObjectStore for HttpReadStore {
    fn describe(&self) -> String {
        self.base.clone()
    }

    fn root_uri(&self) -> Option<String> {
        Some(self.base.clone())
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        Ok(self.read("GET", path, None).await?.1)
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        if let Some(answer) = trivial_range(path, &range) {
            return answer;
        }
        Ok(self.read("GET", path, Some(range)).await?.1)
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        let (response, _) = self.read("HEAD", path, None).await?;
        let size = match response.content_length() {
            Some(size) => size,
            None => self.get(path).await?.len() as u64,
        };
        Ok(ObjectMeta {
            path: path.to_string(),
            size,
        })
    }

    async fn list_dir(&self, _prefix: &str) -> Result<Listing> {
        Err(self.unsupported("listing"))
    }

    async fn put(&self, _path: &str, _data: Bytes) -> Result<()> {
        Err(self.unsupported("put"))
    }

    async fn put_if_absent(&self, _path: &str, _data: Bytes) -> Result<PutOutcome> {
        Err(self.unsupported("put_if_absent"))
    }

    async fn delete(&self, _path: &str) -> Result<()> {
        Err(self.unsupported("delete"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(status: u16, headers: &[(&str, &str)], body: &'static [u8]) -> HttpResponse {
        HttpResponse {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: Bytes::from_static(body),
        }
    }

    fn done(a: Attempt<Bytes>) -> Result<Bytes> {
        match a {
            Attempt::Done(r) => r,
            Attempt::Retry(e) => Err(e),
        }
    }

    #[test]
    fn range_bodies_are_checked() {
        // 206 with exactly the range.
        let r = response(206, &[("content-range", "bytes 2-4/10")], b"cde");
        assert_eq!(done(checked_body("k", &r, Some(2..5))).unwrap(), "cde");
        // 200 with the whole object: sliced.
        let r = response(200, &[], b"abcdefghij");
        assert_eq!(done(checked_body("k", &r, Some(2..5))).unwrap(), "cde");
        // Short 206 body: retried, reported as ShortRead.
        let r = response(206, &[("content-range", "bytes 2-4/10")], b"cd");
        assert!(matches!(
            checked_body("k", &r, Some(2..5)),
            Attempt::Retry(Error::ShortRead {
                expected: 3,
                received: 2,
                ..
            })
        ));
        // Body shorter than Content-Length: retried.
        let r = response(200, &[("content-length", "10")], b"abc");
        assert!(matches!(checked_body("k", &r, None), Attempt::Retry(_)));
        // Range past the end of the object.
        let r = response(206, &[("content-range", "bytes 8-9/10")], b"ij");
        assert!(matches!(
            done(checked_body("k", &r, Some(8..12))),
            Err(Error::OutOfRange { size: 10, .. })
        ));
        assert_eq!(
            encode_key("db.db/t/dt=2024 01/a+b"),
            "db.db/t/dt%3D2024%2001/a%2Bb"
        );
    }

    #[test]
    fn a_single_page_app_fallback_answer_is_a_missing_object() {
        let page = b"<!doctype html><html><body>app</body></html>";
        let html = response(200, &[("content-type", "text/html")], page);
        assert!(is_fallback_page("t/snapshot/snapshot-8", &html, None));
        // Served under another media type: recognised by its body, when the body is the
        // object's start (a whole answer, or a range from byte 0).
        let octets = response(200, &[("content-type", "application/octet-stream")], page);
        assert!(is_fallback_page("t/snapshot/LATEST", &octets, None));
        assert!(is_fallback_page(
            "t/snapshot/LATEST",
            &octets,
            Some(&(4..9))
        ));
        let partial = response(206, &[("content-range", "bytes 0-9/44")], page);
        assert!(is_fallback_page("t/manifest/m", &partial, Some(&(0..10))));
        let middle = response(206, &[("content-range", "bytes 4-9/44")], b"<html>");
        assert!(!is_fallback_page("t/data.parquet", &middle, Some(&(4..10))));
        // A real object, and an HTML file asked for by name, are what they are.
        let json = response(200, &[("content-type", "application/json")], b"{\"id\":1}");
        assert!(!is_fallback_page("t/snapshot/snapshot-1", &json, None));
        assert!(!is_fallback_page("site/index.html", &html, None));
    }
}
