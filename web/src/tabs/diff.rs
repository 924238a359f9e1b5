//! Diff: rows inserted, deleted and changed between two snapshots or tags (a Paimon branch's
//! too), with changed cells highlighted and counts per partition, for tables of either format
//! (`lakescope_engine::table::Table::diff`).

use crate::app::Selection;
use crate::state::route::{go, use_route};
use crate::state::versions::{
    branch_label, branch_options, load_branch_versions, versions as versions_of,
};
use crate::state::warehouse;
use crate::tabs::panel::table_ref;
use crate::util::{time, ErrorPanel, Frame, Load};
use crate::widgets::grid::{CellClass, Grid};
use crate::widgets::progress::{Cancelled, Job, JobProgress};
use lakescope_engine::format_types::{PartitionCounts, MAIN_BRANCH};
use lakescope_engine::table::DiffRead;
use lakescope_engine::versions::Versions;
use lakescope_engine::Version;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

/// A computed diff, whichever the table format.
#[derive(Clone)]
struct DiffView {
    frame: Arc<Frame>,
    partitions: Vec<PartitionCounts>,
    from: Option<i64>,
    to: Option<i64>,
    /// What had to be read (buckets / files), for the summary line.
    read: String,
    /// Partition values one per line (self-describing `name=value` texts).
    stack_partitions: bool,
}

/// The diff of the picker values `from` → `to` (a snapshot id, `tag:<name>`, `branch:<name>`,
/// a branch's own `branch:<name>/<id>` or `branch:<name>/tag:<tag>`; `0` the empty table),
/// whichever the table format.
async fn diff(sel: &Selection, from: &str, to: &str, job: Job) -> Result<DiffView, String> {
    let from = Version::parse_diff_side(from).map_err(|e| e.to_string())?;
    let to = Version::parse_diff_side(to)
        .map_err(|e| e.to_string())?
        .ok_or("Pick the snapshot to compare to.")?;
    let t = warehouse::any_table(&sel.table.path).await?;
    let d = t
        .diff(&table_ref(sel, None), from.as_ref(), &to, &mut |p| {
            job.steps(p.done, p.total)
        })
        .await
        .map_err(|e| e.to_string())?;
    let read = match d.read {
        DiffRead::Paimon { buckets, files } => {
            // which branch each snapshot id is of, once a side is not on main
            let on = |v: Option<&Version>| {
                v.and_then(Version::branch)
                    .unwrap_or(MAIN_BRANCH)
                    .to_string()
            };
            let (from_branch, to_branch) = (on(from.as_ref()), on(Some(&to)));
            let branches = if from_branch == MAIN_BRANCH && to_branch == MAIN_BRANCH {
                String::new()
            } else {
                format!(" · branch {from_branch} → {to_branch}")
            };
            format!("read {buckets} bucket(s), {files} file(s){branches}")
        }
        DiffRead::Iceberg { files, skipped } => format!(
            "{files} data file reads over both snapshots, {skipped} unchanged file(s) skipped"
        ),
    };
    Ok(DiffView {
        stack_partitions: matches!(d.read, DiffRead::Iceberg { .. }),
        frame: Arc::new(Frame::new(d.schema, d.batches)),
        partitions: d.partitions,
        from: d.from,
        to: d.to,
        read,
    })
}

#[component]
pub fn DiffTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let versions = RwSignal::new_local(Load::<Versions>::Loading("Reading snapshots…".into()));
    let result = RwSignal::new_local(None::<Load<DiffView>>);
    let stored_sel = StoredValue::new(sel.clone());
    let job = Job::new();
    // Set when the user cancelled the diff; "Run again" bumps `rerun`.
    let cancelled = RwSignal::new(false);
    let rerun = RwSignal::new(0u32);
    // Which format: decided once, before anything is read.
    let iceberg = RwSignal::new(None::<bool>);

    spawn_local(async move {
        let (is_iceberg, loaded) = versions_of(&sel).await;
        match loaded {
            Ok(v) => {
                // Default range: the last two snapshots.
                let ids: Vec<i64> = v.snapshots.iter().map(|s| s.0).collect();
                if route.with_untracked(|r| r.to.is_empty()) && !ids.is_empty() {
                    let to = ids[ids.len() - 1].to_string();
                    let from = if ids.len() > 1 {
                        ids[ids.len() - 2].to_string()
                    } else {
                        "0".into()
                    };
                    crate::state::route::go_replace(route, |r| {
                        r.from = from;
                        r.to = to;
                    });
                }
                versions.set(Load::Ready(v));
            }
            Err(m) => versions.set(Load::Failed(m)),
        }
        iceberg.set(Some(is_iceberg));
    });

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
        result.set(Some(Load::Loading(format!(
            "Diffing {} → {}…",
            label(&from),
            label(&to)
        ))));
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

    let picker = move |which: &'static str| {
        move || {
            let Load::Ready(Versions {
                snapshots: snaps,
                tags,
                branches,
            }) = versions.get()
            else {
                return ().into_any();
            };
            let cur = route.with(|r| {
                if which == "from" {
                    r.from.clone()
                } else {
                    r.to.clone()
                }
            });
            let mut opts = Vec::new();
            // a link's `latest` (the table's head when the tab opened) is shown as such
            if cur == "latest" {
                opts.push(
                    view! { <option value="latest" selected=true>"latest snapshot"</option> }
                        .into_any(),
                );
            }
            if which == "from" {
                opts.push(
                    view! { <option value="0" selected=cur == "0">"(empty table)"</option> }
                        .into_any(),
                );
            }
            for (n, head) in &branches {
                let v = format!("branch:{n}");
                opts.push(view! { <option value=v.clone() selected=cur == v>{branch_label(n, *head)}</option> }.into_any());
            }
            own.with(|own| {
                for (b, v) in own {
                    let value = |at: &Version| at.typed_name().unwrap_or_default();
                    opts.extend(branch_options(b, v, value, &cur));
                }
            });
            for (n, id) in &tags {
                let v = format!("tag:{n}");
                opts.push(view! { <option value=v.clone() selected=cur == v>{format!("tag {n} (snapshot {id})")}</option> }.into_any());
            }
            for (id, millis) in snaps.iter().rev() {
                let v = id.to_string();
                opts.push(view! { <option value=v.clone() selected=cur == v>{format!("snapshot {id} · {}", time(*millis))}</option> }.into_any());
            }
            view! {
                <select class="select" data-testid=format!("diff-{which}")
                    on:change=move |ev| {
                        let v = event_target_value(&ev);
                        go(route, |r| if which == "from" { r.from = v } else { r.to = v });
                    }>
                    {opts}
                </select>
            }
            .into_any()
        }
    };

    view! {
        <div class="diff-tab">
            <div class="toolbar">
                <span class="tb-label">"From"</span>
                {picker("from")}
                <span class="tb-label">"to"</span>
                {picker("to")}
                <span class="muted">
                    {move || if iceberg.get() == Some(true) {
                        "Rows are matched by identifier fields (tables without: as whole rows)."
                    } else {
                        "Rows are matched by primary key (append tables: by file; data-evolution tables: by row id)."
                    }}
                </span>
            </div>
            {move || match versions.get() {
                Load::Failed(m) => Some(view! { <ErrorPanel title="Cannot read snapshots" message=m /> }.into_any()),
                _ => None,
            }}
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

fn label(spec: &str) -> String {
    match Version::parse_diff_side(spec) {
        Ok(None) => "empty table".into(),
        Ok(Some(Version::SnapshotId(id))) => format!("snapshot {id}"),
        Ok(Some(Version::Tag(t))) => format!("tag {t}"),
        Ok(Some(Version::Branch(b))) => format!("branch {b}"),
        Ok(Some(other)) => other.to_string(),
        Err(_) => spec.to_string(),
    }
}

fn diff_view(d: DiffView) -> impl IntoView {
    let (ins, del, upd) = d.partitions.iter().fold((0, 0, 0), |a, p| {
        (a.0 + p.inserted, a.1 + p.deleted, a.2 + p.updated)
    });
    let change_of = |f: &Frame, r: usize| f.cell(r, 0).unwrap_or_default();
    let row_class: CellClass = Arc::new(move |f, r, _| match change_of(f, r).as_str() {
        "insert" => "r-insert",
        "delete" => "r-delete",
        "update_before" => "r-before",
        "update_after" => "r-after",
        _ => "",
    });
    let cell_class: CellClass = Arc::new(move |f, r, c| {
        if c == 0 {
            return "change-col";
        }
        let other = match change_of(f, r).as_str() {
            "update_before" => r + 1,
            "update_after" if r > 0 => r - 1,
            _ => return "",
        };
        if f.cell(r, c) != f.cell(other, c) {
            "changed"
        } else {
            ""
        }
    });
    let frame = Signal::stored(Some(d.frame.clone()));
    let parts = d
        .partitions
        .iter()
        .map(|p| {
            let name = if p.partition.is_empty() {
                "(unpartitioned)".into_any()
            } else if d.stack_partitions {
                p.partition
                    .iter()
                    .map(
                        |v| view! { <div data-testid="diff-partition-value">{v.to_string()}</div> },
                    )
                    .collect_view()
                    .into_any()
            } else {
                p.partition
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" / ")
                    .into_any()
            };
            view! {
                <tr data-testid="diff-partition">
                    <td class="mono">{name}</td>
                    <td class="num ins">{p.inserted}</td>
                    <td class="num del">{p.deleted}</td>
                    <td class="num upd">{p.updated}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="diff-summary" data-testid="diff-summary">
            <span class="pill ins">{format!("+{ins} inserted")}</span>
            <span class="pill del">{format!("−{del} deleted")}</span>
            <span class="pill upd">{format!("~{upd} changed")}</span>
            <span class="muted">
                {format!(
                    "snapshot {} → {} · {}",
                    d.from.map_or("∅".to_string(), |s| s.to_string()),
                    d.to.map_or("∅".to_string(), |s| s.to_string()),
                    d.read
                )}
            </span>
        </div>
        <div class="split">
            <section class="card side">
                <h2>"Per partition"</h2>
                <table class="tbl" data-testid="diff-partitions">
                    <thead><tr><th>"partition"</th><th class="num">"ins"</th><th class="num">"del"</th><th class="num">"chg"</th></tr></thead>
                    <tbody>{parts}</tbody>
                </table>
            </section>
            <section class="card grow1 flush">
                <Grid frame=frame testid="diff-grid" class="short" row_class=row_class cell_class=cell_class />
            </section>
        </div>
    }
}
