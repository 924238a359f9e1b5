//! The DDL tab's commit: the previewed ALTER TABLE run by the SQL worker on a writable
//! warehouse, and what came of it.

use super::check::Check;
use crate::state::warehouse;
use crate::util::Busy;
use crate::workers::sql;
use lakescope_engine::session::{ConsoleEvent, ReportOutcome};
use leptos::prelude::*;

/// The last commit.
#[derive(Clone, Default)]
enum Commit {
    #[default]
    Idle,
    Running(i64),
    Done(String),
    Failed(String),
}

/// The Commit button (enabled once the statement previews a change on a writable warehouse) and
/// the last commit's outcome; a commit puts the `prefill` back in `text` and bumps `reloads`.
#[component]
pub fn CommitBar(
    check: RwSignal<Check>,
    text: RwSignal<String>,
    prefill: StoredValue<String>,
    reloads: RwSignal<u32>,
) -> impl IntoView {
    let commit = RwSignal::new(Commit::Idle);
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
        <div class="toolbar">
            <button class="btn primary" data-testid="ddl-commit" disabled=move || !can_commit()
                title=if writable { "Commit the previewed schema" } else { "This warehouse is read-only (a static web host)" }
                on:click=run_commit>"Commit"</button>
            {(!writable).then(|| view! {
                <span class="muted" data-testid="ddl-readonly">{warehouse::read_only_note("commit")}</span>
            })}
            {outcome}
        </div>
    }
}
