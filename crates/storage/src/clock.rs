//! Wall-clock time, injectable: `SystemTime::now` panics on wasm32, and tests fix the time.

use std::rc::Rc;
use std::time::SystemTime;

/// A source of the current time (S3 signatures, catalog token expiry).
pub type Clock = Rc<dyn Fn() -> SystemTime>;

/// The system clock natively, `Date.now()` in the browser.
pub fn system_clock() -> Clock {
    Rc::new(now)
}

/// Milliseconds since the Unix epoch on `clock` (0 before it).
pub fn epoch_millis(clock: &Clock) -> i64 {
    clock()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(not(target_arch = "wasm32"))]
fn now() -> SystemTime {
    SystemTime::now()
}

/// In the browser, `Date.now()` (`SystemTime::now` panics on wasm32).
#[cfg(all(target_arch = "wasm32", feature = "browser"))]
fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(js_sys::Date::now() as u64)
}

/// wasm32 without the browser has no clock: callers inject one.
#[cfg(all(target_arch = "wasm32", not(feature = "browser")))]
fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH
}
