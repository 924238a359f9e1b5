//! One statement's result in the SQL console: its rows in a grid, its confirmation, or its error
//! at its line and column with the script's excerpt.

use super::run::Finished;
use crate::util::Frame;
use crate::widgets::grid::Grid;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use lakescope_engine::session::{ReportColumn, ReportOutcome};
use lakescope_engine::sql_editor::Pos;
use leptos::prelude::*;
use std::sync::Arc;

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

/// The result of `f`, a statement of `script`.
pub fn statement_view(f: Finished, script: &str) -> impl IntoView {
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
