//! A transport answering from a script of canned responses, for tests of HTTP protocol
//! clients (catalog services): it records every request.

use super::{HttpRequest, HttpResponse, HttpTransport, TransportError};
use async_trait::async_trait;
use std::cell::RefCell;
use std::collections::VecDeque;

/// Answers each request with the next `(status, body)`; a request past the script gets a
/// connection error.
#[derive(Debug, Default)]
pub struct CannedTransport {
    answers: RefCell<VecDeque<(u16, String)>>,
    sent: RefCell<Vec<HttpRequest>>,
}

impl CannedTransport {
    /// A transport giving these answers in order.
    pub fn new<S: Into<String>>(answers: impl IntoIterator<Item = (u16, S)>) -> Self {
        Self {
            answers: RefCell::new(answers.into_iter().map(|(s, b)| (s, b.into())).collect()),
            sent: RefCell::new(Vec::new()),
        }
    }

    /// The URLs asked so far, in order.
    pub fn asked(&self) -> Vec<String> {
        self.sent.borrow().iter().map(|r| r.url.clone()).collect()
    }

    /// The requests sent so far (method, URL, headers, body), in order.
    pub fn sent(&self) -> Vec<HttpRequest> {
        self.sent.borrow().clone()
    }
}

#[async_trait(?Send)]
impl HttpTransport for CannedTransport {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        self.sent.borrow_mut().push(request.clone());
        let (status, body) = self.answers.borrow_mut().pop_front().ok_or_else(|| {
            TransportError::Connection(format!("no canned answer for {}", request.url))
        })?;
        Ok(HttpResponse {
            status,
            headers: Vec::new(),
            body: body.into_bytes().into(),
        })
    }
}
