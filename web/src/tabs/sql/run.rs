//! Running a script in the SQL console: the worker's events gathered into the run's state, and
//! the bar that starts, cancels and sums up a run.

use crate::app::CatalogRefresh;
use crate::state::warehouse;
use crate::util::Busy;
use crate::workers::sql;
use lakescope_engine::session::{ConsoleEvent, ReportOutcome, StatementReport};
use leptos::prelude::*;

/// Rows kept per result (the rest are counted).
const MAX_ROWS: usize = 10_000;

/// One finished statement.
#[derive(Clone)]
pub struct Finished {
    pub report: StatementReport,
    pub millis: f64,
}

/// State of the last run.
#[derive(Clone, Default)]
pub struct RunState {
    pub running: bool,
    pub finished: Vec<Finished>,
    /// Why the run stopped early (worker failed, cancelled).
    pub failure: Option<String>,
}

/// Runs `sql` on the page's warehouse or catalog, gathering the statements' reports in
/// `state`; a run that changed something forgets the cached tables and `refresh`es the catalog.
pub fn start(
    state: RwSignal<RunState>,
    sql: String,
    keep_going: bool,
    refresh: Option<CatalogRefresh>,
) {
    state.set(RunState {
        running: true,
        ..RunState::default()
    });
    let started = warehouse::console().and_then(|connection| {
        sql::run_script(
            &connection,
            sql,
            MAX_ROWS,
            keep_going,
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
}

/// Run and Cancel, "Continue after errors" (`keep_going`), and how many statements ran and
/// failed.
#[component]
pub fn RunBar(
    state: RwSignal<RunState>,
    keep_going: RwSignal<bool>,
    run: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
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
    }
}

/// While a run goes on, "Running…" (or the SQL engine's first load); after a failed run, why.
#[component]
pub fn RunStatus(state: RwSignal<RunState>) -> impl IntoView {
    view! {
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
    }
}
