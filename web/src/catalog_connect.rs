//! The catalog form below the warehouse bar for `paimon+rest://` and `iceberg+rest://` addresses:
//! the catalog token and where the catalog's local table files are served.
//!
//! As with S3 keys, the token lives in memory for the session and never in the URL; only when the
//! user ticks "remember on this device" are the settings (token included) kept in localStorage,
//! until "Forget" removes them.

use crate::catalog_service::CatalogSettings;
use leptos::prelude::*;

/// localStorage key of remembered settings (JSON: `token`, `files_location`, `files_url`).
const KEY: &str = "lakescope-catalog-connection";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The catalog settings being edited (one signal per field).
#[derive(Debug, Clone, Copy)]
pub struct CatalogConnection {
    token: RwSignal<String>,
    files_location: RwSignal<String>,
    files_url: RwSignal<String>,
    remember: RwSignal<bool>,
}

impl CatalogConnection {
    /// The remembered settings of this device, or empty ones.
    pub fn load() -> Self {
        let saved = storage()
            .and_then(|s| s.get_item(KEY).ok().flatten())
            .and_then(|json| serde_json::from_str::<serde_json::Value>(&json).ok());
        let field = |name: &str| {
            saved
                .as_ref()
                .and_then(|v| v.get(name))
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        Self {
            token: RwSignal::new(field("token")),
            files_location: RwSignal::new(field("files_location")),
            files_url: RwSignal::new(field("files_url")),
            remember: RwSignal::new(saved.is_some()),
        }
    }

    /// The settings the form describes (read without tracking).
    pub fn settings(&self) -> CatalogSettings {
        let text = |s: RwSignal<String>| {
            Some(s.get_untracked().trim().to_string()).filter(|t| !t.is_empty())
        };
        CatalogSettings {
            token: text(self.token),
            files_location: text(self.files_location),
            files_url: text(self.files_url),
        }
    }

    /// After an Open: keeps the settings on this device if the user asked to.
    pub fn remember_if_asked(&self) {
        if !self.remember.get_untracked() {
            return;
        }
        let s = self.settings();
        let json = serde_json::json!({
            "token": s.token,
            "files_location": s.files_location,
            "files_url": s.files_url,
        });
        if let Some(storage) = storage() {
            let _ = storage.set_item(KEY, &json.to_string());
        }
    }

    /// Removes remembered settings from this device and clears the token in memory.
    fn forget(&self) {
        if let Some(s) = storage() {
            let _ = s.remove_item(KEY);
        }
        self.remember.set(false);
        self.token.set(String::new());
    }
}

/// Whether `uri` names a REST catalog (`paimon+rest://`, `iceberg+rest+https://`, …).
pub fn is_catalog(uri: &str) -> bool {
    uri.trim()
        .split_once("://")
        .is_some_and(|(scheme, _)| scheme.to_ascii_lowercase().contains("+rest"))
}

/// The token and file-serving fields of a REST catalog address.
#[component]
pub fn CatalogFields(
    uri: RwSignal<String>,
    connection: CatalogConnection,
    on_open: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let c = connection;
    let remembered = move || {
        c.remember.get()
            && storage()
                .and_then(|s| s.get_item(KEY).ok().flatten())
                .is_some()
    };
    view! {
        <form
            class="connect-panel"
            data-testid="catalog-form"
            on:submit=move |ev| {
                ev.prevent_default();
                on_open(uri.get_untracked());
            }
        >
            <div class="connect-row">
                <label class="connect-field">
                    <span>"Catalog token (sent as a bearer token)"</span>
                    <input class="input" data-testid="catalog-token" type="password" autocomplete="off"
                        bind:value=c.token />
                </label>
                <label class="connect-field">
                    <span>"Table files under (optional)"</span>
                    <input class="input" data-testid="catalog-files-location" type="text" spellcheck="false"
                        autocomplete="off" placeholder="file:///srv/lake/" bind:value=c.files_location />
                </label>
                <label class="connect-field">
                    <span>"are served at"</span>
                    <input class="input" data-testid="catalog-files-url" type="url" spellcheck="false"
                        autocomplete="off" placeholder="https://files.example/lake/" bind:value=c.files_url />
                </label>
            </div>
            <div class="connect-row">
                <label class="connect-check">
                    <input type="checkbox" data-testid="catalog-remember" bind:checked=c.remember />
                    "Remember on this device"
                </label>
                <span class="connect-warning" data-testid="catalog-remember-warning" class:hidden=move || !c.remember.get()>
                    "The token is then stored unencrypted in this browser's localStorage: only on a device you trust."
                </span>
                <button class="btn small" type="button" data-testid="catalog-forget"
                    disabled=move || !c.remember.get() && !remembered()
                    on:click=move |_| c.forget()>
                    "Forget"
                </button>
                <button class="btn primary small" type="submit" data-testid="catalog-open">"Connect"</button>
            </div>
        </form>
    }
}
