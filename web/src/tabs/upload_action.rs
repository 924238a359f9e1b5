//! The Data tab's "Insert from file…" action on a writable warehouse: a CSV or Parquet file the
//! user picks is inserted into the table by the SQL engine's worker, streamed chunk by chunk and
//! committed once, with a progress bar and Cancel.

use crate::state::warehouse;
use crate::util::bytes;
use crate::workers::sql;
use crate::workers::upload;
use lakescope_engine::upload::protocol::{UploadEvent, UploadRequest};
use lakescope_engine::upload::{FileKind, Progress};
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

/// Rows per chunk unless the user asks for another size.
const DEFAULT_CHUNK_ROWS: usize = 50_000;

/// Where the upload is.
#[derive(Clone)]
enum UploadState {
    Idle,
    Running { file: String, progress: Progress },
    Done(String),
    Failed(String),
    Cancelled(String),
}

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

    let start = move |file: web_sys::File| {
        let (database, table) = names.get_value();
        let name = file.name();
        let Some(kind) = FileKind::from_name(&name) else {
            state.set(UploadState::Failed(format!(
                "{name}: not a .csv or .parquet file"
            )));
            return;
        };
        let rows = chunk_rows
            .get_untracked()
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .unwrap_or(DEFAULT_CHUNK_ROWS);
        let (uri, options) = match warehouse::connection() {
            Ok(c) => c,
            Err(m) => return state.set(UploadState::Failed(m)),
        };
        let request = UploadRequest {
            id: js_sys::Date::now() as u64,
            uri,
            options: Box::new(options),
            database: database.clone(),
            table: table.clone(),
            file: name.clone(),
            kind,
            chunk_rows: rows,
        };
        state.set(UploadState::Running {
            file: name.clone(),
            progress: Progress {
                total_bytes: file.size() as u64,
                ..Progress::default()
            },
        });
        let target = format!("{database}.{table}");
        let started = upload::start(&request, &file, move |event| {
            // After Cancel the outcome stays "cancelled".
            if matches!(state.try_get_untracked(), Some(UploadState::Cancelled(_))) {
                return;
            }
            match event {
                UploadEvent::UploadProgress { progress, .. } => {
                    let _ = state.try_set(UploadState::Running {
                        file: name.clone(),
                        progress: *progress,
                    });
                }
                UploadEvent::UploadDone {
                    snapshot,
                    rows,
                    millis,
                    ..
                } => {
                    let _ = state.try_set(UploadState::Done(format!(
                        "Inserted {} rows from {name} into {target}: snapshot {snapshot} ({:.1} s).",
                        *rows,
                        millis / 1000.0
                    )));
                    warehouse::forget_tables();
                    on_done();
                }
                UploadEvent::UploadFailed { message, .. } => {
                    let _ = state.try_set(UploadState::Failed(format!(
                        "Nothing was inserted: {message}"
                    )));
                }
            }
        });
        if let Err(m) = started {
            state.set(UploadState::Failed(m));
        }
    };

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
            start(file);
        }
    };

    let cancel = move |_| {
        if let UploadState::Running { file, .. } = state.get_untracked() {
            state.set(UploadState::Cancelled(format!(
                "Cancelled {file}: nothing was committed (data files written so far are left unreferenced)."
            )));
            sql::cancel();
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
            <span class="statusline" data-testid="upload-status">
                {move || match state.get() {
                    UploadState::Idle if !writable => view! {
                        <span class="muted">{read_only.clone()}</span>
                    }.into_any(),
                    UploadState::Idle => view! { <span></span> }.into_any(),
                    UploadState::Running { file, progress } => {
                        let share = if progress.total_bytes == 0 { 1.0 } else { progress.bytes_read as f64 / progress.total_bytes as f64 };
                        let text = if progress.committing {
                            format!("{file}: {} rows written, committing…", progress.rows_written)
                        } else if progress.bytes_read == 0 && !sql::is_ready() {
                            format!("{file}: loading the SQL engine (first use only)…")
                        } else {
                            format!("{file}: {} of {} read · {} rows written", bytes(progress.bytes_read as i64), bytes(progress.total_bytes as i64), progress.rows_written)
                        };
                        view! {
                            <progress class="upload-bar" data-testid="upload-progress" max="1000" value=format!("{:.0}", share * 1000.0)></progress>
                            <span class="muted" data-testid="upload-progress-text">{text}</span>
                            <button class="btn" data-testid="upload-cancel" disabled=progress.committing
                                title="Stop the upload: nothing is committed" on:click=cancel>"Cancel"</button>
                        }.into_any()
                    }
                    UploadState::Done(m) => view! { <span class="ok-inline">{m}</span> }.into_any(),
                    UploadState::Failed(m) => view! { <span class="err-inline">{m}</span> }.into_any(),
                    UploadState::Cancelled(m) => view! { <span class="muted">{m}</span> }.into_any(),
                }}
            </span>
        </div>
    }
}
