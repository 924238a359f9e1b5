//! Read-only object store over HTTP(S) `fetch`, for the browser (feature `browser`, wasm32 only).
//!
//! Static web hosts cannot list folders: wrap an [`HttpStore`] in [`crate::IndexedStore`] to list
//! from the generated index file. Ranges use `Range: bytes=a-b`; a server that ignores the header
//! and answers `200` with the whole object still works (the range is sliced out here).

use crate::fallback::{is_html_answer, is_html_body};
use crate::{Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use gloo_net::http::{Method, RequestBuilder, Response};
use std::ops::Range;

/// A read-only store rooted at a base URL (absolute, or relative to the current page).
#[derive(Debug, Clone)]
pub struct HttpStore {
    /// Absolute base URL, always ending with `/`.
    base: String,
}

impl HttpStore {
    /// A store rooted at `base_url`; a relative URL (e.g. `demo/warehouse/`) is resolved
    /// against the current page.
    pub fn new(base_url: &str) -> Self {
        let mut base = resolve_against_page(base_url.trim());
        if !base.ends_with('/') {
            base.push('/');
        }
        Self { base }
    }

    /// The absolute base URL (ends with `/`).
    pub fn base_url(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        object_url(&self.base, path)
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        range: Option<&Range<u64>>,
    ) -> Result<Response> {
        let url = self.url(path);
        let early = match (&method, range) {
            (&Method::GET, None) => early_response(&url).await,
            _ => None,
        };
        let response = match early {
            Some(response) => response,
            None => Self::fetch(method, &url, range).await?,
        };
        if response.status() == 416 {
            let asked = range.map_or(0, |r| r.end - r.start);
            return Err(Error::ShortRead {
                path: path.to_string(),
                expected: asked,
                received: 0,
            });
        }
        check_status(path, &url, response.status())?;
        if is_html_answer(path, response.headers().get("content-type").as_deref()) {
            return Err(not_found(path));
        }
        Ok(response)
    }

    async fn fetch(method: Method, url: &str, range: Option<&Range<u64>>) -> Result<Response> {
        let mut request = RequestBuilder::new(url).method(method);
        if let Some(r) = range {
            // Past the HTTP cache: Chromium lets one request at a time write a URL's cache
            // entry, so concurrent ranges of one file would be sent one after another.
            request = request
                .header("Range", &format!("bytes={}-{}", r.start, r.end - 1))
                .cache(web_sys::RequestCache::NoStore);
        }
        request.send().await.map_err(|e| Error::Io {
            operation: "fetch",
            path: url.to_string(),
            message: format!(
                "{e} (network error, or the host does not allow this page's origin via CORS)"
            ),
        })
    }

    async fn body(path: &str, response: Response) -> Result<Bytes> {
        crate::transport::body_bytes(response)
            .await
            .map_err(|message| Error::Io {
                operation: "read body of",
                path: path.to_string(),
                message,
            })
    }

    fn unsupported(&self, operation: &str) -> Error {
        Error::Unsupported {
            store: self.describe(),
            operation: format!("{operation} (HTTP stores are read-only)"),
        }
    }
}

#[async_trait(?Send)]
impl ObjectStore for HttpStore {
    fn describe(&self) -> String {
        self.base.clone()
    }

    fn root_uri(&self) -> Option<String> {
        Some(self.base.clone())
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        let response = self.send(Method::GET, path, None).await?;
        let body = Self::body(path, response).await?;
        if is_html_body(path, &body) {
            return Err(not_found(path));
        }
        Ok(body)
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        if range.start > range.end {
            return Err(Error::OutOfRange {
                path: path.to_string(),
                start: range.start,
                end: range.end,
                size: 0,
            });
        }
        if range.start == range.end {
            return Ok(Bytes::new());
        }
        let response = self.send(Method::GET, path, Some(&range)).await?;
        let status = response.status();
        let body = Self::body(path, response).await?;
        if (status == 200 || range.start == 0) && is_html_body(path, &body) {
            return Err(not_found(path));
        }
        range_from_response(path, status, body, range)
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        let response = self.send(Method::HEAD, path, None).await?;
        let length = response
            .headers()
            .get("content-length")
            .and_then(|v| v.trim().parse::<u64>().ok());
        let size = match length {
            Some(n) => n,
            // No usable length (e.g. a compressed response): fall back to reading it.
            None => self.get(path).await?.len() as u64,
        };
        Ok(ObjectMeta {
            path: path.to_string(),
            size,
        })
    }

    async fn list_dir(&self, _prefix: &str) -> Result<Listing> {
        Err(self
            .unsupported("listing (wrap the store in IndexedStore to list from the index file)"))
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

/// The global map of the requests the page's boot script sent before the app started
/// (`web/boot.js`: the warehouse's index and the linked table's first metadata, fetched while
/// the wasm downloads): absolute URL → `Promise<Response>`.
const EARLY_FETCHES: &str = "lakescopeEarlyFetches";

/// The boot script's response for `url`, taken out of [`EARLY_FETCHES`] (each is used once:
/// a later read of a changing file such as `LATEST` goes to the host); `None` when there is
/// none or it failed (the caller then sends the request itself).
async fn early_response(url: &str) -> Option<Response> {
    use wasm_bindgen::JsCast;
    let early = js_sys::Reflect::get(&js_sys::global(), &EARLY_FETCHES.into()).ok()?;
    let early: js_sys::Map = early.dyn_into().ok()?;
    let key = wasm_bindgen::JsValue::from_str(url);
    let promise: js_sys::Promise = early.get(&key).dyn_into().ok()?;
    early.delete(&key);
    let response = wasm_bindgen_futures::JsFuture::from(promise).await.ok()?;
    Some(Response::from(
        response.dyn_into::<web_sys::Response>().ok()?,
    ))
}

/// Resolves `base` against the URL of the current page or worker script (none, or unparsable:
/// `base` unchanged).
fn resolve_against_page(base: &str) -> String {
    let global = js_sys::global();
    let href = js_sys::Reflect::get(&global, &"location".into())
        .ok()
        .filter(|l| !l.is_undefined())
        .and_then(|l| js_sys::Reflect::get(&l, &"href".into()).ok())
        .and_then(|h| h.as_string());
    match href {
        Some(page) => web_sys::Url::new_with_base(base, &page)
            .map(|u| u.href())
            .unwrap_or_else(|_| base.to_string()),
        None => base.to_string(),
    }
}

/// The URL of object `path` below `base` (which ends with `/`); each path segment is escaped.
pub(crate) fn object_url(base: &str, path: &str) -> String {
    let mut url = base.to_string();
    let segments: Vec<String> = path
        .trim_start_matches('/')
        .split('/')
        .map(escape_segment)
        .collect();
    url.push_str(&segments.join("/"));
    url
}

/// Percent-escapes what a URL path segment must not contain raw.
fn escape_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'=' | b'$' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The error for an object the host does not have (it answered 404, or its fallback page).
fn not_found(path: &str) -> Error {
    Error::NotFound {
        path: path.to_string(),
    }
}

/// Maps an HTTP status to a storage error (2xx is fine).
pub(crate) fn check_status(path: &str, url: &str, status: u16) -> Result<()> {
    match status {
        200..=299 => Ok(()),
        404 | 410 => Err(not_found(path)),
        401 | 403 => Err(Error::PermissionDenied {
            path: path.to_string(),
            hint: format!(
                "HTTP {status} from {url}: the host needs credentials, or does not allow this origin (CORS)"
            ),
        }),
        _ => Err(Error::Io {
            operation: "fetch",
            path: url.to_string(),
            message: format!("HTTP {status}"),
        }),
    }
}

/// The bytes of `range` from a response: `206` holds just the range, `200` the whole object.
pub(crate) fn range_from_response(
    path: &str,
    status: u16,
    body: Bytes,
    range: Range<u64>,
) -> Result<Bytes> {
    let expected = range.end - range.start;
    let (start, available) = if status == 206 {
        (0u64, body.len() as u64)
    } else {
        (range.start, (body.len() as u64).saturating_sub(range.start))
    };
    if available < expected {
        return Err(Error::ShortRead {
            path: path.to_string(),
            expected,
            received: available,
        });
    }
    Ok(body.slice(start as usize..(start + expected) as usize))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn builds_escaped_object_urls() {
        assert_eq!(
            object_url("https://h/w/", "db.db/t/snapshot/LATEST"),
            "https://h/w/db.db/t/snapshot/LATEST"
        );
        assert_eq!(
            object_url("https://h/w/", "a b/c#d"),
            "https://h/w/a%20b/c%23d"
        );
        assert_eq!(
            object_url("https://h/w/", "dt=2024-01-01/x"),
            "https://h/w/dt=2024-01-01/x"
        );
    }

    #[wasm_bindgen_test]
    fn maps_statuses() {
        assert!(check_status("p", "u", 206).is_ok());
        assert!(matches!(
            check_status("p", "u", 404),
            Err(Error::NotFound { .. })
        ));
        let denied = check_status("p", "u", 403).unwrap_err().to_string();
        assert!(denied.contains("CORS"), "{denied}");
        assert!(matches!(check_status("p", "u", 500), Err(Error::Io { .. })));
    }

    #[wasm_bindgen_test]
    fn slices_ranges_from_partial_and_full_responses() {
        let whole = Bytes::from_static(b"0123456789");
        let got = range_from_response("p", 200, whole.clone(), 2..5).unwrap();
        assert_eq!(&got[..], b"234");
        let got = range_from_response("p", 206, Bytes::from_static(b"234"), 2..5).unwrap();
        assert_eq!(&got[..], b"234");
        assert!(matches!(
            range_from_response("p", 206, Bytes::from_static(b"23"), 2..5),
            Err(Error::ShortRead {
                expected: 3,
                received: 2,
                ..
            })
        ));
        assert!(matches!(
            range_from_response("p", 200, whole, 8..12),
            Err(Error::ShortRead {
                expected: 4,
                received: 2,
                ..
            })
        ));
    }

    #[wasm_bindgen_test]
    async fn missing_object_on_the_page_origin_is_not_found() {
        let store = HttpStore::new("/lakescope-no-such-dir/");
        assert!(store.base_url().starts_with("http"), "{}", store.base_url());
        let err = store.get("nothing-here").await.unwrap_err();
        assert!(err.is_not_found(), "{err}");
        assert!(matches!(
            store.list_dir("").await,
            Err(Error::Unsupported { .. })
        ));
    }
}
