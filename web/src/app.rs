//! The app shell: header, connection bar, catalog sidebar and the main panel.

use crate::state::route::{go, go_replace, Route, Tab};
use crate::state::warehouse::{self, Warehouse, DEMO_WAREHOUSE};
use crate::tabs::panel::{TablePanel, Welcome};
use crate::tabs::sql::{console_starter, SqlTab};
use crate::util::ErrorPanel;
use crate::widgets::catalog_connect::CatalogConnection;
use crate::widgets::catalog_tree::CatalogTree;
use crate::widgets::connect::{ConnectPanel, Connection};
use crate::widgets::theme;
use lakescope_engine::TableEntry;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

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

/// Lists the open warehouse's catalog again (after statements created or dropped tables), keeping
/// the page as it is.
#[derive(Clone, Copy)]
pub struct CatalogRefresh(Callback<()>);

impl CatalogRefresh {
    /// Starts the listing; the catalog tree updates when it lands.
    pub fn run(self) {
        self.0.run(());
    }
}

/// What the main panel shows.
#[derive(Debug, Clone, PartialEq)]
enum Main {
    Table(Selection),
    /// The route names a table the listed warehouse does not have.
    Missing(String),
    /// The warehouse's SQL console.
    Console,
    Welcome,
}

/// The whole application.
#[component]
pub fn App() -> impl IntoView {
    let route = RwSignal::new(Route::from_location());
    provide_context(route);
    // Back/forward: the URL is the state.
    let _ = window_event_listener(leptos::ev::popstate, move |_| {
        route.set(Route::from_location())
    });
    let _ = window_event_listener(leptos::ev::keydown, on_global_key);
    theme::apply(&theme::stored());

    let wanted = Memo::new(move |_| {
        route
            .with(|r| r.warehouse.clone())
            .unwrap_or_else(|| DEMO_WAREHOUSE.to_string())
    });
    let uri = RwSignal::new(wanted.get_untracked());
    let state = RwSignal::new(LoadState::Loading(wanted.get_untracked()));
    // S3 endpoint and credentials (in memory unless the user asks to remember them).
    let connection = Connection::load();
    // A REST catalog's token (in memory unless the user asks to remember it; never in the URL).
    let catalog = CatalogConnection::load();

    let open = move |target: String| {
        state.set(LoadState::Loading(target.clone()));
        spawn_local(async move {
            let outcome =
                warehouse::open(&target, &connection.options(), &catalog.settings()).await;
            if outcome.is_ok() {
                connection.remember_if_asked();
                catalog.remember_if_asked();
            }
            // A newer Open may have started meanwhile: only the latest request may land.
            if state.with_untracked(|s| s == &LoadState::Loading(target.clone())) {
                if let Ok(w) = &outcome {
                    if route.with_untracked(|r| r.warehouse.is_none()) {
                        go_replace(route, |r| r.warehouse = Some(target.clone()));
                    }
                    // A link to a table: its first reads go out before the page is drawn.
                    let linked = route.with_untracked(|r| r.table.clone());
                    if let Some((_, t)) = linked.as_deref().and_then(|name| w.find_table(name)) {
                        warehouse::prefetch(&t.path);
                    } else {
                        // Nothing to read yet: compile the reader for the first table opened.
                        let tables = w.databases.iter().flat_map(|d| &d.tables);
                        crate::state::warm_up::start(tables.map(|t| t.path.clone()).collect());
                    }
                }
                state.set(match outcome {
                    Ok(w) => LoadState::Loaded(w),
                    Err(message) => LoadState::Failed(message),
                });
            }
        });
    };
    Effect::new(move |_| {
        let target = wanted.get();
        uri.set(target.clone());
        open(target);
    });
    provide_context(CatalogRefresh(Callback::new(move |()| {
        let LoadState::Loaded(current) = state.get_untracked() else {
            return;
        };
        spawn_local(async move {
            let reopened =
                warehouse::open(&current.uri, &connection.options(), &catalog.settings()).await;
            if let Ok(w) = reopened {
                // Only if nothing else was opened meanwhile.
                if state
                    .with_untracked(|s| matches!(s, LoadState::Loaded(c) if c.uri == current.uri))
                {
                    state.set(LoadState::Loaded(w));
                }
            }
        });
    })));
    let on_open = move |target: String| {
        if route.with_untracked(|r| {
            r.warehouse.as_deref() == Some(target.as_str()) && r.table.is_none()
        }) {
            open(target); // same URL: reload
        } else {
            go(route, |r| {
                *r = Route {
                    warehouse: Some(target),
                    ..Route::default()
                }
            });
        }
    };

    let selected = Memo::new(move |_| {
        let name = route.with(|r| r.table.clone())?;
        state.with(|s| match s {
            LoadState::Loaded(w) => w.find_table(&name).map(|(db, t)| Selection {
                database: db.to_string(),
                table: t.clone(),
                base_url: w.base_url.clone(),
            }),
            _ => None,
        })
    });

    // What the main panel shows: a Memo, so that relisting the catalog or other route changes do
    // not rebuild it (a running console keeps its results).
    let main = Memo::new(move |_| {
        if let Some(selection) = selected.get() {
            return Main::Table(selection);
        }
        match route.with(|r| (r.table.clone(), r.tab)) {
            (Some(t), _) if matches!(state.get(), LoadState::Loaded(_)) => Main::Missing(t),
            (None, Tab::Sql) => Main::Console,
            _ => Main::Welcome,
        }
    });

    view! {
        <div class="app" data-testid="app">
            <Header />
            <ConnectionBar uri=uri state=state on_open=on_open />
            <ConnectPanel uri=uri connection=connection catalog=catalog on_open=on_open />
            <main class="workspace">
                <aside class="sidebar" data-testid="sidebar">
                    <CatalogTree state=state selected=selected />
                </aside>
                <section class="content" data-testid="content">
                    {move || match main.get() {
                        Main::Table(selection) => view! { <TablePanel selection=selection /> }.into_any(),
                        Main::Missing(t) => view! {
                            <ErrorPanel title="No such table" message=format!("The warehouse has no table {t}.") />
                        }.into_any(),
                        Main::Console => view! {
                            <article class="panel" data-testid="sql-console">
                                <h1 class="console-title">"SQL console"</h1>
                                <SqlTab starter=console_starter() />
                            </article>
                        }.into_any(),
                        Main::Welcome => view! { <Welcome state=state /> }.into_any(),
                    }}
                </section>
            </main>
        </div>
    }
}

/// `/` focuses the data filter (or the catalog filter when no table is open).
fn on_global_key(ev: web_sys::KeyboardEvent) {
    if ev.key() != "/" || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
        return;
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Some(active) = doc.active_element() {
        let tag = active.tag_name().to_ascii_lowercase();
        if tag == "input" || tag == "textarea" || tag == "select" {
            return;
        }
    }
    let target = doc
        .get_element_by_id("data-filter")
        .or_else(|| doc.get_element_by_id("catalog-filter"));
    if let Some(el) = target.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        ev.prevent_default();
        let _ = el.focus();
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
            <span class="tagline">"Apache Paimon and Iceberg tables, read in your browser"</span>
            <theme::ThemeToggle />
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
            <label class="connbar-label" for="warehouse-uri">"Warehouse or catalog"</label>
            <input
                id="warehouse-uri"
                class="connbar-input"
                data-testid="warehouse-uri"
                type="text"
                spellcheck="false"
                autocomplete="off"
                placeholder="https://host/warehouse/, s3://bucket/warehouse, opfs://my-lake, paimon+rest://host:port/warehouse, iceberg+rest://host:port or demo/warehouse/"
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
            <button
                class="btn"
                type="button"
                data-testid="opfs-button"
                title="A warehouse in this browser's private file system (OPFS)"
                on:click=move |_| {
                    if !uri.get_untracked().trim().starts_with("opfs://") {
                        uri.set("opfs://my-lake".to_string());
                    }
                }
            >
                "In this browser"
            </button>
            // The URL gives way (ellipsis, full text on hover) so the counts stay readable.
            <span
                class="connbar-status"
                data-testid="connection-status"
                title=move || status_text(&state.get())
            >
                {move || match state.get() {
                    LoadState::Loaded(w) => {
                        view! {
                            <span class="connbar-url">{w.base_url.clone()}</span>
                            <span class="connbar-counts">
                                {format!(
                                    " · {} databases · {} tables",
                                    w.databases.len(),
                                    w.table_count(),
                                )}
                            </span>
                        }
                            .into_any()
                    }
                    other => view! { <span class="connbar-url">{status_text(&other)}</span> }.into_any(),
                }}
            </span>
        </form>
    }
}

/// The connection status as one line of text.
fn status_text(state: &LoadState) -> String {
    match state {
        LoadState::Loading(u) => format!("Opening {u}…"),
        LoadState::Loaded(w) => format!(
            "{} · {} databases · {} tables",
            w.base_url,
            w.databases.len(),
            w.table_count(),
        ),
        LoadState::Failed(_) => "Not connected".to_string(),
    }
}
