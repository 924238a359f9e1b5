//! The table page: header and tabs (each addressable by URL), each serving both formats.

use crate::app::{LoadState, Selection};
use crate::state::route::{go, use_route, Tab};
use crate::state::warehouse;
use crate::util::Frame;
use lakescope_engine::table::Format;
use lakescope_engine::TableRef;
use lakescope_engine::{scan::ScanRequest, Version};
use leptos::prelude::*;

/// The `TableRef` of a selection.
pub fn table_ref(sel: &Selection, system: Option<&str>) -> TableRef {
    TableRef {
        database: sel.database.clone(),
        table: sel.table.name.clone(),
        system: system.map(str::to_string),
    }
}

/// Scans a (system) table into a frame.
pub async fn scan_frame(
    sel: &Selection,
    system: Option<&str>,
    at: Version,
) -> Result<Frame, String> {
    let catalog = warehouse::catalog()?;
    let r = table_ref(sel, system);
    let out = catalog
        .scan(
            &r,
            &ScanRequest {
                at,
                ..ScanRequest::default()
            },
        )
        .await
        .map_err(|e| format!("Reading {r} failed: {e}"))?;
    Ok(Frame::new(out.schema, out.batches))
}

/// Whether the selected table is an Iceberg table (its catalog entry says).
pub fn is_iceberg(sel: &Selection) -> bool {
    sel.table.format == Format::Iceberg
}

/// The selected table with its tabs.
#[component]
pub fn TablePanel(selection: Selection) -> impl IntoView {
    let route = use_route();
    let location = if warehouse::service().is_some() {
        format!("{} {}", selection.base_url, table_ref(&selection, None))
    } else {
        format!("{}{}/", selection.base_url, selection.table.path)
    };
    let sel = StoredValue::new(selection.clone());
    let tab = Memo::new(move |_| route.with(|r| r.tab));
    view! {
        <article class="panel" data-testid="table-panel">
            <header class="panel-head">
                <span class="crumb">{selection.database.clone()}</span>
                <span class="crumb-sep">"/"</span>
                <h1 data-testid="table-title">{selection.table.name.clone()}</h1>
                <code class="path" data-testid="table-path">{selection.table.path.clone()}</code>
                <span class="location" title="Location">{location}</span>
            </header>
            <nav class="tabs" role="tablist" aria-label="Table views">
                {Tab::ALL
                    .into_iter()
                    .map(|t| {
                        view! {
                            <button
                                class="tab"
                                role="tab"
                                class:active=move || tab.get() == t
                                aria-selected=move || (tab.get() == t).to_string()
                                data-testid=format!("tab-{}", t.id())
                                on:click=move |_| go(route, |r| r.tab = t)
                            >
                                {t.label()}
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
            <div class="tab-body" data-testid=move || format!("tab-body-{}", tab.get().id())>
                {move || {
                    let s = sel.get_value();
                    let t = tab.get();
                    match t {
                        Tab::Overview => view! { <crate::tabs::overview::OverviewTab sel=s /> }.into_any(),
                        Tab::Schema => view! { <crate::tabs::schema::SchemaTab sel=s /> }.into_any(),
                        Tab::Snapshots => view! { <crate::tabs::snapshots::SnapshotsTab sel=s /> }.into_any(),
                        Tab::Data => view! { <crate::tabs::data::DataTab sel=s /> }.into_any(),
                        Tab::Diff => view! { <crate::tabs::diff::DiffTab sel=s /> }.into_any(),
                        Tab::Files => view! { <crate::tabs::files::FilesTab sel=s /> }.into_any(),
                        Tab::Sql => view! { <crate::tabs::sql::SqlTab starter=crate::tabs::sql::table_starter(&s) /> }.into_any(),
                        Tab::Ddl => view! { <crate::tabs::ddl::DdlTab sel=s /> }.into_any(),
                    }
                }}
            </div>
        </article>
    }
}

/// Shown while no table is selected.
#[component]
pub fn Welcome(state: RwSignal<LoadState>) -> impl IntoView {
    let route = use_route();
    view! {
        <div class="welcome" data-testid="welcome">
            <h1>"Explore a Paimon lake"</h1>
            <p>
                {move || match state.get() {
                    LoadState::Loaded(w) if w.table_count() > 0 => {
                        "Pick a table in the catalog on the left: overview, schema history, snapshots, data, diffs and files."
                            .to_string()
                    }
                    LoadState::Failed(_) => {
                        "Enter the URL of a warehouse folder above and press Open, or go back to the demo lake."
                            .to_string()
                    }
                    _ => "Open a warehouse to list its databases and tables.".to_string(),
                }}
            </p>
            <p class="hint">
                "Everything runs in this tab: files are fetched straight from the host, nothing is uploaded. Press / to filter."
            </p>
            {move || matches!(state.get(), LoadState::Loaded(_)).then(|| view! {
                <p>
                    <button class="btn" data-testid="open-console"
                        on:click=move |_| go(route, |r| r.tab = Tab::Sql)>
                        "Open the SQL console"
                    </button>
                    <span class="muted">" Flink SQL over the whole warehouse: create databases and tables, query across them."</span>
                </p>
            })}
        </div>
    }
}
