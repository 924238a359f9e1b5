//! The browser transport (`fetch` through gloo-net) and timer (`setTimeout`), for S3 in wasm32.

use super::{HttpRequest, HttpResponse, HttpTransport, TransportError};
use crate::retry::Timer;
use async_trait::async_trait;
use bytes::Bytes;
use futures::future::LocalBoxFuture;
use gloo_net::http::{Method, RequestBuilder};
use std::time::Duration;

/// Sends requests with the page's `fetch`; CORS rules of the target apply.
#[derive(Debug, Clone, Copy, Default)]
pub struct FetchTransport;

/// Headers the browser sets itself and refuses from scripts.
const FORBIDDEN: [&str; 2] = ["host", "content-length"];

#[async_trait(?Send)]
impl HttpTransport for FetchTransport {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        let method = Method::from_bytes(request.method.as_bytes())
            .map_err(|e| TransportError::Connection(format!("bad method: {e}")))?;
        let mut builder = RequestBuilder::new(&request.url).method(method);
        for (k, v) in &request.headers {
            if !FORBIDDEN.contains(&k.as_str()) {
                builder = builder.header(k, v);
            }
        }
        let built = if request.body.is_empty() && request.method != "PUT" {
            builder.build()
        } else {
            builder.body(js_sys::Uint8Array::from(&request.body[..]))
        }
        .map_err(|e| TransportError::Connection(e.to_string()))?;
        let response = built.send().await.map_err(|e| {
            TransportError::Connection(format!(
                "{e} (network error, or the bucket's CORS rules do not allow this page's origin)"
            ))
        })?;
        let status = response.status();
        let headers = response.headers().entries().collect();
        let body = response
            .binary()
            .await
            .map_err(|e| TransportError::Connection(format!("body cut off: {e}")))?;
        Ok(HttpResponse {
            status,
            headers,
            body: Bytes::from(body),
        })
    }
}

/// Sleeps with `setTimeout` (needs a `window`).
#[derive(Debug, Clone, Copy, Default)]
pub struct BrowserTimer;

impl Timer for BrowserTimer {
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        let ms = duration.as_millis().min(i32::MAX as u128) as i32;
        let promise = js_sys::Promise::new(&mut |resolve, _reject| {
            if let Some(window) = web_sys::window() {
                let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
            }
        });
        Box::pin(async move {
            let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
        })
    }
}
