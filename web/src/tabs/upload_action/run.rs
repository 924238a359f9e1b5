//! One upload: the picked file sent to the SQL worker with the table and the chunk size, and the
//! worker's progress and outcome gathered into the upload's state.

use crate::state::warehouse;
use crate::workers::upload;
use lakescope_engine::upload::protocol::{UploadEvent, UploadRequest};
use lakescope_engine::upload::{FileKind, Progress};
use leptos::prelude::*;

/// Rows per chunk unless the user asks for another size.
pub const DEFAULT_CHUNK_ROWS: usize = 50_000;

/// Where the upload is.
#[derive(Clone)]
pub enum UploadState {
    Idle,
    Running { file: String, progress: Progress },
    Done(String),
    Failed(String),
    Cancelled(String),
}

/// Inserts `file` into the table `names` (database, table), `chunk_rows` rows at a time (the
/// user's text; the default when it is not a positive number), reporting in `state`; `on_done`
/// runs after the commit.
pub fn start(
    state: RwSignal<UploadState>,
    names: (String, String),
    chunk_rows: &str,
    file: web_sys::File,
    on_done: impl Fn() + 'static,
) {
    let (database, table) = names;
    let name = file.name();
    let Some(kind) = FileKind::from_name(&name) else {
        state.set(UploadState::Failed(format!(
            "{name}: not a .csv or .parquet file"
        )));
        return;
    };
    let rows = chunk_rows
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
}
