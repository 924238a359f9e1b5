//! Creating a tag on a snapshot, and the table's tags with a Delete button each.

use super::{act, snapshot_options, Outcome};
use crate::state::warehouse;
use lakescope_engine::browser_env::BrowserEnv;
use leptos::prelude::*;

/// "New tag": a name and the snapshot it names (the latest first), committed as Paimon's
/// `create_tag`.
#[component]
pub fn NewTag(
    path: StoredValue<String>,
    snapshots: Vec<(i64, i64)>,
    outcome: RwSignal<Outcome>,
    on_done: impl Fn() + Copy + Send + Sync + 'static,
    enabled: impl Fn() -> bool + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let latest = snapshots.last().map(|s| s.0).unwrap_or_default();
    let tag_name = RwSignal::new(String::new());
    let tag_snapshot = RwSignal::new(latest.to_string());
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
    view! {
        <div class="toolbar">
            <label class="tb-label" for="tag-name">"New tag"</label>
            <input id="tag-name" class="input" data-testid="tag-name" type="text" spellcheck="false"
                placeholder="e.g. before-backfill" bind:value=tag_name />
            <select class="select" data-testid="tag-snapshot" aria-label="Snapshot to tag"
                prop:value=move || tag_snapshot.get()
                on:change=move |ev| tag_snapshot.set(event_target_value(&ev))>
                {snapshot_options(&snapshots, tag_snapshot)}
            </select>
            <button class="btn primary" data-testid="tag-create"
                disabled=move || !enabled() || tag_name.with(|n| n.trim().is_empty())
                on:click=create>"Create tag"</button>
        </div>
    }
}

/// The table's `tags` `(name, snapshot id)`, each deleted by its button (Paimon's
/// `delete_tag`).
#[component]
pub fn TagList(
    path: StoredValue<String>,
    tags: Vec<(String, i64)>,
    outcome: RwSignal<Outcome>,
    on_done: impl Fn() + Copy + Send + Sync + 'static,
    enabled: impl Fn() -> bool + Copy + Send + Sync + 'static,
) -> impl IntoView {
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
    let tag_rows = tags
        .into_iter()
        .map(|(name, id)| {
            let n = name.clone();
            view! {
                <li class="tag-item" data-testid="tag-item" data-tag=name.clone()>
                    <span class="tag">{name.clone()}</span>
                    <span class="muted">{format!("snapshot {id}")}</span>
                    <button class="btn small" data-testid="tag-delete" disabled=move || !enabled()
                        on:click=move |_| remove(n.clone())>"Delete"</button>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="tag-list">{tag_rows}</ul> }
}
