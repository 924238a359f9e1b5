//! The DDL tab's live check: the ALTER TABLE statement sent to the SQL worker once typing pauses,
//! and what the worker said (an error at its position, or the preview of the next schema).

use crate::state::warehouse;
use crate::workers::sql;
use lakescope_engine::session::{ConsoleEvent, PreviewOutcome};
use lakescope_engine::sql_editor::{Pos, TableSchema};
use lakescope_engine::table::paimon_schema_changes;
use leptos::prelude::*;
use std::time::Duration;

/// Quiet time after typing before the statement is checked.
const DEBOUNCE: Duration = Duration::from_millis(350);

/// What the worker said about the editor's statement.
#[derive(Clone)]
pub enum Check {
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

/// Checks (and previews) `text` whenever it changes or the schema is read again (`reloads`),
/// once typing pauses, writing the answer to `check`; older answers are dropped. The `prefill`
/// alone is [`Check::Idle`].
pub fn check_while_typing(
    text: RwSignal<String>,
    prefill: StoredValue<String>,
    reloads: RwSignal<u32>,
    check: RwSignal<Check>,
) {
    let generation = StoredValue::new(0u64);
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
                        let Some(next) = answer(event) else { return };
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
}

/// The check a worker's event settles (`None`: an event that settles nothing).
fn answer(event: &ConsoleEvent) -> Option<Check> {
    Some(match event {
        ConsoleEvent::AlterPreview { outcome, .. } => match outcome {
            PreviewOutcome::Schemas { current, next, .. } => match (
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
            },
            PreviewOutcome::Error {
                line,
                column,
                message,
            } => Check::Invalid {
                pos: Pos::new(*line, *column),
                message: message.clone(),
            },
        },
        ConsoleEvent::Failed { message, .. } => Check::Unavailable(message.clone()),
        _ => return None,
    })
}

/// Under the editor: a hint, "Checking…", the error, or the preview of the schema change.
#[component]
pub fn CheckStatus(check: RwSignal<Check>) -> impl IntoView {
    move || {
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
        Check::Valid { current, next } => view! { <Preview current=*current next=*next /> }.into_any(),
    }
    }
}

/// The changes from `current` to `next`, not committed yet.
#[component]
fn Preview(current: TableSchema, next: TableSchema) -> impl IntoView {
    let changes = paimon_schema_changes(&current, &next);
    let head = format!(
        "Preview: schema-{} → schema-{} (not committed)",
        current.id, next.id
    );
    let body = if changes.is_empty() {
        view! { <li class="muted">"No change to columns or options: nothing to commit."</li> }
            .into_any()
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
}
