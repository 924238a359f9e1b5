//! The writer's clock, ids and waits in a browser worker: `Date.now`, `crypto.getRandomValues`, `setTimeout`.

use js_sys::{Date, Function, Promise, Reflect};
use lakescope_paimon::write::WriteEnv;
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::DedicatedWorkerGlobalScope;

/// The real environment of a worker.
#[derive(Debug, Default)]
pub struct WorkerEnv;

impl WriteEnv for WorkerEnv {
    fn now_millis(&self) -> i64 {
        Date::now() as i64
    }

    fn uuid(&self) -> String {
        let mut bytes = [0u8; 16];
        let filled = js_sys::global()
            .dyn_into::<DedicatedWorkerGlobalScope>()
            .ok()
            .and_then(|scope| scope.crypto().ok())
            .and_then(|crypto| crypto.get_random_values_with_u8_array(&mut bytes).ok())
            .is_some();
        if !filled {
            // No crypto object (never in a worker of a current browser): Math.random bits.
            for chunk in bytes.chunks_mut(4) {
                let bits = (js_sys::Math::random() * f64::from(u32::MAX)) as u32;
                chunk.copy_from_slice(&bits.to_le_bytes()[..chunk.len()]);
            }
        }
        let hi = u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default());
        let lo = u64::from_le_bytes(bytes[8..].try_into().unwrap_or_default());
        lakescope_paimon::write::uuid_v4(hi, lo)
    }

    fn sleep(&self, millis: u64) -> Pin<Box<dyn Future<Output = ()> + '_>> {
        let promise = Promise::new(&mut |resolve, _reject| {
            let global = js_sys::global();
            if let Ok(set_timeout) = Reflect::get(&global, &JsValue::from_str("setTimeout")) {
                if let Some(set_timeout) = set_timeout.dyn_ref::<Function>() {
                    let _ = set_timeout.call2(&global, &resolve, &JsValue::from(millis as f64));
                    return;
                }
            }
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        Box::pin(async move {
            let _ = JsFuture::from(promise).await;
        })
    }
}
