//! Secrets kept on this device only when asked: a connection form's localStorage record and its
//! "Remember on this device" / "Forget" row (the S3 keys form and the catalog form).

use leptos::prelude::*;

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// One form's record in localStorage and the box asking to keep it.
#[derive(Debug, Clone, Copy)]
pub struct Remembered {
    key: &'static str,
    /// Whether the user asked to keep the settings on this device.
    remember: RwSignal<bool>,
}

impl Remembered {
    /// The record under `key` and its saved text; the box starts ticked when there is one.
    pub fn load(key: &'static str) -> (Self, Option<String>) {
        let saved = storage().and_then(|s| s.get_item(key).ok().flatten());
        let remember = RwSignal::new(saved.is_some());
        (Self { key, remember }, saved)
    }

    /// Keeps `text` on this device if the user ticked the box.
    pub fn save_if_asked(&self, text: &str) {
        if self.remember.get_untracked() {
            if let Some(s) = storage() {
                let _ = s.set_item(self.key, text);
            }
        }
    }

    /// Removes the record and unticks the box.
    fn forget(&self) {
        if let Some(s) = storage() {
            let _ = s.remove_item(self.key);
        }
        self.remember.set(false);
    }
}

/// The last row of a connection form: the Remember box, its warning, Forget (which also runs
/// `on_forget`, clearing the secrets in memory) and Connect. Test ids are `{id}-remember`,
/// `{id}-remember-warning`, `{id}-forget` and `{id}-open`; `secrets` names what is stored
/// ("The keys are").
#[component]
pub fn RememberRow(
    id: &'static str,
    secrets: &'static str,
    remembered: Remembered,
    on_forget: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let r = remembered;
    view! {
        <div class="connect-row">
            <label class="connect-check">
                <input type="checkbox" data-testid=format!("{id}-remember") bind:checked=r.remember />
                "Remember on this device"
            </label>
            <span class="connect-warning" data-testid=format!("{id}-remember-warning")
                class:hidden=move || !r.remember.get()>
                {format!("{secrets} then stored unencrypted in this browser's localStorage: only on a device you trust.")}
            </span>
            <button class="btn small" type="button" data-testid=format!("{id}-forget")
                disabled=move || !r.remember.get()
                on:click=move |_| {
                    r.forget();
                    on_forget();
                }>
                "Forget"
            </button>
            <button class="btn primary small" type="submit" data-testid=format!("{id}-open")>"Connect"</button>
        </div>
    }
}
