//! The upload's status line: the read-only note, the progress bar with Cancel, or the outcome.

use super::run::UploadState;
use crate::util::bytes;
use crate::workers::sql;
use leptos::prelude::*;

/// What the upload in `state` is doing; `read_only` is shown while idle on a read-only
/// warehouse (`writable` false).
#[component]
pub fn UploadStatus(
    state: RwSignal<UploadState>,
    writable: bool,
    read_only: String,
) -> impl IntoView {
    let cancel = move |_| {
        if let UploadState::Running { file, .. } = state.get_untracked() {
            state.set(UploadState::Cancelled(format!(
                "Cancelled {file}: nothing was committed (data files written so far are left unreferenced)."
            )));
            sql::cancel();
        }
    };
    view! {
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
    }
}
