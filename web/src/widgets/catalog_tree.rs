//! The catalog sidebar: databases and their tables, with a filter box.

use crate::app::{LoadState, Selection};
use crate::state::route::{go, use_route, Route};
use crate::state::warehouse;
use lakescope_engine::DatabaseEntry;
use lakescope_engine::Version;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::HashMap;

/// Table path → (badge, title).
type Kinds = RwSignal<HashMap<String, (String, String)>>;

/// Databases → tables of the open warehouse, or the loading/error state.
#[component]
pub fn CatalogTree(state: RwSignal<LoadState>, selected: Memo<Option<Selection>>) -> impl IntoView {
    let filter = RwSignal::new(String::new());
    let kinds: Kinds = RwSignal::new(HashMap::new());
    // Table kind badges: read each table's schema once per opened warehouse.
    Effect::new(move |_| {
        if let LoadState::Loaded(w) = state.get() {
            kinds.set(HashMap::new());
            for db in w.databases {
                for t in db.tables {
                    spawn_local(async move {
                        let k = warehouse::table_kind(&t.path).await;
                        kinds.update(|m| {
                            m.insert(t.path.clone(), k);
                        });
                    });
                }
            }
        }
    });
    view! {
        <div class="catalog" data-testid="catalog">
            <div class="catalog-head">
                <span class="section-title">"Catalog"</span>
                <input
                    id="catalog-filter"
                    class="filter"
                    data-testid="catalog-filter"
                    type="search"
                    placeholder="Filter tables"
                    spellcheck="false"
                    bind:value=filter
                />
            </div>
            {move || match state.get() {
                LoadState::Loading(uri) => {
                    view! {
                        <p class="note loading" data-testid="catalog-loading">
                            <span class="spinner" aria-hidden="true"></span>
                            {format!("Listing {uri}…")}
                        </p>
                    }
                        .into_any()
                }
                LoadState::Failed(message) => {
                    view! {
                        <div class="error" role="alert" data-testid="catalog-error">
                            <strong>"Cannot open this warehouse"</strong>
                            <p>{message}</p>
                        </div>
                    }
                        .into_any()
                }
                LoadState::Loaded(w) if w.databases.is_empty() => {
                    view! {
                        <p class="note" data-testid="catalog-empty">
                            {format!("No databases in {} (expected folders named <db>.db).", w.uri)}
                        </p>
                    }
                        .into_any()
                }
                LoadState::Loaded(w) => {
                    let base_url = w.base_url.clone();
                    view! {
                        <Tree databases=w.databases base_url=base_url filter=filter selected=selected kinds=kinds />
                    }
                        .into_any()
                }
            }}
        </div>
    }
}

/// Whether `table` in `database` matches the (lower-cased) filter text.
fn matches(database: &str, table: &str, needle: &str) -> bool {
    needle.is_empty()
        || table.to_lowercase().contains(needle)
        || format!("{database}.{table}")
            .to_lowercase()
            .contains(needle)
}

#[component]
fn Tree(
    databases: Vec<DatabaseEntry>,
    base_url: String,
    filter: RwSignal<String>,
    selected: Memo<Option<Selection>>,
    kinds: Kinds,
) -> impl IntoView {
    let databases = StoredValue::new(databases);
    let base_url = StoredValue::new(base_url);
    move || {
        let needle = filter.get().trim().to_lowercase();
        let shown: Vec<DatabaseEntry> = databases.with_value(|dbs| {
            dbs.iter()
                .map(|db| DatabaseEntry {
                    name: db.name.clone(),
                    tables: db
                        .tables
                        .iter()
                        .filter(|t| matches(&db.name, &t.name, &needle))
                        .cloned()
                        .collect(),
                })
                .filter(|db| needle.is_empty() || !db.tables.is_empty())
                .collect()
        });
        if shown.is_empty() {
            let text = format!("No tables match “{}”.", filter.get_untracked().trim());
            return view! { <p class="note" data-testid="catalog-no-match">{text}</p> }.into_any();
        }
        view! {
            <ul class="tree" data-testid="catalog-tree">
                {shown
                    .into_iter()
                    .map(|db| view! { <DatabaseNode db=db base_url=base_url.get_value() selected=selected kinds=kinds /> })
                    .collect_view()}
            </ul>
        }
            .into_any()
    }
}

#[component]
fn DatabaseNode(
    db: DatabaseEntry,
    base_url: String,
    selected: Memo<Option<Selection>>,
    kinds: Kinds,
) -> impl IntoView {
    let route = use_route();
    let open = RwSignal::new(true);
    let name = db.name.clone();
    let count = db.tables.len();
    let tables = db
        .tables
        .into_iter()
        .map(|table| {
            let _ = &base_url;
            let full = format!("{}.{}", name, table.name);
            let path = table.path.clone();
            let kpath = table.path.clone();
            let kpath2 = table.path.clone();
            let badge = move || kinds.with(|k| k.get(&kpath).map(|k| k.0.clone()));
            let badge_title = move || kinds.with(|k| k.get(&kpath2).map(|k| k.1.clone()));
            let kpath3 = table.path.clone();
            let badge_class = move || {
                let b = kinds.with(|k| k.get(&kpath3).map(|k| k.0.clone())).unwrap_or_default();
                let k = if b.starts_with("pk") {
                    "pk"
                } else if b == "iceberg" {
                    "iceberg"
                } else if b == "error" {
                    "error"
                } else {
                    "append"
                };
                format!("kind-badge kind-{k}")
            };
            let open_path = table.path.clone();
            let is_selected =
                move || selected.with(|s| s.as_ref().is_some_and(|s| s.table.path == path));
            view! {
                <li>
                    <button
                        class="node table-node"
                        class:selected=is_selected
                        data-testid="table-node"
                        data-table=full.clone()
                        title=table.path.clone()
                        on:click=move |_| {
                            // The table's reads go out before the page draws it.
                            crate::state::warehouse::prefetch(&open_path);
                            let full = full.clone();
                            go(route, move |r| {
                                *r = Route {
                                    warehouse: r.warehouse.clone(),
                                    table: Some(full),
                                    tab: r.tab,
                                    at: Version::Latest,
                                    ..Route::default()
                                }
                            })
                        }
                    >
                        <span class="icon" aria-hidden="true">"▦"</span>
                        <span class="label">{table.name.clone()}</span>
                        {move || badge().map(|b| view! {
                            <span class=badge_class.clone() title=badge_title.clone() aria-hidden="true" data-testid="kind-badge">{b}</span>
                        })}
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <li class="db" data-testid="database-node" data-database=db.name.clone()>
            <button
                class="node db-node"
                aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)
            >
                <span class="caret" aria-hidden="true">{move || if open.get() { "▾" } else { "▸" }}</span>
                <span class="icon" aria-hidden="true">"⛁"</span>
                <span class="label">{db.name.clone()}</span>
                <span class="count">{count}</span>
            </button>
            <ul class="tables" class:collapsed=move || !open.get()>{tables}</ul>
        </li>
    }
}
