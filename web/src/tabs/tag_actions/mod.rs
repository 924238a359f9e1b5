//! The Snapshots tab's actions on a Paimon table of a writable warehouse: create and delete tags,
//! roll back to a snapshot (after a confirmation) — Paimon's `create_tag`, `delete_tag` and
//! `rollback_to`, committed from the page.

mod rollback;
mod tags;

use crate::state::warehouse;
use crate::util::time;
use leptos::prelude::*;
use leptos::task::spawn_local;
use rollback::Rollback;
use tags::{NewTag, TagList};

/// What the last action did (or why it failed); kept by the tab across its reloads.
#[derive(Clone)]
pub enum Outcome {
    Idle,
    Working(String),
    Done(String),
    Failed(String),
}

/// Runs one action on the table at `path`, then tells `on_done` (the tab reloads).
fn act(
    outcome: RwSignal<Outcome>,
    busy_text: String,
    on_done: impl Fn() + 'static,
    action: impl std::future::Future<Output = Result<String, String>> + 'static,
) {
    outcome.set(Outcome::Working(busy_text));
    spawn_local(async move {
        let result = action.await;
        warehouse::forget_tables();
        let _ = outcome.try_set(match result {
            Ok(message) => Outcome::Done(message),
            Err(message) => Outcome::Failed(message),
        });
        on_done();
    });
}

/// The `snapshots` `(id, commit time)` as options of a picker, the newest first; `selected`
/// holds the chosen id.
fn snapshot_options(snapshots: &[(i64, i64)], selected: RwSignal<String>) -> impl IntoView {
    snapshots
        .iter()
        .rev()
        .map(|&(id, millis)| {
            let v = id.to_string();
            view! { <option value=v.clone() selected=move || selected.get() == v>{format!("snapshot {id} · {}", time(millis))}</option> }
        })
        .collect_view()
}

/// Tags and rollback for the table at `path`; `snapshots` are `(id, commit time)` in commit
/// order, `tags` `(name, snapshot id)`; `on_done` reloads the tab after a commit, `outcome` shows
/// what the last action did.
#[component]
pub fn TagActions(
    path: String,
    snapshots: Vec<(i64, i64)>,
    tags: Vec<(String, i64)>,
    outcome: RwSignal<Outcome>,
    on_done: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let writable = warehouse::is_writable();
    let path = StoredValue::new(path);
    let enabled = move || writable && !matches!(outcome.get(), Outcome::Working(_));
    view! {
        <section class="card wide tag-actions" data-testid="tag-actions">
            <h2>"Tags and rollback"</h2>
            {(!writable).then(|| view! {
                <p class="note" data-testid="read-only-note">
                    {if warehouse::service().is_some() {
                        warehouse::read_only_note("tag or roll back")
                    } else {
                        "This warehouse is read-only (a static web host). Open a copy in this browser \
                         (opfs://) or an S3 warehouse with write access to tag or roll back."
                            .to_string()
                    }}
                </p>
            })}
            <NewTag path=path snapshots=snapshots.clone() outcome=outcome on_done=on_done enabled=enabled />
            <Rollback path=path snapshots=snapshots outcome=outcome on_done=on_done enabled=enabled />
            <TagList path=path tags=tags outcome=outcome on_done=on_done enabled=enabled />
            <div class="statusline" data-testid="tag-status">
                {move || match outcome.get() {
                    Outcome::Idle => view! { <span></span> }.into_any(),
                    Outcome::Working(t) => view! { <span class="muted">{t}</span> }.into_any(),
                    Outcome::Done(t) => view! { <span class="ok-inline">{t}</span> }.into_any(),
                    Outcome::Failed(t) => view! { <span class="err-inline">{t}</span> }.into_any(),
                }}
            </div>
        </section>
    }
}
