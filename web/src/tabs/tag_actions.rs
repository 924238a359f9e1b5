//! The Snapshots tab's actions on a Paimon table of a writable warehouse: create and delete tags,
//! roll back to a snapshot (after a confirmation) — Paimon's `create_tag`, `delete_tag` and
//! `rollback_to`, committed from the page.

use crate::state::warehouse;
use crate::util::time;
use lakescope_engine::browser_env::BrowserEnv;
use leptos::prelude::*;
use leptos::task::spawn_local;

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
    let latest = snapshots.last().map(|s| s.0).unwrap_or_default();
    let tag_name = RwSignal::new(String::new());
    let tag_snapshot = RwSignal::new(latest.to_string());
    let rollback_to_id = RwSignal::new(String::new());
    let path = StoredValue::new(path);
    let busy = move || matches!(outcome.get(), Outcome::Working(_));

    let create = move |_| {
        let name = tag_name.get_untracked().trim().to_string();
        let snapshot = tag_snapshot.get_untracked().parse::<i64>().ok();
        let p = path.get_value();
        act(
            outcome,
            format!("Creating tag {name}…"),
            on_done,
            async move {
                let t = warehouse::any_table(&p).await?;
                let tagged = t
                    .create_tag(&name, snapshot, &BrowserEnv)
                    .await
                    .map_err(|e| format!("Cannot create tag '{name}': {e}"))?;
                Ok(format!("Tag '{name}' now names snapshot {tagged}."))
            },
        );
    };
    let remove = move |name: String| {
        let p = path.get_value();
        act(
            outcome,
            format!("Deleting tag {name}…"),
            on_done,
            async move {
                let t = warehouse::any_table(&p).await?;
                match t.delete_tag(&name).await {
                    Ok(true) => Ok(format!("Tag '{name}' deleted.")),
                    Ok(false) => Err(format!("There is no tag '{name}' (deleted meanwhile?).")),
                    Err(e) => Err(format!("Cannot delete tag '{name}': {e}")),
                }
            },
        );
    };
    let rollback = move |_| {
        let Ok(id) = rollback_to_id.get_untracked().parse::<i64>() else {
            outcome.set(Outcome::Failed("Pick the snapshot to roll back to.".into()));
            return;
        };
        let question = format!(
            "Roll the table back to snapshot {id}?\n\nEvery newer snapshot and the tags on them \
             are deleted; readers see the table as it was at snapshot {id}. Stop writers first."
        );
        let confirmed = window().confirm_with_message(&question).unwrap_or(false);
        if !confirmed {
            return;
        }
        let p = path.get_value();
        act(
            outcome,
            format!("Rolling back to snapshot {id}…"),
            on_done,
            async move {
                let t = warehouse::any_table(&p).await?;
                let done = t
                    .rollback_to_snapshot(id)
                    .await
                    .map_err(|e| format!("Cannot roll back to snapshot {id}: {e}"))?;
                Ok(format!(
                    "Rolled back to snapshot {}: removed {} snapshot(s){}.",
                    done.snapshot.id,
                    done.removed_snapshots.len(),
                    if done.removed_tags.is_empty() {
                        String::new()
                    } else {
                        format!(" and tag(s) {}", done.removed_tags.join(", "))
                    }
                ))
            },
        );
    };

    let snapshot_options = move |selected: RwSignal<String>| {
        snapshots
            .iter()
            .rev()
            .map(|&(id, millis)| {
                let v = id.to_string();
                view! { <option value=v.clone() selected=move || selected.get() == v>{format!("snapshot {id} · {}", time(millis))}</option> }
            })
            .collect_view()
    };
    let tag_rows = tags
        .into_iter()
        .map(|(name, id)| {
            let n = name.clone();
            view! {
                <li class="tag-item" data-testid="tag-item" data-tag=name.clone()>
                    <span class="tag">{name.clone()}</span>
                    <span class="muted">{format!("snapshot {id}")}</span>
                    <button class="btn small" data-testid="tag-delete" disabled=move || !writable || busy()
                        on:click=move |_| remove(n.clone())>"Delete"</button>
                </li>
            }
        })
        .collect_view();

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
            <div class="toolbar">
                <label class="tb-label" for="tag-name">"New tag"</label>
                <input id="tag-name" class="input" data-testid="tag-name" type="text" spellcheck="false"
                    placeholder="e.g. before-backfill" bind:value=tag_name />
                <select class="select" data-testid="tag-snapshot" aria-label="Snapshot to tag"
                    prop:value=move || tag_snapshot.get()
                    on:change=move |ev| tag_snapshot.set(event_target_value(&ev))>
                    {snapshot_options(tag_snapshot)}
                </select>
                <button class="btn primary" data-testid="tag-create"
                    disabled=move || !writable || busy() || tag_name.with(|n| n.trim().is_empty())
                    on:click=create>"Create tag"</button>
            </div>
            <div class="toolbar">
                <label class="tb-label">"Roll back"</label>
                <select class="select" data-testid="rollback-snapshot" aria-label="Snapshot to roll back to"
                    prop:value=move || rollback_to_id.get()
                    on:change=move |ev| rollback_to_id.set(event_target_value(&ev))>
                    <option value="" selected=true>"to snapshot…"</option>
                    {snapshot_options(rollback_to_id)}
                </select>
                <button class="btn" data-testid="rollback" disabled=move || !writable || busy()
                    on:click=rollback>"Roll back…"</button>
            </div>
            <ul class="tag-list">{tag_rows}</ul>
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
