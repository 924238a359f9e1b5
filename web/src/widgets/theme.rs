//! Light/dark theme: follows `prefers-color-scheme` unless the user picks one (kept in
//! localStorage); the choice is the `data-theme` attribute of `<html>`.

use leptos::prelude::*;

const KEY: &str = "lakescope-theme";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// `auto`, `light` or `dark`.
pub fn stored() -> String {
    storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .filter(|t| t == "light" || t == "dark")
        .unwrap_or_else(|| "auto".into())
}

pub fn apply(theme: &str) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("data-theme", theme);
    }
    if let Some(s) = storage() {
        let _ = s.set_item(KEY, theme);
    }
}

#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(stored());
    view! {
        <button
            class="theme-toggle"
            data-testid="theme-toggle"
            title="Theme: auto (system) → dark → light"
            on:click=move |_| {
                let next = match theme.get_untracked().as_str() {
                    "auto" => "dark",
                    "dark" => "light",
                    _ => "auto",
                };
                apply(next);
                theme.set(next.to_string());
            }
        >
            {move || match theme.get().as_str() {
                "dark" => "◐ dark",
                "light" => "◑ light",
                _ => "◒ auto",
            }}
        </button>
    }
}
