//! The writers' clock, ids and waits in a browser window or worker: `Date.now`,
//! `crypto.getRandomValues`, `setTimeout` (through lakescope-storage's browser module).

use lakescope_paimon::write::{uuid_v4, WriteEnv};
use lakescope_storage::retry::Timer;
use lakescope_storage::transport::BrowserTimer;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// The real environment of a browser page or worker.
#[derive(Debug, Default)]
pub struct BrowserEnv;

impl WriteEnv for BrowserEnv {
    fn now_millis(&self) -> i64 {
        lakescope_storage::browser::now_millis()
    }

    fn uuid(&self) -> String {
        let mut bytes = [0u8; 16];
        lakescope_storage::browser::random_bytes(&mut bytes);
        let (hi, lo) = bytes.split_at(8);
        let word = |b: &[u8]| b.iter().fold(0u64, |w, &x| (w << 8) | u64::from(x));
        uuid_v4(word(hi), word(lo))
    }

    fn sleep(&self, millis: u64) -> Pin<Box<dyn Future<Output = ()> + '_>> {
        BrowserTimer.sleep(Duration::from_millis(millis))
    }
}
