//! The Data tab's "Insert from file…" action on a writable warehouse: a CSV or Parquet file the
//! user picks is inserted into the table by the SQL engine's worker, streamed chunk by chunk and
//! committed once, with a progress bar and Cancel.

mod run;
mod status;

use crate::state::warehouse;
use leptos::prelude::*;
use run::{UploadState, DEFAULT_CHUNK_ROWS};
use status::UploadStatus;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

/// The action for table `database`.`table`; `on_done` reloads the tab after a commit.
#[component]
pub fn UploadAction(
    database: String,
    table: String,
    on_done: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let writable = warehouse::is_writable();
    let read_only = warehouse::read_only_note("insert files");
    let names = StoredValue::new((database, table));
    let state = RwSignal::new(UploadState::Idle);
    let chunk_rows = RwSignal::new(DEFAULT_CHUNK_ROWS.to_string());
    let running = move || matches!(state.get(), UploadState::Running { .. });
    let input = NodeRef::<leptos::html::Input>::new();

    let picked = move |ev: leptos::ev::Event| {
        let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
        else {
            return;
        };
        let file = el.files().and_then(|f| f.get(0));
        // Picking the same file again must fire `change` again.
        el.set_value("");
        if let Some(file) = file {
            let rows = chunk_rows.get_untracked();
            run::start(state, names.get_value(), &rows, file, on_done);
        }
    };

    view! {
        <div class="toolbar upload-action" data-testid="upload-action">
            <input type="file" accept=".csv,.parquet,.parq" class="file-input" data-testid="upload-file"
                node_ref=input on:change=picked />
            <button class="btn" data-testid="upload" disabled=move || !writable || running()
                title=if writable { "Insert the rows of a CSV (with a header row) or Parquet file, matched by column name (INSERT INTO: primary keys upsert)".to_string() } else { read_only.clone() }
                on:click=move |_| { if let Some(i) = input.get() { i.click() } }>"Insert from file…"</button>
            <label class="tb-label" title="Rows converted and written at a time: each chunk becomes its own data files; memory use follows this size">
                "rows per chunk"
                <input class="input chunk-rows" type="number" min="1" data-testid="upload-chunk-rows"
                    bind:value=chunk_rows disabled=move || !writable || running() />
            </label>
            <UploadStatus state=state writable=writable read_only=read_only />
        </div>
    }
}
