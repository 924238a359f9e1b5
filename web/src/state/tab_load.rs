//! A tab's load as a Leptos `LocalResource`, keyed on the signals its fetcher reads, whose
//! reads stop when the tab closes.

use futures::future::{pending, AbortHandle, Abortable};
use leptos::prelude::*;
use leptos::reactive::computed::ScopedFuture;
use std::future::{Future, IntoFuture};
use std::sync::{Arc, Mutex};

/// A `LocalResource` over `fetch` (run again when a signal it reads changes, or on `refetch`).
/// Unlike a plain resource, its running load is dropped when a newer one starts and when the
/// current component is disposed: a tab left for another must not compete with it (the
/// Overview's row count scans the whole table, while the Data tab wants its first rows). A
/// dropped load never resolves; nothing is left to show it.
pub fn tab_resource<T, Fut>(fetch: impl Fn() -> Fut + 'static) -> LocalResource<T>
where
    T: 'static,
    Fut: Future<Output = T> + 'static,
{
    let running = Arc::new(Mutex::new(None::<AbortHandle>));
    let on_close = Arc::clone(&running);
    on_cleanup(move || stop(&on_close, None));
    LocalResource::new(move || {
        let (handle, registration) = AbortHandle::new_pair();
        stop(&running, Some(handle));
        let load = Abortable::new(fetch(), registration);
        async move {
            match load.await {
                Ok(value) => value,
                Err(_aborted) => pending().await,
            }
        }
    })
}

/// Aborts the load in `slot` (if any) and puts `next` there.
fn stop(slot: &Mutex<Option<AbortHandle>>, next: Option<AbortHandle>) {
    let Ok(mut slot) = slot.lock() else {
        return;
    };
    if let Some(old) = std::mem::replace(&mut *slot, next) {
        old.abort();
    }
}

/// The value of `resource` once it has one, without making the caller's resource depend on it:
/// a load that needs another's result (the Overview's counts wait for its overview) is not run
/// again when that result lands.
pub async fn settled<T: Clone + 'static>(resource: LocalResource<T>) -> T {
    ScopedFuture::new_untracked(resource.into_future()).await
}
