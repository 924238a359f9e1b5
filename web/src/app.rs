//! The app shell: header, connection bar, catalog sidebar and the main panel.

use crate::catalog_tree::CatalogTree;
use crate::table_panel::{TablePanel, Welcome};
use crate::warehouse::{self, Warehouse, DEMO_WAREHOUSE};
use lakescope_engine::TableEntry;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Where loading the catalog stands.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadState {
    /// A listing of this URI is under way.
    Loading(String),
    /// The catalog is listed.
    Loaded(Warehouse),
    /// Listing failed; the message says why in plain words.
    Failed(String),
}

/// A table picked in the catalog tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Database name.
    pub database: String,
    /// The table.
    pub table: TableEntry,
    /// Absolute base URL of the warehouse.
    pub base_url: String,
}

/// The whole application.
#[component]
pub fn App() -> impl IntoView {
    let initial = warehouse::uri_from_page().unwrap_or_else(|| DEMO_WAREHOUSE.to_string());
    let uri = RwSignal::new(initial.clone());
    let state = RwSignal::new(LoadState::Loading(initial.clone()));
    let selected = RwSignal::new(None::<Selection>);

    let open = move |target: String| {
        selected.set(None);
        state.set(LoadState::Loading(target.clone()));
        spawn_local(async move {
            let outcome = warehouse::open(&target).await;
            // A newer Open may have started meanwhile: only the latest request may land.
            if state.with_untracked(|s| s == &LoadState::Loading(target.clone())) {
                if outcome.is_ok() {
                    warehouse::remember_uri(&target);
                }
                state.set(match outcome {
                    Ok(w) => LoadState::Loaded(w),
                    Err(message) => LoadState::Failed(message),
                });
            }
        });
    };
    open(initial);

    view! {
        <div class="app" data-testid="app">
            <Header />
            <ConnectionBar uri=uri state=state on_open=open />
            <main class="workspace">
                <aside class="sidebar" data-testid="sidebar">
                    <CatalogTree state=state selected=selected />
                </aside>
                <section class="content" data-testid="content">
                    {move || match selected.get() {
                        Some(selection) => view! { <TablePanel selection=selection /> }.into_any(),
                        None => view! { <Welcome state=state /> }.into_any(),
                    }}
                </section>
            </main>
        </div>
    }
}

/// Product name and version.
#[component]
fn Header() -> impl IntoView {
    view! {
        <header class="topbar" data-testid="header">
            <span class="logo" aria-hidden="true">"◈"</span>
            <span class="brand" data-testid="brand">"lakescope"</span>
            <span class="version" data-testid="version">{concat!("v", env!("CARGO_PKG_VERSION"))}</span>
            <span class="tagline">"Apache Paimon tables, read in your browser"</span>
        </header>
    }
}

/// The warehouse URI input with its Open button and a one-line status.
#[component]
fn ConnectionBar(
    uri: RwSignal<String>,
    state: RwSignal<LoadState>,
    on_open: impl Fn(String) + Copy + 'static,
) -> impl IntoView {
    let loading = move || matches!(state.get(), LoadState::Loading(_));
    view! {
        <form
            class="connbar"
            data-testid="connection-bar"
            on:submit=move |ev| {
                ev.prevent_default();
                on_open(uri.get_untracked());
            }
        >
            <label class="connbar-label" for="warehouse-uri">"Warehouse"</label>
            <input
                id="warehouse-uri"
                class="connbar-input"
                data-testid="warehouse-uri"
                type="text"
                spellcheck="false"
                autocomplete="off"
                placeholder="https://host/path/warehouse/ or demo/warehouse/"
                bind:value=uri
            />
            <button class="btn primary" type="submit" data-testid="open-button" disabled=loading>
                "Open"
            </button>
            <button
                class="btn"
                type="button"
                data-testid="demo-button"
                on:click=move |_| {
                    uri.set(DEMO_WAREHOUSE.to_string());
                    on_open(DEMO_WAREHOUSE.to_string());
                }
            >
                "Demo lake"
            </button>
            <span class="connbar-status" data-testid="connection-status">
                {move || match state.get() {
                    LoadState::Loading(u) => format!("Opening {u}…"),
                    LoadState::Loaded(w) => {
                        format!(
                            "{} · {} databases · {} tables",
                            w.base_url,
                            w.databases.len(),
                            w.table_count(),
                        )
                    }
                    LoadState::Failed(_) => "Not connected".to_string(),
                }}
            </span>
        </form>
    }
}
