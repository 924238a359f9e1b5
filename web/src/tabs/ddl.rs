//! The DDL tab: a Paimon table's CREATE TABLE (as SHOW CREATE TABLE gives it) and an ALTER TABLE
//! editor validated live by the SQL worker, with a preview of the next schema and a commit.

use crate::app::Selection;
use crate::state::warehouse;
use crate::util::{Busy, ErrorPanel, Load};
use crate::widgets::ddl_editor::DdlEditor;
use crate::workers::sql;
use lakescope_engine::session::{ConsoleEvent, PreviewOutcome, ReportOutcome};
use lakescope_engine::sql_editor::{
    ddl_schema, highlight, quote_ident, show_create_table, Pos, TableSchema,
};
use lakescope_engine::table::paimon_schema_changes;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::time::Duration;

/// Quiet time after typing before the statement is checked.
const DEBOUNCE: Duration = Duration::from_millis(350);

/// What the worker said about the editor's statement.
#[derive(Clone)]
enum Check {
    /// Nothing typed after `ALTER TABLE <t>`.
    Idle,
    Checking,
    Valid {
        current: Box<TableSchema>,
        next: Box<TableSchema>,
    },
    Invalid {
        pos: Pos,
        message: String,
    },
    /// The engine could not run (not in this build, stopped).
    Unavailable(String),
}

/// The last commit.
#[derive(Clone, Default)]
enum Commit {
    #[default]
    Idle,
    Running(i64),
    Done(String),
    Failed(String),
}

/// Highlighted, read-only DDL.
#[component]
fn DdlText(text: String) -> impl IntoView {
    let segments = highlight(&text, None)
        .into_iter()
        .map(|s| view! { <span class=s.class>{s.text}</span> })
        .collect_view();
    view! { <pre class="ddl-show" data-testid="ddl-create">{segments}</pre> }
}

#[component]
pub fn DdlTab(sel: Selection) -> impl IntoView {
    let schema = RwSignal::new_local(Load::<Option<TableSchema>>::Loading(
        "Reading the schema…".into(),
    ));
    // Bumped after a commit: the schema is read again.
    let reloads = RwSignal::new(0u32);
    let path = sel.table.path.clone();
    Effect::new(move |_| {
        reloads.track();
        let path = path.clone();
        spawn_local(async move {
            let loaded = async {
                let tables = warehouse::tables()?;
                let schema = ddl_schema(&tables, &path).await;
                schema.map_err(|e| e.to_string())
            };
            let _ = schema.try_set(match loaded.await {
                Ok(s) => Load::Ready(s),
                Err(m) => Load::Failed(m),
            });
        });
    });
    let name = [sel.database.clone(), sel.table.name.clone()];
    let prefill = format!(
        "ALTER TABLE {}.{} ",
        quote_ident(&name[0]),
        quote_ident(&name[1])
    );
    let text = RwSignal::new(prefill.clone());
    let check = RwSignal::new(Check::Idle);
    let commit = RwSignal::new(Commit::Idle);
    let generation = StoredValue::new(0u64);
    let prefill = StoredValue::new(prefill);
    let columns = Signal::derive(move || match schema.get() {
        Load::Ready(Some(s)) => s.fields.iter().map(|f| f.name.clone()).collect(),
        _ => Vec::new(),
    });
    // Validate (and preview) the statement once typing pauses; older answers are dropped.
    Effect::new(move |_| {
        let sql = text.get();
        reloads.track();
        let current = generation.get_value() + 1;
        generation.set_value(current);
        if sql.trim() == prefill.get_value().trim() {
            check.set(Check::Idle);
            return;
        }
        check.set(Check::Checking);
        set_timeout(
            move || {
                if generation.get_value() != current {
                    return;
                }
                let started = warehouse::console().and_then(|connection| {
                    sql::preview_alter(&connection, sql, move |event| {
                        if generation.try_get_value() != Some(current) {
                            return;
                        }
                        let next = match event {
                            ConsoleEvent::AlterPreview { outcome, .. } => match outcome {
                                PreviewOutcome::Schemas { current, next, .. } => {
                                    match (
                                        TableSchema::from_json(current.as_bytes()),
                                        TableSchema::from_json(next.as_bytes()),
                                    ) {
                                        (Ok(current), Ok(next)) => Check::Valid {
                                            current: Box::new(current),
                                            next: Box::new(next),
                                        },
                                        (Err(e), _) | (_, Err(e)) => Check::Unavailable(format!(
                                            "The SQL engine sent a schema the page cannot read: {e}"
                                        )),
                                    }
                                }
                                PreviewOutcome::Error {
                                    line,
                                    column,
                                    message,
                                } => Check::Invalid {
                                    pos: Pos::new(*line, *column),
                                    message: message.clone(),
                                },
                            },
                            ConsoleEvent::Failed { message, .. } => {
                                Check::Unavailable(message.clone())
                            }
                            _ => return,
                        };
                        let _ = check.try_set(next);
                    })
                });
                if let Err(m) = started {
                    let _ = check.try_set(Check::Unavailable(m));
                }
            },
            DEBOUNCE,
        );
    });
    let error = Signal::derive(move || match check.get() {
        Check::Invalid { pos, message } => Some((text.with(|t| pos.char_offset(t)), message)),
        _ => None,
    });
    let writable = warehouse::is_writable();
    let can_commit = move || {
        writable
            && matches!(check.get(), Check::Valid { ref current, ref next } if current != next)
            && !matches!(commit.get(), Commit::Running(_))
    };
    let run_commit = move |_| {
        let Check::Valid { next, .. } = check.get_untracked() else {
            return;
        };
        let sql = text.get_untracked();
        commit.set(Commit::Running(next.id));
        let started = warehouse::connection().and_then(|(base_url, options)| {
            let connection = sql::Connection::Warehouse { base_url, options };
            sql::run(&connection, sql, 1, move |event| {
                let finished = match event {
                    ConsoleEvent::Statement { report, .. } => match &report.outcome {
                        ReportOutcome::Done { message } => Commit::Done(message.clone()),
                        ReportOutcome::Error { message, .. } => Commit::Failed(message.clone()),
                        ReportOutcome::Rows { .. } => return,
                    },
                    ConsoleEvent::Failed { message, .. } => Commit::Failed(message.clone()),
                    _ => return,
                };
                if matches!(finished, Commit::Done(_)) {
                    warehouse::forget_tables();
                    let _ = text.try_set(prefill.get_value());
                    let _ = reloads.try_update(|n| *n += 1);
                }
                let _ = commit.try_set(finished);
            })
        });
        if let Err(m) = started {
            commit.set(Commit::Failed(m));
        }
    };
    let create = move || {
        match schema.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => view! { <ErrorPanel title="Cannot read the schema" message=m /> }.into_any(),
        Load::Ready(None) => view! {
            <p class="muted" data-testid="ddl-iceberg">
                "An Iceberg table: its fields and history are in the Schema tab; the DDL tab edits Paimon tables."
            </p>
        }
        .into_any(),
        Load::Ready(Some(s)) => {
            let parts = ["lakescope", name[0].as_str(), name[1].as_str()];
            view! {
                <h2>{format!("SHOW CREATE TABLE · schema-{}", s.id)}</h2>
                <DdlText text=show_create_table(&parts, &s) />
            }
            .into_any()
        }
    }
    };
    let status = move || {
        match check.get() {
        Check::Idle => view! {
            <p class="muted" data-testid="ddl-status">
                "Type a change: ADD, MODIFY, DROP, RENAME … TO, SET ('key' = 'value'), RESET ('key'). Ctrl+Space completes."
            </p>
        }
        .into_any(),
        Check::Checking => view! { <p class="muted" data-testid="ddl-status">
            {if sql::is_ready() { "Checking…" } else { "Loading the SQL engine (first use only)…" }}
        </p> }
        .into_any(),
        Check::Invalid { pos, message } => view! {
            <div class="error" role="alert" data-testid="ddl-error">
                <strong>{format!("Error at line {}, column {}", pos.line, pos.column)}</strong>
                <p data-testid="ddl-error-message">{message}</p>
            </div>
        }
        .into_any(),
        Check::Unavailable(m) => view! {
            <div class="error" role="alert" data-testid="ddl-error"><p>{m}</p></div>
        }
        .into_any(),
        Check::Valid { current, next } => {
            let changes = paimon_schema_changes(&current, &next);
            let head = format!("Preview: schema-{} → schema-{} (not committed)", current.id, next.id);
            let body = if changes.is_empty() {
                view! { <li class="muted">"No change to columns or options: nothing to commit."</li> }.into_any()
            } else {
                changes
                    .into_iter()
                    .map(|c| {
                        let (class, kind) = (format!("chg chg-{}", c.kind), c.kind.clone());
                        view! {
                        <li data-change=kind><span class=class>{c.kind}</span>" "<span class="mono">{c.text}</span></li>
                        }
                    })
                    .collect_view()
                    .into_any()
            };
            view! {
                <section class="ddl-preview" data-testid="ddl-preview">
                    <h3>{head}</h3>
                    <ul class="changes">{body}</ul>
                </section>
            }
            .into_any()
        }
    }
    };
    let outcome = move || match commit.get() {
        Commit::Idle => view! { <span></span> }.into_any(),
        Commit::Running(id) => {
            view! { <Busy text=format!("Committing schema-{id}…") /> }.into_any()
        }
        Commit::Done(m) => {
            view! { <span class="ok-inline" data-testid="ddl-committed">{m}</span> }.into_any()
        }
        Commit::Failed(m) => {
            view! { <span class="err-inline" data-testid="ddl-commit-error">{m}</span> }.into_any()
        }
    };
    view! {
        <div class="ddl-tab" data-testid="ddl-tab">
            <section class="card">{create}</section>
            <section class="card">
                <h2>"ALTER TABLE"</h2>
                <DdlEditor text=text columns=columns error=error />
                {status}
                <div class="toolbar">
                    <button class="btn primary" data-testid="ddl-commit" disabled=move || !can_commit()
                        title=if writable { "Commit the previewed schema" } else { "This warehouse is read-only (a static web host)" }
                        on:click=run_commit>"Commit"</button>
                    {(!writable).then(|| view! {
                        <span class="muted" data-testid="ddl-readonly">{warehouse::read_only_note("commit")}</span>
                    })}
                    {outcome}
                </div>
            </section>
        </div>
    }
}
