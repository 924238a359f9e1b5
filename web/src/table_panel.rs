//! The main panel: a placeholder for the selected table, or a welcome when none is selected.

use crate::app::{LoadState, Selection};
use leptos::prelude::*;

/// The selected table: its name and location (tabs for schema, snapshots and data come later).
#[component]
pub fn TablePanel(selection: Selection) -> impl IntoView {
    let location = format!("{}{}/", selection.base_url, selection.table.path);
    view! {
        <article class="panel" data-testid="table-panel">
            <header class="panel-head">
                <span class="crumb">{selection.database.clone()}</span>
                <span class="crumb-sep">"/"</span>
                <h1 data-testid="table-title">{selection.table.name.clone()}</h1>
            </header>
            <nav class="tabs" aria-label="Table views">
                <span class="tab active">"Overview"</span>
                <span class="tab disabled" title="Coming soon">"Schema"</span>
                <span class="tab disabled" title="Coming soon">"Snapshots"</span>
                <span class="tab disabled" title="Coming soon">"Data"</span>
            </nav>
            <dl class="facts">
                <dt>"Database"</dt>
                <dd>{selection.database.clone()}</dd>
                <dt>"Table"</dt>
                <dd>{selection.table.name.clone()}</dd>
                <dt>"Path"</dt>
                <dd><code data-testid="table-path">{selection.table.path.clone()}</code></dd>
                <dt>"Location"</dt>
                <dd><code>{location}</code></dd>
            </dl>
            <p class="note">"Schema, snapshots and data previews arrive in the next versions of lakescope."</p>
        </article>
    }
}

/// Shown while no table is selected.
#[component]
pub fn Welcome(state: RwSignal<LoadState>) -> impl IntoView {
    view! {
        <div class="welcome" data-testid="welcome">
            <h1>"Explore a Paimon lake"</h1>
            <p>
                {move || match state.get() {
                    LoadState::Loaded(w) if w.table_count() > 0 => {
                        "Pick a table in the catalog on the left to see where it lives.".to_string()
                    }
                    LoadState::Failed(_) => {
                        "Enter the URL of a warehouse folder above and press Open, or go back to the demo lake."
                            .to_string()
                    }
                    _ => "Open a warehouse to list its databases and tables.".to_string(),
                }}
            </p>
            <p class="hint">
                "Everything runs in this tab: files are fetched straight from the host, nothing is uploaded."
            </p>
        </div>
    }
}
