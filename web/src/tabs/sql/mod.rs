//! The SQL console (a table's SQL tab, or the warehouse's console without a table): a Flink SQL
//! editor over the open warehouse, run by the lazily loaded SQL worker, with each statement's
//! rows, confirmation or error (at its line and column); a script can go on after errors.

mod result;
mod run;

use crate::app::{CatalogRefresh, Selection};
use lakescope_engine::session::ReportOutcome;
use lakescope_engine::sql_editor::Pos;
use leptos::html::Textarea;
use leptos::prelude::*;
use result::statement_view;
use run::{RunBar, RunState, RunStatus};

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
        run::start(state, sql, keep_going.get_untracked(), refresh);
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
            <RunBar state=state keep_going=keep_going run=run />
            <RunStatus state=state />
            <div class="sql-results" data-testid="sql-results">{results}</div>
        </div>
    }
}
