//! Snapshots: an SVG timeline (records added/deleted per commit, commit kind coloured, tags
//! marked), tag and rollback actions, and the snapshot table; clicking a snapshot time-travels
//! the Data tab.

use crate::app::Selection;
use crate::route::{go, use_route, Tab};
use crate::tag_actions::{Outcome, TagActions};
use crate::timeline::{timeline, Bar};
use crate::util::{time, Busy, ErrorPanel, Load};
use crate::warehouse;
use lakescope_engine::Version;
use lakescope_paimon::spec::snapshot::{CommitKind, Snapshot};
use leptos::prelude::*;
use leptos::task::spawn_local;

pub fn kind_class(k: CommitKind) -> &'static str {
    match k {
        CommitKind::Append => "k-append",
        CommitKind::Compact => "k-compact",
        CommitKind::Overwrite => "k-overwrite",
        CommitKind::Analyze => "k-analyze",
    }
}

pub fn kind_name(k: CommitKind) -> &'static str {
    match k {
        CommitKind::Append => "APPEND",
        CommitKind::Compact => "COMPACT",
        CommitKind::Overwrite => "OVERWRITE",
        CommitKind::Analyze => "ANALYZE",
    }
}

/// Snapshots and tags (name, snapshot id) of a table.
async fn snapshots_and_tags(path: &str) -> Result<(Vec<Snapshot>, Vec<(String, i64)>), String> {
    let t = warehouse::table(path).await?;
    let snaps = t.snapshots().await.map_err(|e| e.to_string())?;
    let tags = t
        .tags()
        .await
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|(n, t)| (n, t.snapshot.id))
        .collect();
    Ok((snaps, tags))
}

#[component]
pub fn SnapshotsTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let data = RwSignal::new_local(Load::<(Vec<Snapshot>, Vec<(String, i64)>)>::Loading(
        "Reading snapshots…".into(),
    ));
    let path = StoredValue::new(sel.table.path.clone());
    // Bumped after a tag or rollback commit: the tab reads the table again.
    let reload = RwSignal::new(0u32);
    let outcome = RwSignal::new(Outcome::Idle);
    Effect::new(move |_| {
        reload.track();
        let path = path.get_value();
        spawn_local(async move {
            let _ = data.try_set(match snapshots_and_tags(&path).await {
                Ok(d) => Load::Ready(d),
                Err(m) => Load::Failed(m),
            });
        });
    });
    let on_done = move || reload.update(|n| *n += 1);
    let travel = move |id: i64| {
        go(route, |r| {
            r.tab = Tab::Data;
            r.at = Version::SnapshotId(id);
        })
    };
    move || match data.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot read snapshots" message=m /> }.into_any()
        }
        Load::Ready((snaps, _)) if snaps.is_empty() => {
            view! { <p class="note">"This table has no snapshots yet."</p> }.into_any()
        }
        Load::Ready((snaps, tags)) => {
            let bars: Vec<Bar> = snaps
                .iter()
                .map(|s| Bar {
                    id: s.id,
                    time_millis: s.time_millis,
                    delta: s.delta_record_count.unwrap_or(0),
                    class: kind_class(s.commit_kind),
                    kind: kind_name(s.commit_kind).to_string(),
                    marks: tags
                        .iter()
                        .filter(|(_, t)| *t == s.id)
                        .map(|(n, _)| n.clone())
                        .collect(),
                    label: format!("#{}", s.id),
                })
                .collect();
            let chart = timeline(&bars, &[], travel);
            let versions: Vec<(i64, i64)> = snaps.iter().map(|s| (s.id, s.time_millis)).collect();
            let actions = view! {
                <TagActions path=path.get_value() snapshots=versions tags=tags.clone() outcome on_done />
            };
            let rows = snaps
                .iter()
                .rev()
                .map(|s| {
                    let id = s.id;
                    let tag_names: Vec<String> =
                        tags.iter().filter(|(_, t)| *t == id).map(|(n, _)| n.clone()).collect();
                    view! {
                        <tr class="clickable" data-testid="snapshot-row" data-snapshot=id on:click=move |_| travel(id)
                            title="Open the Data tab at this snapshot">
                            <td class="mono strong">{id}</td>
                            <td><span class=format!("kind {}", kind_class(s.commit_kind))>{kind_name(s.commit_kind)}</span></td>
                            <td class="mono">{time(s.time_millis)}</td>
                            <td class="num">{s.delta_record_count.map(|v| format!("{v:+}")).unwrap_or_default()}</td>
                            <td class="num">{s.total_record_count.map(|v| v.to_string()).unwrap_or_default()}</td>
                            <td class="num">{s.changelog_record_count.map(|v| v.to_string()).unwrap_or_default()}</td>
                            <td class="mono">{s.schema_id}</td>
                            <td class="mono ellipsis user" title=s.commit_user.clone()>{s.commit_user.clone()}</td>
                            <td class="mono">{s.watermark.filter(|w| *w > i64::MIN).map(|w| w.to_string()).unwrap_or_default()}</td>
                            <td>{tag_names.into_iter().map(|n| view! { <span class="tag">{n}</span> }).collect_view()}</td>
                        </tr>
                    }
                })
                .collect_view();
            view! {
                <section class="card wide">
                    <h2>"Timeline " <span class="muted">"(bars: delta records of each commit; click a bar to read the table at that snapshot)"</span></h2>
                    {chart}
                    <div class="legend">
                        <span class="kind k-append">"APPEND"</span>
                        <span class="kind k-compact">"COMPACT"</span>
                        <span class="kind k-overwrite">"OVERWRITE"</span>
                        <span class="tag">"tag"</span>
                    </div>
                </section>
                {actions}
                <section class="card wide scroll-x">
                    <table class="tbl" data-testid="snapshots-table">
                        <thead>
                            <tr>
                                <th>"id"</th><th>"kind"</th><th>"committed"</th><th class="num">"delta rows"</th>
                                <th class="num">"total rows"</th><th class="num">"changelog"</th><th>"schema"</th>
                                <th>"user"</th><th>"watermark"</th><th>"tags"</th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </section>
            }
                .into_any()
        }
    }
}
