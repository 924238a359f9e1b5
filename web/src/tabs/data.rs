//! Data: the virtualised grid with time travel, column projection, a pushed-down filter, the
//! audit-log view and export of the current view.

use crate::app::Selection;
use crate::state::route::{go, use_route};
use crate::state::versions::{branch_label, branch_options, load_branch_versions};
use crate::state::warehouse;
use crate::tabs::panel::table_ref;
use crate::util::{download, download_bytes, parse_time, time, yield_to_browser, Frame};
use crate::widgets::grid::{BlobDownload, Grid};
use lakescope_engine::blob::BlobRef;
use lakescope_engine::csv_text;
use lakescope_engine::scan::parse_filter;
use lakescope_engine::table::Format;
use lakescope_engine::version::BranchPoint;
use lakescope_engine::versions::Versions;
use lakescope_engine::Version;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

#[derive(Clone, PartialEq)]
struct Query {
    at: Version,
    filter: String,
    cols: String,
    audit: bool,
}

#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Loading {
        rows: usize,
        split: usize,
        splits: usize,
    },
    Done {
        rows: usize,
        ms: f64,
        snapshot: Option<i64>,
        cancelled: bool,
    },
    Failed(String),
}

fn now() -> f64 {
    js_sys::Date::now()
}

#[component]
pub fn DataTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let frame = RwSignal::new(None::<Arc<Frame>>);
    let status = RwSignal::new(Status::Idle);
    let generation = StoredValue::new(0u64);
    let all_columns = RwSignal::new(Vec::<String>::new());
    let versions = RwSignal::new_local(Versions::default());
    let sel = StoredValue::new(sel);
    // Bumped after an upload commits: the grid reloads.
    let reload = RwSignal::new(0u32);
    // Known once the versions are loaded: uploads are for Paimon tables.
    let iceberg_table = RwSignal::new(None::<bool>);
    // The own snapshots and tags of the Paimon branches chosen.
    let own = RwSignal::new_local(Vec::<(String, Versions)>::new());

    // The version picker and the column menu are read once the first rows show (or the read
    // ends): their reads (every snapshot file) would otherwise hold connections the rows wait for.
    let menus_started = StoredValue::new(false);
    Effect::new(move |_| {
        let waiting = matches!(status.get(), Status::Idle | Status::Loading { rows: 0, .. });
        if waiting || menus_started.get_value() {
            return;
        }
        menus_started.set_value(true);
        spawn_local(async move {
            let s = sel.get_value();
            let (iceberg, loaded) = crate::state::versions::versions(&s).await;
            iceberg_table.set(Some(iceberg));
            // the snapshots and tags of the branch read (later ones: as they are chosen)
            if let Some(branch) = route.with_untracked(|r| r.at.branch().map(str::to_string)) {
                if !iceberg {
                    load_branch_versions(&s.table.path, &branch, own);
                }
            }
            if let Ok(v) = loaded {
                versions.set(v);
            }
            if let Ok(columns) = crate::state::versions::current_columns(&s).await {
                all_columns.set(columns);
            }
        });
    });

    let query = Memo::new(move |_| {
        route.with(|r| Query {
            at: r.at.clone(),
            filter: r.filter.clone(),
            cols: r.cols.clone(),
            audit: r.audit,
        })
    });

    Effect::new(move |_| {
        reload.track();
        let q = query.get();
        let my_gen = generation.with_value(|g| g + 1);
        generation.set_value(my_gen);
        // A load is current while no newer one started and the tab is still shown (the user may
        // leave the tab before it finishes: its values are then disposed).
        let current = move || generation.try_with_value(|g| *g == my_gen) == Some(true);
        status.set(Status::Loading {
            rows: 0,
            split: 0,
            splits: 0,
        });
        let s = sel.get_value();
        if let (Some(false), Some(branch)) = (iceberg_table.get_untracked(), q.at.branch()) {
            load_branch_versions(&s.table.path, branch, own);
        }
        spawn_local(async move {
            let start = now();
            let result = load(&s, &q, frame, status, &current).await;
            if !current() {
                return;
            }
            match result {
                Ok((rows, snapshot)) => status.set(Status::Done {
                    rows,
                    ms: now() - start,
                    snapshot,
                    cancelled: false,
                }),
                Err(m) => {
                    frame.set(None);
                    status.set(Status::Failed(m));
                }
            }
        });
    });

    let cancel = move |_| {
        generation.update_value(|g| *g += 1);
        let rows = frame.with_untracked(|f| f.as_ref().map_or(0, |f| f.len()));
        status.set(Status::Done {
            rows,
            ms: 0.0,
            snapshot: None,
            cancelled: true,
        });
    };

    // filter input
    let filter_text = RwSignal::new(route.get_untracked().filter);
    Effect::new(move |_| filter_text.set(route.with(|r| r.filter.clone())));
    let filter_error = Memo::new(move |_| {
        let t = filter_text.get();
        if t.trim().is_empty() {
            None
        } else {
            parse_filter(&t).err().map(|e| e.to_string())
        }
    });
    let apply_filter = move || {
        let t = filter_text.get_untracked();
        go(route, |r| r.filter = t.trim().to_string());
    };

    // version picker
    let version_value = move || route.with(|r| picker_value(&r.at));
    let ts_text = RwSignal::new(at_time(&route.get_untracked().at).map_or(String::new(), time));
    let ts_error = RwSignal::new(None::<String>);
    let on_version = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        let at = if v == "ts" {
            Version::TimestampMillis(
                versions.with_untracked(|v| v.snapshots.last().map_or(0, |s| s.1)),
            )
        } else if let Some(branch) = v.strip_prefix("b:").and_then(|b| b.strip_suffix("/ts")) {
            // the branch's latest own snapshot's time to start from
            let ms = own.with_untracked(|own| {
                own.iter()
                    .find(|(b, _)| b == branch)
                    .and_then(|(_, v)| v.snapshots.last().map(|s| s.1))
            });
            Version::on_branch(branch, Version::TimestampMillis(ms.unwrap_or(0)))
                .unwrap_or_default()
        } else {
            picked(&v).unwrap_or_default()
        };
        if let Some(ms) = at_time(&at) {
            ts_text.set(time(ms));
        }
        go(route, |r| r.at = at);
    };
    let apply_ts = move || match parse_time(&ts_text.get_untracked()) {
        Some(ms) => {
            ts_error.set(None);
            // a time on the branch read, resolved on its own snapshots
            go(route, |r| {
                r.at = match r.at.branch() {
                    Some(b) => Version::on_branch(b, Version::TimestampMillis(ms))
                        .unwrap_or(Version::TimestampMillis(ms)),
                    None => Version::TimestampMillis(ms),
                }
            });
        }
        None => ts_error.set(Some(
            "Enter a time like 2024-03-01 10:00:00 (UTC) or epoch milliseconds.".into(),
        )),
    };

    let toggle_col = move |name: String, on: bool| {
        let all = all_columns.get_untracked();
        let mut chosen: Vec<String> = route.with_untracked(|r| {
            if r.cols.is_empty() {
                all.clone()
            } else {
                r.cols.split(',').map(str::to_string).collect()
            }
        });
        if on {
            chosen.push(name);
        } else {
            chosen.retain(|c| *c != name);
        }
        let ordered: Vec<String> = all.iter().filter(|c| chosen.contains(c)).cloned().collect();
        let cols = if ordered.len() == all.len() {
            String::new()
        } else {
            ordered.join(",")
        };
        go(route, |r| r.cols = cols);
    };

    let export = move |jsonl: bool| {
        let Some(f) = frame.get_untracked() else {
            return;
        };
        let name = sel.with_value(|s| format!("{}.{}", s.database, s.table.name));
        if jsonl {
            let mut out = String::new();
            for b in &f.batches {
                for r in 0..b.num_rows() {
                    if let Ok(line) = lakescope_engine::canonical::row_to_json_line(b, r) {
                        out.push_str(&line);
                        out.push('\n');
                    }
                }
            }
            download(&format!("{name}.jsonl"), "application/x-ndjson", &out);
        } else {
            // The cells as the grid shows them (NULL: empty), not the CLI's Arrow display.
            let cols = f.columns();
            let mut out = csv_text::line(cols.iter().map(Some));
            out.push('\n');
            for r in 0..f.len() {
                out.push_str(&csv_text::line((0..cols.len()).map(|c| f.cell(r, c))));
                out.push('\n');
            }
            download(&format!("{name}.csv"), "text/csv", &out);
        }
    };

    view! {
        <div class="data-tab">
            <div class="toolbar">
                <label class="tb-label" for="version">"Version"</label>
                <select id="version" class="select" data-testid="version-select" prop:value=version_value on:change=on_version>
                    <option value="latest">"latest"</option>
                    {move || versions.with(|Versions { snapshots: snaps, tags, branches }| {
                        let cur = version_value();
                        let mut opts: Vec<_> = branches.iter().map(|(n, head)| {
                            let v = format!("b:{n}");
                            view! { <option value=v.clone() selected=cur == v>{branch_label(n, *head)}</option> }.into_any()
                        }).collect();
                        // the chosen branch's own tags and snapshots
                        opts.extend(own.with(|own| own.iter()
                            .find(|(b, _)| route.with(|r| r.at.branch() == Some(b.as_str())))
                            .map(|(b, v)| {
                                let mut opts = branch_options(b, v, picker_value, &cur);
                                let time_value = format!("b:{b}/ts");
                                opts.push(view! { <option value=time_value.clone() selected=cur == time_value>{format!("{b} · at a time…")}</option> }.into_any());
                                opts
                            }))
                            .unwrap_or_default());
                        opts.extend(tags.iter().map(|(n, id)| {
                            let v = format!("t:{n}");
                            view! { <option value=v.clone() selected=cur == v>{format!("tag {n} (snapshot {id})")}</option> }.into_any()
                        }));
                        opts.extend(snaps.iter().rev().map(|&(id, millis)| {
                            let v = format!("s:{id}");
                            view! { <option value=v.clone() selected=cur == v>{format!("snapshot {id} · {}", time(millis))}</option> }.into_any()
                        }));
                        opts.push(view! { <option value="ts" selected=cur == "ts">"at a time…"</option> }.into_any());
                        opts.collect_view()
                    })}
                </select>
                <Show when=move || route.with(|r| at_time(&r.at).is_some())>
                    <input class="input ts" data-testid="ts-input" type="text" spellcheck="false"
                        placeholder="2024-03-01 10:00:00" bind:value=ts_text
                        on:keydown=move |ev| if ev.key() == "Enter" { apply_ts() } />
                    <button class="btn" on:click=move |_| apply_ts()>"Go"</button>
                </Show>
                <details class="cols-menu">
                    <summary class="btn" data-testid="columns-button">
                        {move || {
                            let n = all_columns.with(|a| a.len());
                            let k = route.with(|r| if r.cols.is_empty() { n } else { r.cols.split(',').count() });
                            format!("Columns {k}/{n}")
                        }}
                    </summary>
                    <div class="cols-pop" data-testid="columns-menu">
                        {move || all_columns.get().into_iter().map(|c| {
                            let c2 = c.clone();
                            let c3 = c.clone();
                            let checked = move || route.with(|r| r.cols.is_empty() || r.cols.split(',').any(|x| x == c2));
                            view! {
                                <label class="col-opt">
                                    <input type="checkbox" data-col=c.clone() prop:checked=checked
                                        on:change=move |ev| toggle_col(c3.clone(), event_target_checked(&ev)) />
                                    <span class="mono">{c}</span>
                                </label>
                            }
                        }).collect_view()}
                    </div>
                </details>
                <label class="check" title="Show the audit log: every row with its row kind (+I, -U, +U, -D)">
                    <input type="checkbox" data-testid="audit-toggle" prop:checked=move || route.with(|r| r.audit)
                        on:change=move |ev| { let on = event_target_checked(&ev); go(route, |r| r.audit = on) } />
                    "audit log (rowkind)"
                </label>
                <span class="spacer"></span>
                <button class="btn" data-testid="export-csv" on:click=move |_| export(false)>"CSV"</button>
                <button class="btn" data-testid="export-jsonl" on:click=move |_| export(true)>"JSON Lines"</button>
            </div>
            <Show when=move || iceberg_table.get() == Some(false)>
                <crate::tabs::upload_action::UploadAction database=sel.with_value(|s| s.database.clone())
                    table=sel.with_value(|s| s.table.name.clone()) on_done=move || reload.update(|n| *n += 1) />
            </Show>
            <div class="filterbar">
                <span class="filter-icon" aria-hidden="true">"⌕"</span>
                <input id="data-filter" class="input filter-input" data-testid="data-filter" type="text" spellcheck="false"
                    autocomplete="off" placeholder="Filter rows, e.g. dt = '2024-03-01' AND qty >= 3   (press / to focus, Enter to apply)"
                    bind:value=filter_text
                    on:keydown=move |ev| if ev.key() == "Enter" { apply_filter() } />
                <button class="btn" data-testid="apply-filter" on:click=move |_| apply_filter()>"Apply"</button>
            </div>
            {move || filter_error.get().map(|e| view! { <div class="filter-error" role="alert" data-testid="filter-error">{e}</div> })}
            {move || ts_error.get().map(|e| view! { <div class="filter-error" role="alert">{e}</div> })}
            <div class="statusline" data-testid="data-status">
                {move || match status.get() {
                    Status::Idle => view! { <span></span> }.into_any(),
                    Status::Loading { rows, split, splits } => view! {
                        <span class="spinner" aria-hidden="true"></span>
                        <span data-testid="busy">{format!("Reading… {rows} rows, split {split} of {splits}")}</span>
                        <progress max=splits.max(1) value=split></progress>
                        <button class="btn small" data-testid="cancel" on:click=cancel>"Cancel"</button>
                    }.into_any(),
                    Status::Done { rows, ms, snapshot, cancelled } => view! {
                        <span data-testid="row-total">{format!("{rows} rows")}</span>
                        <span class="muted">{if cancelled { " · cancelled (partial result)".to_string() } else {
                            format!(" · {}{:.0} ms", snapshot.map(|s| format!("snapshot {s} · ")).unwrap_or_default(), ms)
                        }}</span>
                    }.into_any(),
                    Status::Failed(m) => view! { <span class="err-inline" data-testid="data-error" role="alert">{m}</span> }.into_any(),
                }}
            </div>
            <Grid frame=frame testid="data-grid" class="fill" blob_download=blob_download(status) />
        </div>
    }
}

/// The time of a read at a time, on `main` or on a branch's own snapshots.
fn at_time(at: &Version) -> Option<i64> {
    match at {
        Version::TimestampMillis(ms)
        | Version::OnBranch {
            at: BranchPoint::TimestampMillis(ms),
            ..
        } => Some(*ms),
        _ => None,
    }
}

/// The version picker's value of `at`: `latest`, `s:<id>`, `t:<tag>`, `b:<branch>`, a
/// branch's own `b:<branch>/s:<id>`, `b:<branch>/t:<tag>` or `b:<branch>/ts` (a branch name
/// has no `/`), `ts`
/// (the route holds no bare ref or range: they have no URL form).
fn picker_value(at: &Version) -> String {
    match at {
        Version::SnapshotId(id) => format!("s:{id}"),
        Version::Tag(t) => format!("t:{t}"),
        Version::Branch(b) => format!("b:{b}"),
        Version::OnBranch { branch, at } => match at {
            BranchPoint::SnapshotId(id) => format!("b:{branch}/s:{id}"),
            BranchPoint::Tag(t) => format!("b:{branch}/t:{t}"),
            BranchPoint::TimestampMillis(_) => format!("b:{branch}/ts"),
        },
        Version::TimestampMillis(_) => "ts".to_string(),
        Version::Latest | Version::Ref(_) | Version::IncrementalBetween { .. } => {
            "latest".to_string()
        }
    }
}

/// The version of a picker value other than `ts` ([`picker_value`]); `None`: `latest` or not a
/// value of the picker.
fn picked(value: &str) -> Option<Version> {
    if let Some(id) = value.strip_prefix("s:") {
        return id.parse().ok().map(Version::SnapshotId);
    }
    if let Some(t) = value.strip_prefix("t:") {
        return Some(Version::Tag(t.to_string()));
    }
    let branch = value.strip_prefix("b:")?;
    match branch.split_once('/') {
        Some((branch, at)) => Version::on_branch(branch, picked(at)?).ok(),
        None => Some(Version::Branch(branch.to_string())),
    }
}

/// A BLOB cell's download: its bytes are fetched only then (one range read of the `.blob` file,
/// checked as `read::blob::fetch` checks it); an error shows in the status line.
fn blob_download(status: RwSignal<Status>) -> BlobDownload {
    Arc::new(move |reference: BlobRef| {
        spawn_local(async move {
            let fetched = match warehouse::catalog() {
                Ok(catalog) => catalog
                    .fetch_blob(&reference)
                    .await
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e),
            };
            match fetched {
                Ok(bytes) => {
                    let file = reference.file.rsplit('/').next().unwrap_or("blob");
                    download_bytes(&format!("{file}-{}.bin", reference.offset), &bytes);
                }
                Err(e) => status.set(Status::Failed(e)),
            }
        })
    })
}

/// Minimum milliseconds between two grid updates while rows stream in.
const GRID_REFRESH_MS: f64 = 250.0;

/// Reads the query into `frame`, batch by batch (the first merged batch shows at once; a
/// branch or an Iceberg table is read whole by the engine). Returns rows and the snapshot read.
async fn load(
    sel: &Selection,
    q: &Query,
    frame: RwSignal<Option<Arc<Frame>>>,
    status: RwSignal<Status>,
    current: &dyn Fn() -> bool,
) -> Result<(usize, Option<i64>), String> {
    let filter = if q.filter.trim().is_empty() {
        None
    } else {
        Some(parse_filter(&q.filter).map_err(|e| format!("Filter: {e}"))?)
    };
    let columns =
        (!q.cols.is_empty()).then(|| q.cols.split(',').map(str::to_string).collect::<Vec<_>>());
    let path = &sel.table.path;
    let format = warehouse::format(path).await;
    // A Paimon table's latest snapshot needs no schema: it is read while the table opens.
    let latest = async {
        match (&q.at, format) {
            (Version::Latest, Format::Paimon) => warehouse::latest_snapshot(path).await,
            _ => Ok(None),
        }
    };
    let (t, latest) = futures::join!(warehouse::any_table(path), latest);
    let t = t?;
    let mut scan = t
        .scan(table_ref(sel, None))
        .at(q.at.clone())
        .select(columns)
        .filter(filter)
        .audit_log(q.audit)
        .first_rows();
    if q.at == Version::Latest && format == Format::Paimon {
        scan = scan.latest_snapshot(latest?);
    }
    let mut rows = scan.stream().await.map_err(|e| e.to_string())?;
    let splits = rows.total_splits();
    let mut f = Frame::new(rows.schema().clone(), Vec::new());
    frame.set(Some(Arc::new(f.clone())));
    // The grid shows the first batch as soon as it is merged, then catches up at most every
    // GRID_REFRESH_MS (re-rendering per batch would dominate a read of millions of rows). After
    // each update the read yields to the browser: batches decoded from fetched bytes come
    // without any await pending, so without it nothing would render until the next fetch.
    let mut shown_at: Option<f64> = None;
    while let Some(batch) = rows.next_batch().await {
        if !current() {
            return Ok((f.len(), None));
        }
        f.extend(vec![batch.map_err(|e| e.to_string())?]);
        let now = now();
        if shown_at.is_none_or(|t| now - t >= GRID_REFRESH_MS) {
            shown_at = Some(now);
            frame.set(Some(Arc::new(f.clone())));
            status.set(Status::Loading {
                rows: f.len(),
                split: splits - rows.remaining_splits(),
                splits,
            });
            yield_to_browser().await;
        }
    }
    frame.set(Some(Arc::new(f.clone())));
    Ok((f.len(), rows.snapshot_id()))
}
