//! Rolling a table back to a snapshot, after the user confirms (Paimon's `rollback_to`).

use super::{act, snapshot_options, Outcome};
use crate::state::warehouse;
use leptos::prelude::*;

/// "Roll back": the snapshot to go back to, and the button that asks, then commits.
#[component]
pub fn Rollback(
    path: StoredValue<String>,
    snapshots: Vec<(i64, i64)>,
    outcome: RwSignal<Outcome>,
    on_done: impl Fn() + Copy + Send + Sync + 'static,
    enabled: impl Fn() -> bool + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let rollback_to_id = RwSignal::new(String::new());
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
    view! {
        <div class="toolbar">
            <label class="tb-label">"Roll back"</label>
            <select class="select" data-testid="rollback-snapshot" aria-label="Snapshot to roll back to"
                prop:value=move || rollback_to_id.get()
                on:change=move |ev| rollback_to_id.set(event_target_value(&ev))>
                <option value="" selected=true>"to snapshot…"</option>
                {snapshot_options(&snapshots, rollback_to_id)}
            </select>
            <button class="btn" data-testid="rollback" disabled=move || !enabled()
                on:click=rollback>"Roll back…"</button>
        </div>
    }
}
