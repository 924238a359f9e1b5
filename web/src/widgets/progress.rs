//! Long work the user can watch and stop: units done of a total, the warehouse I/O since it
//! started, and a Cancel button that drops the work (nothing it was computing is shown).

use crate::state::warehouse;
use crate::util::bytes;
use futures::future::{AbortHandle, Abortable};
use lakescope_storage::IoCounts;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::future::Future;
use std::time::Duration;

/// How often the I/O line refreshes while work runs.
const IO_REFRESH: Duration = Duration::from_millis(200);

/// One slot of long work (a tab's load or diff): its progress, and the handle that stops it.
/// Starting new work in the slot drops the old; leaving the tab drops it too.
#[derive(Clone, Copy)]
pub struct Job {
    /// (units done, units total); total 0 while unknown.
    steps: RwSignal<(usize, usize)>,
    /// Warehouse I/O since the work started.
    io: RwSignal<IoCounts>,
    /// Bumped by every start: work replaced by newer work does not report.
    generation: StoredValue<u64>,
    abort: StoredValue<Option<AbortHandle>>,
}

impl Job {
    /// An idle slot, owned by the current component (its work stops when it is disposed).
    pub fn new() -> Self {
        let job = Job {
            steps: RwSignal::new((0, 0)),
            io: RwSignal::new(IoCounts::default()),
            generation: StoredValue::new(0),
            abort: StoredValue::new(None),
        };
        on_cleanup(move || job.cancel());
        job
    }

    /// Reports `done` of `total` units.
    pub fn steps(&self, done: usize, total: usize) {
        self.steps.try_set((done, total));
    }

    /// Runs `work` in this slot, dropping any work still running there. `finish` gets the
    /// output, or `None` when the user cancelled; it is not called for replaced work.
    pub fn start<T: 'static>(
        &self,
        work: impl Future<Output = T> + 'static,
        finish: impl FnOnce(Option<T>) + 'static,
    ) {
        let generation = self.generation.with_value(|g| g + 1);
        self.generation.set_value(generation);
        self.cancel();
        let (handle, registration) = AbortHandle::new_pair();
        self.abort.set_value(Some(handle));
        self.steps.set((0, 0));
        self.io.set(IoCounts::default());
        let start = warehouse::io();
        let io = self.io;
        let timer = set_interval_with_handle(
            move || {
                io.try_set(warehouse::io().since(&start));
            },
            IO_REFRESH,
        )
        .ok();
        let job = *self;
        spawn_local(async move {
            let out = Abortable::new(work, registration).await.ok();
            if let Some(timer) = timer {
                timer.clear();
            }
            if job.generation.try_with_value(|g| *g == generation) == Some(true) {
                job.io.try_set(warehouse::io().since(&start));
                finish(out);
            }
        });
    }

    /// Stops the running work; its `finish` gets `None`.
    pub fn cancel(&self) {
        if let Some(Some(handle)) = self.abort.try_get_value() {
            handle.abort();
        }
    }

    /// "3 of 8 buckets · 1.2 MiB read in 14 requests" (the parts that are known).
    fn line(&self, unit: &str) -> String {
        let (done, total) = self.steps.get();
        let io = self.io.get();
        let mut parts = Vec::new();
        if total > 0 {
            parts.push(format!("{done} of {total} {unit}"));
        }
        parts.push(format!(
            "{} read in {} request{}",
            bytes(io.bytes_read as i64),
            io.requests,
            if io.requests == 1 { "" } else { "s" }
        ));
        if io.bytes_written > 0 {
            parts.push(format!("{} written", bytes(io.bytes_written as i64)));
        }
        parts.join(" · ")
    }
}

/// The progress line of a running [`Job`]: what it does, a bar (exact once the total is
/// known), units and I/O so far, and Cancel.
#[component]
pub fn JobProgress(
    job: Job,
    #[prop(into)] text: Signal<String>,
    /// What the units are, e.g. "buckets".
    unit: &'static str,
) -> impl IntoView {
    let bar = move || {
        let (done, total) = job.steps.get();
        if total > 0 {
            view! { <progress max=total value=done data-testid="job-bar"></progress> }.into_any()
        } else {
            view! { <span class="progress" aria-hidden="true"><span class="progress-bar"></span></span> }
                .into_any()
        }
    };
    view! {
        <div class="busy" role="status" data-testid="job-progress">
            <span class="spinner" aria-hidden="true"></span>
            <span>{move || text.get()}</span>
            {bar}
            <span class="muted" data-testid="job-line">{move || job.line(unit)}</span>
            <button class="btn small" data-testid="job-cancel" on:click=move |_| job.cancel()>
                "Cancel"
            </button>
        </div>
    }
}

/// What a cancelled view shows instead of its result, with a way to run the work again.
#[component]
pub fn Cancelled(#[prop(into)] what: String, rerun: impl Fn() + 'static) -> impl IntoView {
    view! {
        <div class="busy" data-testid="job-cancelled">
            <span>{format!("{what} cancelled.")}</span>
            <button class="btn small" data-testid="job-rerun" on:click=move |_| rerun()>"Run again"</button>
        </div>
    }
}
