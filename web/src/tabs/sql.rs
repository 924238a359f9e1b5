//! The SQL console (a table's SQL tab, or the warehouse's console without a table): a Flink SQL
//! editor over the open warehouse, run by the lazily loaded SQL worker, with each statement's
//! rows, confirmation or error (at its line and column); a script can go on after errors.

use crate::app::{CatalogRefresh, Selection};
use crate::state::warehouse;
use crate::util::{Busy, Frame};
use crate::widgets::grid::Grid;
use crate::workers::sql;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use lakescope_engine::session::{ConsoleEvent, ReportColumn, ReportOutcome, StatementReport};
use lakescope_engine::sql_editor::Pos;
use leptos::html::Textarea;
use leptos::prelude::*;
use std::sync::Arc;

/// Rows kept per result (the rest are counted).
const MAX_ROWS: usize = 10_000;

/// One finished statement.
#[derive(Clone)]
struct Finished {
    report: StatementReport,
    millis: f64,
}

/// State of the last run.
#[derive(Clone, Default)]
struct RunState {
    running: bool,
    finished: Vec<Finished>,
    /// Why the run stopped early (worker failed, cancelled).
    failure: Option<String>,
}

/// The editor's first text on a table's SQL tab.
pub fn table_starter(sel: &Selection) -> String {
    let table = format!("`{}`.`{}`", sel.database, sel.table.name);
    format!(
        "-- Flink SQL on this warehouse (catalog `lakescope`). Ctrl+Enter runs.\n\
         -- A static web host is read-only: ALTER, INSERT and CALL need a writable warehouse.\n\
         SELECT * FROM {table} LIMIT 100;\n\
         -- ALTER TABLE {table} ADD new_column STRING COMMENT 'added from lakescope';\n\
         -- SHOW CREATE TABLE {table};\n"
    )
}

/// The editor's first text in the warehouse's console.
pub fn console_starter() -> String {
    "-- Flink SQL on this warehouse (catalog `lakescope`, database `default`). Ctrl+Enter runs.\n\
     -- A static web host is read-only: CREATE, INSERT and CALL need a writable warehouse.\n\
     SHOW DATABASES;\n\
     -- CREATE DATABASE my_db;\n\
     -- CREATE TABLE my_db.t (id INT PRIMARY KEY NOT ENFORCED, v STRING);\n"
        .to_string()
}

/// The rows of a report as a grid frame (all columns text).
fn frame(columns: &[ReportColumn], rows: &[Vec<Option<String>>]) -> Option<Arc<Frame>> {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|c| Field::new(&c.name, DataType::Utf8, true))
            .collect::<Vec<_>>(),
    ));
    let arrays: Vec<ArrayRef> = (0..columns.len())
        .map(|c| {
            Arc::new(StringArray::from(
                rows.iter()
                    .map(|row| row.get(c).cloned().flatten())
                    .collect::<Vec<_>>(),
            )) as ArrayRef
        })
        .collect();
    let batch = RecordBatch::try_new(schema.clone(), arrays).ok()?;
    Some(Arc::new(Frame::new(schema, vec![batch])))
}

#[component]
pub fn SqlTab(
    /// The editor's first text.
    starter: String,
) -> impl IntoView {
    let editor = NodeRef::<Textarea>::new();
    let script = RwSignal::new(starter);
    let keep_going = RwSignal::new(false);
    // Statements may create or drop tables: the catalog is listed again after a run that did.
    let refresh = use_context::<CatalogRefresh>();
    let ran_script = RwSignal::new(String::new());
    let state = RwSignal::new(RunState::default());
    let run = move || {
        if state.with_untracked(|s| s.running) {
            return;
        }
        let sql = editor
            .get_untracked()
            .map(|e| e.value())
            .unwrap_or_else(|| script.get_untracked());
        script.set(sql.clone());
        ran_script.set(sql.clone());
        state.set(RunState {
            running: true,
            ..RunState::default()
        });
        let started = warehouse::console().and_then(|connection| {
            sql::run_script(
                &connection,
                sql,
                MAX_ROWS,
                keep_going.get_untracked(),
                move |event| match event {
                    ConsoleEvent::Statement { report, millis, .. } => {
                        if matches!(report.outcome, ReportOutcome::Done { .. }) {
                            // A DDL or a write may have changed any table: read metadata afresh.
                            warehouse::forget_tables();
                        }
                        state.update(|s| {
                            s.finished.push(Finished {
                                report: report.clone(),
                                millis: *millis,
                            })
                        });
                    }
                    ConsoleEvent::Done { .. } => {
                        state.update(|s| s.running = false);
                        let changed = state.with_untracked(|s| {
                            s.finished
                                .iter()
                                .any(|f| matches!(f.report.outcome, ReportOutcome::Done { .. }))
                        });
                        if let (true, Some(refresh)) = (changed, refresh) {
                            refresh.run();
                        }
                    }
                    ConsoleEvent::Failed { message, .. } => state.update(|s| {
                        s.running = false;
                        s.failure = Some(message.clone());
                    }),
                    ConsoleEvent::Ready | ConsoleEvent::AlterPreview { .. } => {}
                },
            )
        });
        if let Err(message) = started {
            state.set(RunState {
                failure: Some(message),
                ..RunState::default()
            });
        }
    };
    // Put the cursor on the first error.
    Effect::new(move |_| {
        let first_error = state.with(|s| {
            s.finished.iter().find_map(|f| match &f.report.outcome {
                ReportOutcome::Error { line, column, .. } => Some((*line, *column)),
                _ => None,
            })
        });
        if let (Some((line, column)), Some(el)) = (first_error, editor.get_untracked()) {
            let at = Pos::new(line, column).char_offset(&ran_script.get_untracked()) as u32;
            let _ = el.set_selection_range(at, at);
            let _ = el.focus();
        }
    });
    let results = move || {
        let s = state.get();
        let script = ran_script.get();
        s.finished
            .into_iter()
            .map(|f| statement_view(f, &script))
            .collect_view()
    };
    view! {
        <div class="sql-tab" data-testid="sql-tab">
            <textarea
                class="sql-editor"
                data-testid="sql-editor"
                spellcheck="false"
                aria-label="Flink SQL statements"
                node_ref=editor
                prop:value=move || script.get()
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
                        ev.prevent_default();
                        run();
                    }
                }
            ></textarea>
            <div class="sql-actions">
                <button
                    class="btn primary"
                    data-testid="sql-run"
                    disabled=move || state.with(|s| s.running)
                    on:click=move |_| run()
                >
                    "Run"
                </button>
                <button
                    class="btn"
                    data-testid="sql-cancel"
                    disabled=move || !state.with(|s| s.running)
                    on:click=move |_| sql::cancel()
                >
                    "Cancel"
                </button>
                <label class="check" title="Run every statement even after one fails (lakescope sql --keep-going)">
                    <input
                        type="checkbox"
                        data-testid="sql-keep-going"
                        prop:checked=move || keep_going.get()
                        on:change=move |ev| keep_going.set(event_target_checked(&ev))
                    />
                    "Continue after errors"
                </label>
                <span class="muted" data-testid="sql-summary">
                    {move || {
                        let (done, failed) = state.with(|s| {
                            let failed = s
                                .finished
                                .iter()
                                .filter(|f| matches!(f.report.outcome, ReportOutcome::Error { .. }))
                                .count();
                            (s.finished.len(), failed)
                        });
                        if done == 0 {
                            "Statements run in order.".to_string()
                        } else {
                            format!("{done} statement(s) ran, {failed} failed.")
                        }
                    }}
                </span>
            </div>
            {move || {
                state
                    .with(|s| s.running)
                    .then(|| {
                        let text = if sql::is_ready() {
                            "Running…".to_string()
                        } else {
                            "Loading the SQL engine (first use only)…".to_string()
                        };
                        view! { <Busy text=text /> }
                    })
            }}
            {move || {
                state
                    .with(|s| s.failure.clone())
                    .map(|m| {
                        view! {
                            <div class="error" role="alert" data-testid="sql-failure">
                                <p>{m}</p>
                            </div>
                        }
                    })
            }}
            <div class="sql-results" data-testid="sql-results">{results}</div>
        </div>
    }
}

fn statement_view(f: Finished, script: &str) -> impl IntoView {
    let r = f.report;
    let head = format!(
        "Statement {} · line {} · {:.0} ms",
        r.number, r.line, f.millis
    );
    let body = match r.outcome {
        ReportOutcome::Done { message } => {
            view! { <p class="sql-info" data-testid="sql-info">{message}</p> }.into_any()
        }
        ReportOutcome::Rows {
            columns,
            rows,
            total_rows,
        } => {
            let shown = rows.len();
            let frame = frame(&columns, &rows);
            let count = if shown < total_rows {
                format!("{total_rows} rows (showing the first {shown})")
            } else {
                format!("{total_rows} row{}", if total_rows == 1 { "" } else { "s" })
            };
            view! {
                <p class="muted" data-testid="sql-row-count">{count}</p>
                <Grid frame=Signal::derive(move || frame.clone()) testid="sql-grid" class="short" />
            }
            .into_any()
        }
        ReportOutcome::Error {
            line,
            column,
            message,
        } => {
            let excerpt = Pos::new(line, column).excerpt(script);
            view! {
                <div class="error" role="alert" data-testid="sql-error">
                    <strong>{format!("Error at line {line}, column {column}")}</strong>
                    <p data-testid="sql-error-message">{message}</p>
                    {excerpt.map(|e| view! { <pre class="sql-excerpt">{e}</pre> })}
                    <p class="muted">"Nothing was committed by this statement."</p>
                </div>
            }
            .into_any()
        }
    };
    view! {
        <section class="sql-result" data-testid="sql-result">
            <header class="sql-result-head">
                <span>{head}</span>
                <code class="sql-text">{r.text}</code>
            </header>
            {body}
        </section>
    }
}
