//! The writer's view of the outside world: a clock, unique ids and waiting (injectable for tests).

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;

/// Clock, UUIDs and back-off waits used by writers and commits.
pub trait WriteEnv {
    /// Wall-clock time, epoch milliseconds.
    fn now_millis(&self) -> i64;
    /// A fresh random (v4-style) UUID in canonical text form.
    fn uuid(&self) -> String;
    /// Waits about `millis` before a commit retry.
    fn sleep(&self, millis: u64) -> Pin<Box<dyn Future<Output = ()> + '_>>;
}

/// The canonical text of a random (version 4, RFC 4122 variant) UUID made of 128 random bits.
pub fn uuid_v4(hi: u64, lo: u64) -> String {
    let hi = (hi & 0xffff_ffff_ffff_0fff) | 0x4000; // version 4
    let lo = (lo & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000; // variant
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xffff,
        hi & 0xffff,
        lo >> 48,
        lo & 0xffff_ffff_ffff
    )
}

/// SplitMix64 step.
fn mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A deterministic environment for tests: a clock starting at `start_millis` that advances by
/// one millisecond per reading, UUIDs from a seeded generator, and no real waiting.
#[derive(Debug)]
pub struct FixedEnv {
    clock: Cell<i64>,
    state: Cell<u64>,
}

impl FixedEnv {
    /// A fixed environment with this start time and seed.
    pub fn new(start_millis: i64, seed: u64) -> Self {
        Self {
            clock: Cell::new(start_millis),
            state: Cell::new(seed),
        }
    }
}

impl WriteEnv for FixedEnv {
    fn now_millis(&self) -> i64 {
        let t = self.clock.get();
        self.clock.set(t + 1);
        t
    }

    fn uuid(&self) -> String {
        let mut s = self.state.get();
        let (hi, lo) = (mix(&mut s), mix(&mut s));
        self.state.set(s);
        uuid_v4(hi, lo)
    }

    fn sleep(&self, _millis: u64) -> Pin<Box<dyn Future<Output = ()> + '_>> {
        Box::pin(std::future::ready(()))
    }
}

/// The real environment (native only): system clock, random UUIDs, blocking short sleeps.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug)]
pub struct SystemEnv {
    state: Cell<u64>,
}

#[cfg(not(target_arch = "wasm32"))]
impl Default for SystemEnv {
    fn default() -> Self {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default(),
        );
        h.write_u64(u64::from(std::process::id()));
        Self {
            state: Cell::new(h.finish()),
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl WriteEnv for SystemEnv {
    fn now_millis(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or_default()
    }

    fn uuid(&self) -> String {
        let mut s = self.state.get();
        let (hi, lo) = (mix(&mut s), mix(&mut s));
        self.state.set(s);
        uuid_v4(hi, lo)
    }

    fn sleep(&self, millis: u64) -> Pin<Box<dyn Future<Output = ()> + '_>> {
        std::thread::sleep(std::time::Duration::from_millis(millis));
        Box::pin(std::future::ready(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_v4_shaped_and_deterministic() {
        let a = FixedEnv::new(1, 7);
        let b = FixedEnv::new(1, 7);
        let u = a.uuid();
        assert_eq!(u, b.uuid());
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert_ne!(u, a.uuid());
        assert_eq!(a.now_millis() + 1, a.now_millis());
    }
}
