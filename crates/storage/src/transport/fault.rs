//! A fault-injecting transport for tests: 500/503 answers, truncated bodies, resets and stalls.

use super::{HttpRequest, HttpResponse, HttpTransport, TransportError};
use crate::retry::{Jitter, SeededJitter};
use async_trait::async_trait;
use std::cell::Cell;
use std::rc::Rc;

/// One injected failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Answer with this status and an empty body, without reaching the server.
    Status(u16),
    /// Forward the request, then cut the body in half (headers, `Content-Length` included, kept).
    Truncate,
    /// Fail as if the connection was reset.
    Reset,
    /// Never answer (the caller's timeout must fire).
    Stall,
}

/// Wraps a transport; each request fails with probability `rate` with a fault drawn from `faults`.
pub struct FaultyTransport {
    inner: Rc<dyn HttpTransport>,
    faults: Vec<Fault>,
    rate: f64,
    random: SeededJitter,
    injected: Cell<u64>,
    requests: Cell<u64>,
}

impl FaultyTransport {
    /// A wrapper with a deterministic random schedule from `seed`.
    pub fn new(inner: Rc<dyn HttpTransport>, faults: Vec<Fault>, rate: f64, seed: u64) -> Self {
        Self {
            inner,
            faults,
            rate,
            random: SeededJitter::new(seed),
            injected: Cell::new(0),
            requests: Cell::new(0),
        }
    }

    /// How many faults were injected so far.
    pub fn injected(&self) -> u64 {
        self.injected.get()
    }

    /// How many requests were seen so far.
    pub fn requests(&self) -> u64 {
        self.requests.get()
    }
}

#[async_trait(?Send)]
impl HttpTransport for FaultyTransport {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        self.requests.set(self.requests.get() + 1);
        let fault = if !self.faults.is_empty() && self.random.next_unit() < self.rate {
            let i = (self.random.next_unit() * self.faults.len() as f64) as usize;
            self.faults.get(i).copied()
        } else {
            None
        };
        let Some(fault) = fault else {
            return self.inner.send(request).await;
        };
        self.injected.set(self.injected.get() + 1);
        match fault {
            Fault::Status(status) => Ok(HttpResponse {
                status,
                headers: Vec::new(),
                body: Default::default(),
            }),
            Fault::Reset => Err(TransportError::Connection(
                "connection reset by peer (injected)".to_string(),
            )),
            Fault::Stall => {
                futures::future::pending::<()>().await;
                Err(TransportError::Connection("unreachable".to_string()))
            }
            Fault::Truncate => {
                let mut response = self.inner.send(request).await?;
                let half = response.body.len() / 2;
                response.body = response.body.slice(..half);
                Ok(response)
            }
        }
    }
}
