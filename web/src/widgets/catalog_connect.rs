//! The catalog form below the warehouse bar for `paimon+rest://` and `iceberg+rest://` addresses:
//! the catalog token, an Iceberg catalog's OAuth2 client credential, and where the catalog's local
//! table files are served.
//!
//! As with S3 keys, the secrets live in memory for the session and never in the URL; only when the
//! user ticks "remember on this device" are the settings (secrets included) kept in localStorage,
//! until "Forget" removes them.

use crate::state::catalog_service::CatalogSettings;
use crate::widgets::remembered::{RememberRow, Remembered};
use leptos::prelude::*;

/// localStorage key of remembered settings (JSON: `token`, `credential`, `files_location`,
/// `files_url`).
const KEY: &str = "lakescope-catalog-connection";

/// The catalog settings being edited (one signal per field).
#[derive(Debug, Clone, Copy)]
pub struct CatalogConnection {
    token: RwSignal<String>,
    credential: RwSignal<String>,
    files_location: RwSignal<String>,
    files_url: RwSignal<String>,
    remembered: Remembered,
}

impl CatalogConnection {
    /// The remembered settings of this device, or empty ones.
    pub fn load() -> Self {
        let (remembered, saved) = Remembered::load(KEY);
        let saved = saved.and_then(|json| serde_json::from_str::<serde_json::Value>(&json).ok());
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
            credential: RwSignal::new(field("credential")),
            files_location: RwSignal::new(field("files_location")),
            files_url: RwSignal::new(field("files_url")),
            remembered,
        }
    }

    /// The settings the form describes (read without tracking).
    pub fn settings(&self) -> CatalogSettings {
        let text = |s: RwSignal<String>| {
            Some(s.get_untracked().trim().to_string()).filter(|t| !t.is_empty())
        };
        CatalogSettings {
            token: text(self.token),
            credential: text(self.credential),
            files_location: text(self.files_location),
            files_url: text(self.files_url),
        }
    }

    /// After an Open: keeps the settings on this device if the user asked to.
    pub fn remember_if_asked(&self) {
        let s = self.settings();
        let json = serde_json::json!({
            "token": s.token,
            "credential": s.credential,
            "files_location": s.files_location,
            "files_url": s.files_url,
        });
        self.remembered.save_if_asked(&json.to_string());
    }

    /// Clears the secrets in memory (after "Forget" removed the remembered settings).
    fn clear_secrets(&self) {
        self.token.set(String::new());
        self.credential.set(String::new());
    }
}

/// Whether `uri` names a REST catalog (`paimon+rest://`, `iceberg+rest+https://`, …).
pub fn is_catalog(uri: &str) -> bool {
    uri.trim()
        .split_once("://")
        .is_some_and(|(scheme, _)| scheme.to_ascii_lowercase().contains("+rest"))
}

/// Whether `uri` names an Iceberg REST catalog (the one taking OAuth2 client credentials).
fn is_iceberg_catalog(uri: &str) -> bool {
    uri.trim().to_ascii_lowercase().starts_with("iceberg+rest")
}

/// The token, credential and file-serving fields of a REST catalog address.
#[component]
pub fn CatalogFields(
    uri: RwSignal<String>,
    connection: CatalogConnection,
    on_open: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let c = connection;
    let iceberg = Memo::new(move |_| is_iceberg_catalog(&uri.get()));
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
                <Show when=move || iceberg.get()>
                    <label class="connect-field">
                        <span>"or OAuth2 client credential (ID:SECRET)"</span>
                        <input class="input" data-testid="catalog-credential" type="password" autocomplete="off"
                            placeholder="client-id:client-secret" bind:value=c.credential />
                    </label>
                </Show>
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
            <RememberRow id="catalog" secrets="The token and credential are" remembered=c.remembered
                on_forget=move || c.clear_secrets() />
        </form>
    }
}
