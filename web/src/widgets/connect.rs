//! The connection form below the warehouse bar: S3 endpoint and keys or a presign endpoint, OPFS
//! warehouses, and REST catalogs (`crate::widgets::catalog_connect`).
//!
//! Secrets live in memory for the session; only when the user ticks "remember on this device" are
//! the connection settings (keys included) kept in localStorage, until "Forget" removes them.

use crate::state::warehouse::DEMO_WAREHOUSE;
use crate::widgets::catalog_connect::{is_catalog, CatalogConnection, CatalogFields};
use crate::widgets::remembered::{RememberRow, Remembered};
use lakescope_storage::s3::S3Credentials;
use lakescope_storage::uri::StoreOptions;
use lakescope_storage::{copy_objects, HttpStore, IndexedStore, ObjectStore, OpfsStore};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// localStorage key of remembered settings (a [`StoreOptions`] JSON).
const KEY: &str = "lakescope-s3-connection";

/// How S3 requests are authorised.
const AUTH_KEYS: &str = "keys";
const AUTH_PRESIGN: &str = "presign";
const AUTH_ANONYMOUS: &str = "anonymous";

/// Objects copied at once into OPFS.
const COPY_CONCURRENCY: usize = 6;

/// The S3 connection settings being edited (one signal per field).
#[derive(Debug, Clone, Copy)]
pub struct Connection {
    endpoint: RwSignal<String>,
    region: RwSignal<String>,
    path_style: RwSignal<bool>,
    auth: RwSignal<String>,
    access_key: RwSignal<String>,
    secret_key: RwSignal<String>,
    session_token: RwSignal<String>,
    presign: RwSignal<String>,
    remembered: Remembered,
}

impl Connection {
    /// The remembered settings of this device, or empty ones.
    pub fn load() -> Self {
        let (remembered, saved) = Remembered::load(KEY);
        let saved = saved.and_then(|json| StoreOptions::from_json(&json).ok());
        let remember = saved.is_some();
        let o = saved.unwrap_or_default();
        let auth = if o.presign_endpoint.is_some() {
            AUTH_PRESIGN
        } else if o.credentials.is_some() || !remember {
            AUTH_KEYS
        } else {
            AUTH_ANONYMOUS
        };
        let creds = o.credentials.clone();
        Self {
            endpoint: RwSignal::new(o.s3_endpoint.clone().unwrap_or_default()),
            region: RwSignal::new(o.s3_region.clone().unwrap_or_default()),
            path_style: RwSignal::new(o.s3_path_style),
            auth: RwSignal::new(auth.to_string()),
            access_key: RwSignal::new(
                creds
                    .as_ref()
                    .map(|c| c.access_key_id.clone())
                    .unwrap_or_default(),
            ),
            secret_key: RwSignal::new(
                creds
                    .as_ref()
                    .map(|c| c.secret_access_key.clone())
                    .unwrap_or_default(),
            ),
            session_token: RwSignal::new(creds.and_then(|c| c.session_token).unwrap_or_default()),
            presign: RwSignal::new(o.presign_endpoint.unwrap_or_default()),
            remembered,
        }
    }

    /// The store options the form describes (read without tracking).
    pub fn options(&self) -> StoreOptions {
        let text = |s: RwSignal<String>| {
            Some(s.get_untracked().trim().to_string()).filter(|t| !t.is_empty())
        };
        let auth = self.auth.get_untracked();
        let credentials = match (text(self.access_key), text(self.secret_key)) {
            (Some(access_key_id), Some(secret_access_key)) if auth == AUTH_KEYS => {
                Some(S3Credentials {
                    access_key_id,
                    secret_access_key,
                    session_token: text(self.session_token),
                })
            }
            _ => None,
        };
        StoreOptions {
            s3_endpoint: text(self.endpoint),
            s3_region: text(self.region),
            s3_path_style: self.path_style.get_untracked(),
            presign_endpoint: text(self.presign).filter(|_| auth == AUTH_PRESIGN),
            credentials,
            ..StoreOptions::default()
        }
    }

    /// After an Open: keeps the settings on this device if the user asked to.
    pub fn remember_if_asked(&self) {
        self.remembered.save_if_asked(&self.options().to_json());
    }

    /// Clears the secrets in memory (after "Forget" removed the remembered settings).
    fn clear_secrets(&self) {
        self.secret_key.set(String::new());
        self.session_token.set(String::new());
        self.access_key.set(String::new());
    }
}

/// Whether `uri` names an S3 warehouse.
fn is_s3(uri: &str) -> bool {
    let u = uri.trim().to_ascii_lowercase();
    u.starts_with("s3://") || u.starts_with("s3a://")
}

/// Whether `uri` names an OPFS warehouse.
fn is_opfs(uri: &str) -> bool {
    uri.trim().to_ascii_lowercase().starts_with("opfs://")
}

/// The extra fields for `s3://` and `opfs://` warehouses and REST catalogs (nothing for http(s)).
#[component]
pub fn ConnectPanel(
    uri: RwSignal<String>,
    connection: Connection,
    catalog: CatalogConnection,
    on_open: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    // Re-rendered only when the kind of URI changes (the fields keep their state while typing).
    let kind = Memo::new(move |_| {
        let u = uri.get();
        (is_s3(&u), is_opfs(&u), is_catalog(&u))
    });
    view! {
        {move || match kind.get() {
            (true, _, _) => view! { <S3Fields uri=uri connection=connection on_open=on_open /> }.into_any(),
            (_, true, _) => view! { <OpfsFields uri=uri on_open=on_open /> }.into_any(),
            (_, _, true) => view! { <CatalogFields uri=uri connection=catalog on_open=on_open /> }.into_any(),
            _ => ().into_any(),
        }}
    }
}

#[component]
fn S3Fields(
    uri: RwSignal<String>,
    connection: Connection,
    on_open: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let c = connection;
    view! {
        <form
            class="connect-panel"
            data-testid="s3-form"
            on:submit=move |ev| {
                ev.prevent_default();
                on_open(uri.get_untracked());
            }
        >
            <div class="connect-row">
                <label class="connect-field">
                    <span>"Endpoint"</span>
                    <input class="input" data-testid="s3-endpoint" type="url" spellcheck="false" autocomplete="off"
                        placeholder="default: AWS (https://s3.REGION.amazonaws.com)" bind:value=c.endpoint />
                </label>
                <label class="connect-field narrow">
                    <span>"Region"</span>
                    <input class="input" data-testid="s3-region" type="text" spellcheck="false" autocomplete="off"
                        placeholder="us-east-1" bind:value=c.region />
                </label>
                <label class="connect-check">
                    <input type="checkbox" data-testid="s3-path-style" bind:checked=c.path_style />
                    "Path-style addressing"
                </label>
                <label class="connect-field narrow">
                    <span>"Authorisation"</span>
                    <select
                        class="select"
                        data-testid="s3-auth"
                        prop:value=move || c.auth.get()
                        on:change=move |ev| c.auth.set(event_target_value(&ev))
                    >
                        <option value=AUTH_KEYS>"Access keys (signed here)"</option>
                        <option value=AUTH_PRESIGN>"Presign endpoint"</option>
                        <option value=AUTH_ANONYMOUS>"Anonymous (public bucket)"</option>
                    </select>
                </label>
            </div>
            {move || match c.auth.get().as_str() {
                AUTH_KEYS => view! {
                    <div class="connect-row">
                        <label class="connect-field">
                            <span>"Access key ID"</span>
                            <input class="input" data-testid="s3-access-key" type="text" spellcheck="false"
                                autocomplete="off" bind:value=c.access_key />
                        </label>
                        <label class="connect-field">
                            <span>"Secret access key"</span>
                            <input class="input" data-testid="s3-secret-key" type="password" autocomplete="off"
                                bind:value=c.secret_key />
                        </label>
                        <label class="connect-field">
                            <span>"Session token (optional)"</span>
                            <input class="input" data-testid="s3-session-token" type="password" autocomplete="off"
                                bind:value=c.session_token />
                        </label>
                    </div>
                }.into_any(),
                AUTH_PRESIGN => view! {
                    <div class="connect-row">
                        <label class="connect-field wide">
                            <span>"Presign endpoint (credentials stay on that server)"</span>
                            <input class="input" data-testid="s3-presign" type="url" spellcheck="false"
                                autocomplete="off" placeholder="http://127.0.0.1:8787/presign" bind:value=c.presign />
                        </label>
                    </div>
                }.into_any(),
                _ => ().into_any(),
            }}
            <RememberRow id="s3" secrets="The keys are" remembered=c.remembered
                on_forget=move || c.clear_secrets() />
        </form>
    }
}

#[component]
fn OpfsFields(
    uri: RwSignal<String>,
    on_open: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let create = move |_| {
        let target = uri.get_untracked().trim().to_string();
        busy.set(true);
        spawn_local(async move {
            let created = match OpfsStore::from_uri(&target) {
                Ok(store) => store.create().await.map(|_| store),
                Err(e) => Err(e),
            };
            busy.set(false);
            match created {
                Ok(store) => {
                    status.set(format!("Created the empty warehouse {}.", store.describe()));
                    on_open(target);
                }
                Err(e) => status.set(format!("Could not create {target}: {e}")),
            }
        });
    };
    let copy = move |_| {
        let target = uri.get_untracked().trim().to_string();
        busy.set(true);
        status.set("Reading the demo lake's index…".to_string());
        spawn_local(async move {
            let outcome = copy_demo(&target, status).await;
            busy.set(false);
            match outcome {
                Ok(message) => {
                    status.set(message);
                    on_open(target);
                }
                Err(message) => status.set(message),
            }
        });
    };
    view! {
        <div class="connect-panel" data-testid="opfs-form">
            <div class="connect-row centered">
                <span class="note">
                    "A warehouse in this browser's private file system (OPFS): no server, stays on this device."
                </span>
                <button class="btn small" type="button" data-testid="opfs-create" disabled=move || busy.get() on:click=create>
                    "Create empty"
                </button>
                <button class="btn small" type="button" data-testid="opfs-copy-demo" disabled=move || busy.get() on:click=copy>
                    "Copy demo lake to this browser"
                </button>
                <span class="connbar-status" data-testid="opfs-status">{move || status.get()}</span>
            </div>
        </div>
    }
}

/// Copies every object listed in the bundled demo lake's index into the OPFS warehouse `target`.
async fn copy_demo(target: &str, status: RwSignal<String>) -> Result<String, String> {
    let opfs = OpfsStore::from_uri(target).map_err(|e| format!("Cannot use {target}: {e}"))?;
    let demo = IndexedStore::new(HttpStore::new(DEMO_WAREHOUSE));
    let files = demo
        .files()
        .await
        .map_err(|e| format!("Could not read the demo lake's index: {e}"))?;
    opfs.create()
        .await
        .map_err(|e| format!("Could not create {target}: {e}"))?;
    let progress =
        move |done: usize, total: usize| status.set(format!("Copied {done} of {total} objects…"));
    let bytes = copy_objects(&demo, &opfs, &files, COPY_CONCURRENCY, &progress)
        .await
        .map_err(|e| format!("Copying the demo lake into {target} failed: {e}"))?;
    Ok(format!(
        "Copied {} objects ({}) into {}.",
        files.len(),
        crate::util::bytes(bytes as i64),
        opfs.describe()
    ))
}
