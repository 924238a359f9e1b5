//! The Snapshots tab of an Iceberg table: the timeline (records added/removed per commit,
//! operation coloured, refs marked) and the snapshot table; clicking one time-travels the Data tab.

use crate::app::Selection;
use crate::iceberg_overview::{load_info, operation_class};
use crate::route::{go, use_route, Route, Tab};
use crate::timeline::{timeline, Bar, Lane};
use crate::util::{time, Busy, ErrorPanel, Load};
use lakescope_engine::Version;
use lakescope_iceberg::inspect::{SnapshotInfo, TableInfo};
use leptos::prelude::*;
use std::collections::HashMap;

/// Records a commit added minus those it removed (deleted rows and position/equality deletes).
fn delta(s: &SnapshotInfo) -> i64 {
    s.added_records.unwrap_or(0)
        - s.deleted_records.unwrap_or(0)
        - s.added_position_deletes.unwrap_or(0)
        - s.added_equality_deletes.unwrap_or(0)
}

/// Position plus equality delete records a commit added (`None` when the summary has neither).
fn delete_records(s: &SnapshotInfo) -> Option<i64> {
    match (s.added_position_deletes, s.added_equality_deletes) {
        (None, None) => None,
        (p, e) => Some(p.unwrap_or(0) + e.unwrap_or(0)),
    }
}

fn num(v: Option<i64>, sign: &str) -> String {
    v.filter(|n| *n != 0)
        .map(|n| format!("{sign}{n}"))
        .unwrap_or_default()
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

/// One lane per branch, `main` first, then by name: the snapshots of the head's parent chain;
/// its name opens the Data tab at the branch (`main`: the latest).
fn lanes(d: &TableInfo, route: RwSignal<Route>) -> Vec<Lane> {
    let parent: HashMap<i64, Option<i64>> =
        d.snapshots.iter().map(|s| (s.id, s.parent_id)).collect();
    let mut branches: Vec<_> = d.refs.iter().filter(|r| r.kind == "branch").collect();
    branches.sort_by_key(|r| (r.name != "main", r.name.clone()));
    branches
        .into_iter()
        .map(|r| {
            let mut chain = Vec::new();
            let mut at = Some(r.snapshot_id);
            // A parent missing from the metadata (expired) ends the chain; a cycle cannot
            // repeat a snapshot.
            while let Some(id) = at.filter(|id| parent.contains_key(id) && !chain.contains(id)) {
                chain.push(id);
                at = parent.get(&id).copied().flatten();
            }
            chain.reverse();
            let at = match r.name.as_str() {
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
                name: r.name.clone(),
                snapshots: chain,
                open,
            }
        })
        .collect()
}

fn snapshots_view(
    d: TableInfo,
    route: RwSignal<Route>,
    travel: impl Fn(i64) + Copy + 'static,
) -> AnyView {
    if d.snapshots.is_empty() {
        return view! { <p class="note">"This table has no snapshots yet."</p> }.into_any();
    }
    let bars: Vec<Bar> = d
        .snapshots
        .iter()
        .map(|s| Bar {
            id: s.id,
            time_millis: s.timestamp_ms,
            delta: delta(s),
            class: operation_class(&s.operation),
            kind: s.operation.clone(),
            marks: s.refs.clone(),
            label: format!("seq {}", s.sequence_number),
        })
        .collect();
    let current = d.current_snapshot_id;
    let rows = d
        .snapshots
        .iter()
        .rev()
        .map(|s| {
            let id = s.id;
            view! {
                <tr class="clickable" class:selected=current == Some(id) data-testid="snapshot-row" data-snapshot=id.to_string()
                    on:click=move |_| travel(id) title="Open the Data tab at this snapshot">
                    <td class="mono strong">{id.to_string()}</td>
                    <td class="mono muted">{s.parent_id.map(|p| p.to_string()).unwrap_or_else(|| "—".into())}</td>
                    <td><span class=format!("kind {}", operation_class(&s.operation))>{s.operation.to_uppercase()}</span></td>
                    <td class="mono">{time(s.timestamp_ms)}</td>
                    <td class="num ins">{num(s.added_records, "+")}</td>
                    <td class="num del">{num(s.deleted_records, "−")}</td>
                    <td class="num del">{num(delete_records(s), "+")}</td>
                    <td class="num">{s.total_records.map(|v| v.to_string()).unwrap_or_default()}</td>
                    <td class="mono">{files_text(s)}</td>
                    <td class="mono">{s.schema_id.map(|v| v.to_string()).unwrap_or_default()}</td>
                    <td>{s.refs.iter().map(|n| view! { <span class="tag">{n.clone()}</span> }).collect_view()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card wide">
            <h2>"Timeline " <span class="muted">"(bars: records added minus records and deletes removed by each commit; click to read the table at that snapshot)"</span></h2>
            {timeline(&bars, &lanes(&d, route), travel)}
            <div class="legend">
                <span class="kind k-append">"APPEND"</span>
                <span class="kind k-overwrite">"OVERWRITE"</span>
                <span class="kind k-delete">"DELETE"</span>
                <span class="kind k-compact">"REPLACE"</span>
                <span class="tag">"ref"</span>
            </div>
        </section>
        <section class="card wide scroll-x">
            <table class="tbl" data-testid="snapshots-table">
                <thead>
                    <tr>
                        <th>"snapshot id"</th><th>"parent"</th><th>"operation"</th><th>"committed"</th>
                        <th class="num">"added rows"</th><th class="num">"deleted rows"</th><th class="num">"delete records"</th>
                        <th class="num">"total records"</th><th>"files"</th><th>"schema"</th><th>"refs"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
    .into_any()
}

#[component]
pub fn IcebergSnapshotsTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let info = RwSignal::new_local(Load::<TableInfo>::Loading("Reading snapshots…".into()));
    load_info(&sel, info);
    let travel = move |id: i64| {
        go(route, |r| {
            r.tab = Tab::Data;
            r.at = Version::SnapshotId(id);
        })
    };
    move || match info.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot read snapshots" message=m /> }.into_any()
        }
        Load::Ready(d) => snapshots_view(d, route, travel),
    }
}
