//! Bounded retries with exponential backoff and jitter, per-request timeouts, and the status → error map.

use crate::transport::{HttpRequest, HttpResponse, HttpTransport, TransportError};
use crate::Error;
use futures::future::{select, Either, LocalBoxFuture};
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

/// Sleeps; injected so that stores work on any runtime (tokio natively, timers in the browser).
pub trait Timer {
    /// A future that completes after `duration`.
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()>;
}

/// The tokio timer (native).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioTimer;

#[cfg(not(target_arch = "wasm32"))]
impl Timer for TokioTimer {
    fn sleep(&self, duration: Duration) -> LocalBoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// A source of jitter in `[0, 1)`; injected so tests are deterministic.
pub trait Jitter {
    /// The next value in `[0, 1)`.
    fn next_unit(&self) -> f64;
}

/// A small xorshift generator: deterministic for a given seed.
#[derive(Debug)]
pub struct SeededJitter(Cell<u64>);

impl SeededJitter {
    /// A generator from `seed` (0 is replaced by a fixed non-zero seed).
    pub fn new(seed: u64) -> Self {
        Self(Cell::new(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        }))
    }
}

impl Jitter for SeededJitter {
    fn next_unit(&self) -> f64 {
        let mut x = self.0.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0.set(x);
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// How often and how long to try one operation.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RetryPolicy {
    /// Attempts in total (at least 1).
    pub max_attempts: u32,
    /// Backoff before the second attempt; doubles each time, up to `max_delay`.
    pub base_delay: Duration,
    /// Upper bound of one backoff.
    pub max_delay: Duration,
    /// Time allowed for one request (connect + whole body).
    pub request_timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// "Full jitter" backoff after failed attempt number `attempt` (0-based): a uniformly random
    /// delay in `[0, min(max_delay, base_delay * 2^attempt))`.
    pub fn backoff(&self, attempt: u32, jitter: &dyn Jitter) -> Duration {
        let cap = self
            .base_delay
            .saturating_mul(1u32 << attempt.min(20))
            .min(self.max_delay);
        cap.mul_f64(jitter.next_unit())
    }
}

/// Whether a status is transient (server errors and throttling).
pub fn is_retryable_status(status: u16) -> bool {
    status >= 500 || status == 429 || status == 408
}

/// Everything a store needs to send requests robustly.
#[derive(Clone)]
pub struct Sender {
    /// The transport whose requests are retried.
    pub transport: Rc<dyn HttpTransport>,
    /// Waits between attempts.
    pub timer: Rc<dyn Timer>,
    /// Spreads the waits (injected randomness).
    pub jitter: Rc<dyn Jitter>,
    /// How many attempts, and how long to wait between them.
    pub policy: RetryPolicy,
}

/// What one attempt concluded.
pub enum Attempt<T> {
    /// Done (success or a final error).
    Done(crate::Result<T>),
    /// Transient failure: try again after a backoff; the error is reported if attempts run out.
    Retry(Error),
}

impl Sender {
    /// Races one request against the policy's timeout.
    pub async fn send_once(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
        let timeout = self.policy.request_timeout;
        let send = self.transport.send(request);
        let sleep = self.timer.sleep(timeout);
        match select(send, sleep).await {
            Either::Left((result, _)) => result,
            Either::Right(((), _)) => Err(TransportError::Timeout(timeout)),
        }
    }

    /// Runs `attempt` until it is done or the attempts run out, sleeping with backoff between.
    pub async fn run<T, F, Fut>(&self, mut attempt: F) -> crate::Result<T>
    where
        F: FnMut(u32) -> Fut,
        Fut: std::future::Future<Output = Attempt<T>>,
    {
        let attempts = self.policy.max_attempts.max(1);
        let mut n = 0;
        loop {
            match attempt(n).await {
                Attempt::Done(result) => return result,
                Attempt::Retry(error) => {
                    n += 1;
                    if n >= attempts {
                        return Err(match error {
                            Error::Io {
                                operation,
                                path,
                                message,
                            } => Error::Io {
                                operation,
                                path,
                                message: format!("{message} (gave up after {n} attempts)"),
                            },
                            other => other,
                        });
                    }
                    self.timer
                        .sleep(self.policy.backoff(n - 1, self.jitter.as_ref()))
                        .await;
                }
            }
        }
    }
}

/// The error for a transport failure (always retryable).
pub fn transport_error(operation: &'static str, path: &str, e: TransportError) -> Error {
    Error::Io {
        operation,
        path: path.to_string(),
        message: e.to_string(),
    }
}

/// The error for a transient status (5xx, 429).
pub fn status_error(operation: &'static str, path: &str, status: u16) -> Error {
    Error::Io {
        operation,
        path: path.to_string(),
        message: format!("server answered HTTP {status}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_bounded_and_deterministic() {
        let p = RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
            ..RetryPolicy::default()
        };
        let a = SeededJitter::new(7);
        let b = SeededJitter::new(7);
        for attempt in 0..10 {
            let d = p.backoff(attempt, &a);
            assert_eq!(d, p.backoff(attempt, &b));
            let cap = Duration::from_millis(100 * (1 << attempt.min(4))).min(p.max_delay);
            assert!(d < cap || cap.is_zero(), "{d:?} vs {cap:?}");
        }
        assert!(is_retryable_status(503) && is_retryable_status(429));
        assert!(!is_retryable_status(404) && !is_retryable_status(412));
    }
}
