//! Snapshots of a table of either format (`lakescope_engine::table::SnapshotLog`): an SVG timeline
//! (records added minus removed per commit, commit kind coloured, refs marked, one lane per
//! branch where the snapshots record their parents), Paimon's tag and rollback actions, and the
//! snapshot table; clicking a snapshot time-travels the Data tab.

use crate::app::Selection;
use crate::state::route::{go, use_route, Route, Tab};
use crate::state::warehouse;
use crate::tabs::tag_actions::{Outcome, TagActions};
use crate::util::{time, Busy, ErrorPanel, Load};
use crate::widgets::timeline::{timeline, Bar, Lane};
use lakescope_engine::format_types::SnapshotInfo;
use lakescope_engine::table::{Commit, CommitDetail, Format, SnapshotLog};
use lakescope_engine::Version;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::HashMap;

/// The chart/legend class of a commit kind (Paimon's `APPEND`, Iceberg's `append`).
pub fn kind_class(kind: &str) -> &'static str {
    match kind.to_ascii_lowercase().as_str() {
        "append" => "k-append",
        "compact" | "replace" => "k-compact",
        "overwrite" => "k-overwrite",
        "delete" => "k-delete",
        _ => "k-analyze",
    }
}

fn num(v: Option<i64>, sign: &str) -> String {
    v.filter(|n| *n != 0)
        .map(|n| format!("{sign}{n}"))
        .unwrap_or_default()
}

/// Position plus equality delete records a commit added (`None` when the summary has neither).
fn delete_records(s: &SnapshotInfo) -> Option<i64> {
    match (s.added_position_deletes, s.added_equality_deletes) {
        (None, None) => None,
        (p, e) => Some(p.unwrap_or(0) + e.unwrap_or(0)),
    }
}

fn files_text(s: &SnapshotInfo) -> String {
    let mut parts = Vec::new();
    let mut add = |v: Option<i64>, what: &str| {
        if let Some(n) = v.filter(|n| *n != 0) {
            parts.push(format!("{what}{n}"));
        }
    };
    add(s.added_data_files, "+");
    add(s.deleted_data_files, "−");
    add(s.added_delete_files, "+del ");
    add(s.removed_delete_files, "−del ");
    parts.join(" ")
}

/// One lane per branch of the log (`main` first): the snapshots of the head's parent chain; its
/// name opens the Data tab at the branch (`main`: the latest).
fn lanes(log: &SnapshotLog, route: RwSignal<Route>) -> Vec<Lane> {
    let parent: HashMap<i64, Option<i64>> = log.commits.iter().map(|c| (c.id, c.parent)).collect();
    log.branches
        .iter()
        .map(|(name, head)| {
            let mut chain = Vec::new();
            let mut at = Some(*head);
            // A parent missing from the log (expired) ends the chain; a cycle cannot repeat a
            // snapshot.
            while let Some(id) = at.filter(|id| parent.contains_key(id) && !chain.contains(id)) {
                chain.push(id);
                at = parent.get(&id).copied().flatten();
            }
            chain.reverse();
            let at = match name.as_str() {
                "main" => Version::Latest,
                name => Version::Branch(name.to_string()),
            };
            let open = Callback::new(move |()| {
                let at = at.clone();
                go(route, |r| {
                    r.tab = Tab::Data;
                    r.at = at;
                })
            });
            Lane {
                name: name.clone(),
                snapshots: chain,
                open,
            }
        })
        .collect()
}

/// The header cells of the snapshot table of a format.
fn header(format: Format) -> AnyView {
    match format {
        Format::Paimon => view! {
            <th>"id"</th><th>"kind"</th><th>"committed"</th><th class="num">"delta rows"</th>
            <th class="num">"total rows"</th><th class="num">"changelog"</th><th>"schema"</th>
            <th>"user"</th><th>"watermark"</th><th>"tags"</th>
        }
        .into_any(),
        Format::Iceberg => view! {
            <th>"snapshot id"</th><th>"parent"</th><th>"operation"</th><th>"committed"</th>
            <th class="num">"added rows"</th><th class="num">"deleted rows"</th>
            <th class="num">"delete records"</th><th class="num">"total records"</th><th>"files"</th>
            <th>"schema"</th><th>"refs"</th>
        }
        .into_any(),
    }
}

/// The row cells of a commit.
fn cells(c: &Commit) -> AnyView {
    let kind = view! { <td><span class=format!("kind {}", kind_class(&c.kind))>{c.kind.to_uppercase()}</span></td> };
    let committed = view! { <td class="mono">{time(c.time_millis)}</td> };
    let delta = view! { <td class="num">{c.delta_records.map(|v| format!("{v:+}")).unwrap_or_default()}</td> };
    let total =
        view! { <td class="num">{c.total_records.map(|v| v.to_string()).unwrap_or_default()}</td> };
    let schema =
        view! { <td class="mono">{c.schema_id.map(|v| v.to_string()).unwrap_or_default()}</td> };
    let refs = view! { <td>{c.refs.iter().map(|n| view! { <span class="tag">{n.clone()}</span> }).collect_view()}</td> };
    let id = view! { <td class="mono strong">{c.id.to_string()}</td> };
    match &c.detail {
        CommitDetail::Paimon {
            commit_user,
            changelog_records,
            watermark,
        } => view! {
            {id}{kind}{committed}{delta}{total}
            <td class="num">{changelog_records.map(|v| v.to_string()).unwrap_or_default()}</td>
            {schema}
            <td class="mono ellipsis user" title=commit_user.clone()>{commit_user.clone()}</td>
            <td class="mono">{watermark.map(|w| w.to_string()).unwrap_or_default()}</td>
            {refs}
        }
        .into_any(),
        CommitDetail::Iceberg(s) => view! {
            {id}
            <td class="mono muted">{c.parent.map(|p| p.to_string()).unwrap_or_else(|| "—".into())}</td>
            {kind}{committed}
            <td class="num ins">{num(s.added_records, "+")}</td>
            <td class="num del">{num(s.deleted_records, "−")}</td>
            <td class="num del">{num(delete_records(s), "+")}</td>
            {total}
            <td class="mono">{files_text(s)}</td>
            {schema}{refs}
        }
        .into_any(),
    }
}

/// The timeline's legend of a format's commit kinds.
fn legend(format: Format) -> AnyView {
    match format {
        Format::Paimon => view! {
            <span class="kind k-append">"APPEND"</span>
            <span class="kind k-compact">"COMPACT"</span>
            <span class="kind k-overwrite">"OVERWRITE"</span>
            <span class="tag">"tag"</span>
        }
        .into_any(),
        Format::Iceberg => view! {
            <span class="kind k-append">"APPEND"</span>
            <span class="kind k-overwrite">"OVERWRITE"</span>
            <span class="kind k-delete">"DELETE"</span>
            <span class="kind k-compact">"REPLACE"</span>
            <span class="tag">"ref"</span>
        }
        .into_any(),
    }
}

#[component]
pub fn SnapshotsTab(sel: Selection) -> impl IntoView {
    let data = RwSignal::new_local(Load::<(Format, SnapshotLog)>::Loading(
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
            let loaded = async {
                let t = warehouse::any_table(&path).await?;
                let log = t.snapshots().await.map_err(|e| e.to_string())?;
                Ok::<_, String>((t.format(), log))
            };
            let _ = data.try_set(loaded.await.map_or_else(Load::Failed, Load::Ready));
        });
    });
    let on_done = move || reload.update(|n| *n += 1);
    move || match data.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot read snapshots" message=m /> }.into_any()
        }
        Load::Ready((format, log)) => log_view(format, log, path.get_value(), outcome, on_done),
    }
}

/// The timeline, the actions (Paimon) and the snapshot table of a table's log.
fn log_view(
    format: Format,
    log: SnapshotLog,
    path: String,
    outcome: RwSignal<Outcome>,
    on_done: impl Fn() + Copy + Send + Sync + 'static,
) -> AnyView {
    if log.commits.is_empty() {
        return view! { <p class="note">"This table has no snapshots yet."</p> }.into_any();
    }
    let route = use_route();
    let travel = move |id: i64| {
        go(route, |r| {
            r.tab = Tab::Data;
            r.at = Version::SnapshotId(id);
        })
    };
    let bars: Vec<Bar> = log
        .commits
        .iter()
        .map(|c| Bar {
            id: c.id,
            time_millis: c.time_millis,
            delta: c.delta_records.unwrap_or(0),
            class: kind_class(&c.kind),
            kind: c.kind.to_uppercase(),
            marks: c.refs.clone(),
            label: match &c.detail {
                CommitDetail::Paimon { .. } => format!("#{}", c.id),
                CommitDetail::Iceberg(s) => format!("seq {}", s.sequence_number),
            },
        })
        .collect();
    let chart = timeline(&bars, &lanes(&log, route), travel);
    // Tags and rollbacks are Paimon commits (an Iceberg table's refs are read-only here).
    let actions = (format == Format::Paimon).then(|| {
        let versions: Vec<(i64, i64)> = log.commits.iter().map(|c| (c.id, c.time_millis)).collect();
        view! {
            <TagActions path snapshots=versions tags=log.tags.clone() outcome on_done />
        }
    });
    let current = log.current;
    let rows = log
        .commits
        .iter()
        .rev()
        .map(|c| {
            let id = c.id;
            view! {
                <tr class="clickable" class:selected=current == Some(id) data-testid="snapshot-row" data-snapshot=id.to_string()
                    on:click=move |_| travel(id) title="Open the Data tab at this snapshot">
                    {cells(c)}
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card wide">
            <h2>"Timeline " <span class="muted">"(bars: records added minus records removed by each commit; click a bar to read the table at that snapshot)"</span></h2>
            {chart}
            <div class="legend">{legend(format)}</div>
        </section>
        {actions}
        <section class="card wide scroll-x">
            <table class="tbl" data-testid="snapshots-table">
                <thead><tr>{header(format)}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
    .into_any()
}
