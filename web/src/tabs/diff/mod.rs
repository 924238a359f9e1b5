//! Diff: rows inserted, deleted and changed between two snapshots or tags (a Paimon branch's
//! too), with changed cells highlighted and counts per partition, for tables of either format
//! (`lakescope_engine::table::Table::diff`).

mod compute;
mod pickers;
mod result;

use crate::app::Selection;
use crate::state::route::{go_replace, use_route, Route};
use crate::state::versions::{load_branch_versions, versions as versions_of};
use crate::util::{ErrorPanel, Load};
use crate::widgets::progress::{Cancelled, Job, JobProgress};
use compute::{diff, label, DiffView};
use lakescope_engine::versions::Versions;
use lakescope_engine::Version;
use leptos::prelude::*;
use leptos::task::spawn_local;
use pickers::{DiffPicker, Side};
use result::diff_view;

/// The Diff tab: the table's versions are read once; the diff runs as a `Job` (its progress
/// shows, Cancel drops it, "Run again" restarts it), started when the route's range changes.
#[component]
pub fn DiffTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let stored_sel = StoredValue::new(sel);
    let loaded = RwSignal::new_local(Load::<Versions>::Loading("Reading snapshots…".into()));
    // Which format: decided once, before anything is read.
    let iceberg = RwSignal::new(None::<bool>);
    spawn_local(async move {
        let (is_iceberg, listed) = versions_of(&stored_sel.get_value()).await;
        if let Ok(v) = &listed {
            default_range(route, v);
        }
        loaded.set(listed.map_or_else(Load::Failed, Load::Ready));
        iceberg.set(Some(is_iceberg));
    });
    let versions = Signal::derive(move || match loaded.get() {
        Load::Ready(v) => Some(v),
        Load::Loading(_) | Load::Failed(_) => None,
    });
    let result = RwSignal::new_local(None::<Load<DiffView>>);
    let job = Job::new();
    // Set when the user cancelled the diff; "Run again" bumps `rerun`.
    let cancelled = RwSignal::new(false);
    let rerun = RwSignal::new(0u32);
    let range = Memo::new(move |_| route.with(|r| (r.from.clone(), r.to.clone())));
    // The own snapshots and tags of the Paimon branches the sides name.
    let own = RwSignal::new_local(Vec::<(String, Versions)>::new());
    Effect::new(move |_| {
        let (from, to) = range.get();
        rerun.track();
        let Some(is_iceberg) = iceberg.get() else {
            return;
        };
        // the own snapshots and tags of the Paimon branches the sides name, as they are picked
        for side in [&from, &to].into_iter().filter(|_| !is_iceberg) {
            if let Ok(Some(at)) = Version::parse_diff_side(side) {
                if let Some(branch) = at.branch() {
                    let path = stored_sel.with_value(|s| s.table.path.clone());
                    load_branch_versions(&path, branch, own);
                }
            }
        }
        if to.is_empty() {
            return;
        }
        cancelled.set(false);
        let busy = format!("Diffing {} → {}…", label(&from), label(&to));
        result.set(Some(Load::Loading(busy)));
        let s = stored_sel.get_value();
        let work = async move { diff(&s, &from, &to, job).await };
        job.start(work, move |out| {
            cancelled.try_set(out.is_none());
            result.try_set(out.map(|r| match r {
                Ok(v) => Load::Ready(v),
                Err(m) => Load::Failed(m),
            }));
        });
    });
    let versions_failed = move || match loaded.get() {
        Load::Failed(m) => Some(m),
        Load::Loading(_) | Load::Ready(_) => None,
    };

    view! {
        <div class="diff-tab">
            <div class="toolbar">
                <span class="tb-label">"From"</span>
                <DiffPicker side=Side::From versions own />
                <span class="tb-label">"to"</span>
                <DiffPicker side=Side::To versions own />
                <span class="muted">
                    {move || if iceberg.get() == Some(true) {
                        "Rows are matched by identifier fields (tables without: as whole rows)."
                    } else {
                        "Rows are matched by primary key (append tables: by file; data-evolution tables: by row id)."
                    }}
                </span>
            </div>
            {move || versions_failed().map(|m| view! { <ErrorPanel title="Cannot read snapshots" message=m /> })}
            {move || match result.get() {
                None if cancelled.get() => view! {
                    <Cancelled what="The diff" rerun=move || rerun.update(|n| *n += 1) />
                }
                .into_any(),
                None => ().into_any(),
                Some(Load::Loading(t)) => {
                    let unit = if iceberg.get() == Some(true) { "data files" } else { "buckets" };
                    view! { <JobProgress job text=t unit /> }.into_any()
                }
                Some(Load::Failed(m)) => view! { <ErrorPanel title="Cannot diff these snapshots" message=m /> }.into_any(),
                Some(Load::Ready(d)) => diff_view(d).into_any(),
            }}
        </div>
    }
}

/// Without a range in the route: the last two snapshots (one snapshot: from the empty table).
fn default_range(route: RwSignal<Route>, v: &Versions) {
    let ids: Vec<i64> = v.snapshots.iter().map(|s| s.0).collect();
    if route.with_untracked(|r| r.to.is_empty()) && !ids.is_empty() {
        let to = ids[ids.len() - 1].to_string();
        let from = if ids.len() > 1 {
            ids[ids.len() - 2].to_string()
        } else {
            "0".into()
        };
        go_replace(route, |r| {
            r.from = from;
            r.to = to;
        });
    }
}
