//! An HTTP transport trait (request → status, headers, body) that the S3 and HTTP stores send through.
//!
//! Natively, [`ReqwestTransport`] (feature `native-http`) implements it; in the browser
//! (feature `browser`, wasm32), `FetchTransport` with `BrowserTimer`. [`FaultyTransport`] wraps any transport and injects
//! failures for tests; [`CannedTransport`] answers from a script.

mod canned;
mod fault;
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
mod fetch;
pub(crate) mod http_store;

pub use canned::CannedTransport;
pub use fault::{Fault, FaultyTransport};
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub(crate) use fetch::body_bytes;
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub use fetch::{BrowserTimer, FetchTransport};
pub use http_store::{encode_key, HttpReadStore};

use async_trait::async_trait;
use bytes::Bytes;
use std::time::Duration;

/// One HTTP request. Header names are lower-case.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// The HTTP method (`GET`, `PUT`, …).
    pub method: &'static str,
    /// The absolute URL.
    pub url: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body (empty for a GET).
    pub body: Bytes,
}

impl HttpRequest {
    /// A request without headers or body.
    pub fn new(method: &'static str, url: impl Into<String>) -> Self {
        Self {
            method,
            url: url.into(),
            headers: Vec::new(),
            body: Bytes::new(),
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }
}

/// One HTTP response. Header names are lower-case.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    /// The HTTP status code.
    pub status: u16,
    /// Header names and values as received.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Bytes,
}

impl HttpResponse {
    /// The first value of a header (name matched case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// `Content-Length`, if the server sent a valid one.
    pub fn content_length(&self) -> Option<u64> {
        self.header("content-length")?.trim().parse().ok()
    }
}

/// Why a request got no response. All of these are worth retrying.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// No complete response within the per-request timeout.
    #[error("no response within {0:?}")]
    Timeout(Duration),
    /// The connection could not be made, was reset, or the body was cut off.
    #[error("connection failed: {0}")]
    Connection(String),
}

/// Whether a request that changes something (a catalog commit) answered with `status` (`None`:
/// no complete answer) may have been applied: no, a cut-off or an unreadable answer (a success
/// status the client cannot read), or a server error other than `501 Not Implemented`.
pub fn may_have_applied(status: Option<u16>) -> bool {
    match status {
        None => true,
        Some(s) => (200..300).contains(&s) || (s >= 500 && s != 501),
    }
}

/// Sends HTTP requests. Implementations apply their own per-request timeout where they can; the
/// stores also race every request against their retry policy's timeout.
#[async_trait(?Send)]
pub trait HttpTransport {
    /// Sends one request and reads the whole response body.
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError>;
}

#[cfg(all(feature = "native-http", not(target_arch = "wasm32")))]
pub use native::ReqwestTransport;

#[cfg(all(feature = "native-http", not(target_arch = "wasm32")))]
mod native {
    use super::*;

    /// The native transport: `reqwest` with rustls, on the caller's tokio runtime.
    #[derive(Debug, Clone)]
    pub struct ReqwestTransport {
        client: reqwest::Client,
        timeout: Duration,
    }

    impl ReqwestTransport {
        /// A transport whose requests (connect + whole body) time out after `timeout`.
        pub fn new(timeout: Duration) -> Result<Self, TransportError> {
            let client = reqwest::Client::builder()
                .connect_timeout(timeout)
                .build()
                .map_err(|e| {
                    TransportError::Connection(format!("cannot build HTTP client: {e}"))
                })?;
            Ok(Self { client, timeout })
        }
    }

    fn classify(e: reqwest::Error, timeout: Duration) -> TransportError {
        if e.is_timeout() {
            TransportError::Timeout(timeout)
        } else {
            // Strip the URL: a presigned URL carries a signature in its query.
            TransportError::Connection(e.without_url().to_string())
        }
    }

    #[async_trait(?Send)]
    impl HttpTransport for ReqwestTransport {
        async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
            let method = reqwest::Method::from_bytes(request.method.as_bytes())
                .map_err(|e| TransportError::Connection(format!("bad method: {e}")))?;
            let mut builder = self
                .client
                .request(method, &request.url)
                .timeout(self.timeout);
            for (k, v) in &request.headers {
                builder = builder.header(k.as_str(), v.as_str());
            }
            if !request.body.is_empty() || request.method == "PUT" {
                builder = builder.body(request.body.clone());
            }
            let response = builder
                .send()
                .await
                .map_err(|e| classify(e, self.timeout))?;
            let status = response.status().as_u16();
            let headers = response
                .headers()
                .iter()
                .map(|(k, v)| {
                    (
                        k.as_str().to_string(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect();
            let body = response
                .bytes()
                .await
                .map_err(|e| classify(e, self.timeout))?;
            Ok(HttpResponse {
                status,
                headers,
                body,
            })
        }
    }
}
