//! The Files tab's "Compact" action on a writable warehouse: a full compaction of the table
//! (Paimon's `CALL sys.compact`), run by the SQL engine in its worker (loaded on first use).

use crate::state::warehouse;
use crate::workers::sql;
use lakescope_engine::session::{ConsoleEvent, ReportOutcome};
use leptos::prelude::*;

/// What the last compaction did; kept by the tab across its reloads.
#[derive(Clone, Default)]
pub enum CompactState {
    #[default]
    Idle,
    Running,
    Done(String),
    Failed(String),
}

/// `'text'` as a SQL string literal.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The Compact button for `table` (`db.t`) and its status; `on_done` reloads the tab.
#[component]
pub fn CompactAction(
    table: String,
    state: RwSignal<CompactState>,
    on_done: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let writable = warehouse::is_writable();
    let table = StoredValue::new(table);
    let running = move || matches!(state.get(), CompactState::Running);
    let compact = move |_| {
        let name = table.get_value();
        let question = format!(
            "Compact {name}?\n\nThe files of every bucket are merged into one sorted run at the top \
             level (a COMPACT snapshot). \
             Readers keep working; concurrent writers may have to retry."
        );
        if !window().confirm_with_message(&question).unwrap_or(false) {
            return;
        }
        state.set(CompactState::Running);
        let sql = format!("CALL sys.compact(`table` => {})", quoted(&name));
        let started = warehouse::connection().and_then(|(base_url, options)| {
            let connection = sql::Connection::Warehouse { base_url, options };
            sql::run(&connection, sql, 1, move |event| {
                let finished = match event {
                    ConsoleEvent::Statement { report, .. } => match &report.outcome {
                        ReportOutcome::Done { message } => {
                            Some(CompactState::Done(message.clone()))
                        }
                        ReportOutcome::Error { message, .. } => {
                            Some(CompactState::Failed(message.clone()))
                        }
                        ReportOutcome::Rows { .. } => None,
                    },
                    ConsoleEvent::Failed { message, .. } => {
                        Some(CompactState::Failed(message.clone()))
                    }
                    ConsoleEvent::Done { .. }
                    | ConsoleEvent::Ready
                    | ConsoleEvent::AlterPreview { .. } => None,
                };
                if let Some(finished) = finished {
                    let committed = matches!(finished, CompactState::Done(_));
                    let _ = state.try_set(finished);
                    if committed {
                        warehouse::forget_tables();
                        on_done();
                    }
                }
            })
        });
        if let Err(message) = started {
            state.set(CompactState::Failed(message));
        }
    };
    view! {
        <div class="toolbar compact-action" data-testid="compact-action">
            <button class="btn" data-testid="compact" disabled=move || !writable || running()
                title=if writable { "Rewrite the table's files into the top level (CALL sys.compact)" } else { "This warehouse is read-only (a static web host)" }
                on:click=compact>"Compact…"</button>
            <span class="statusline" data-testid="compact-status">
                {move || match state.get() {
                    CompactState::Idle if !writable => view! {
                        <span class="muted">{warehouse::read_only_note("compact")}</span>
                    }.into_any(),
                    CompactState::Idle => view! { <span></span> }.into_any(),
                    CompactState::Running => view! {
                        <span class="muted">{if sql::is_ready() { "Compacting…" } else { "Loading the SQL engine (first use only), then compacting…" }}</span>
                    }.into_any(),
                    CompactState::Done(m) => view! { <span class="ok-inline">{m}</span> }.into_any(),
                    CompactState::Failed(m) => view! { <span class="err-inline">{m}</span> }.into_any(),
                }}
            </span>
        </div>
    }
}
