//! The table page: header, tabs (each addressable by URL), and the Overview and Schema tabs of
//! Paimon tables (Iceberg tables get the `iceberg_*` variants).

use crate::app::{LoadState, Selection};
use crate::route::{go, use_route, Tab};
use crate::util::{bytes, time, Busy, ErrorPanel, Frame, Load};
use crate::warehouse;
use futures::future::{AbortHandle, Abortable};
use lakescope_engine::TableRef;
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_paimon::spec::snapshot::Snapshot;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::BTreeMap;

/// The `TableRef` of a selection.
pub fn table_ref(sel: &Selection, system: Option<&str>) -> TableRef {
    TableRef {
        database: sel.database.clone(),
        table: sel.table.name.clone(),
        system: system.map(str::to_string),
    }
}

/// Scans a (system) table into a frame.
pub async fn scan_frame(
    sel: &Selection,
    system: Option<&str>,
    at: Version,
) -> Result<Frame, String> {
    let catalog = warehouse::catalog()?;
    let r = table_ref(sel, system);
    let out = catalog
        .scan(
            &r,
            &ScanRequest {
                at,
                ..ScanRequest::default()
            },
        )
        .await
        .map_err(|e| format!("Reading {r} failed: {e}"))?;
    Ok(Frame::new(out.schema, out.batches))
}

/// Whether the selected table is an Iceberg table.
pub async fn is_iceberg(sel: &Selection) -> bool {
    warehouse::is_iceberg(&sel.table.path).await
}

/// The selected table with its tabs.
#[component]
pub fn TablePanel(selection: Selection) -> impl IntoView {
    let route = use_route();
    let location = if warehouse::service().is_some() {
        format!("{} {}", selection.base_url, table_ref(&selection, None))
    } else {
        format!("{}{}/", selection.base_url, selection.table.path)
    };
    let sel = StoredValue::new(selection.clone());
    let tab = Memo::new(move |_| route.with(|r| r.tab));
    // Overview, Schema, Snapshots and Files have an Iceberg variant: decide once per table.
    let iceberg = RwSignal::new(None::<bool>);
    let detect = selection.clone();
    spawn_local(async move { iceberg.set(Some(is_iceberg(&detect).await)) });
    view! {
        <article class="panel" data-testid="table-panel">
            <header class="panel-head">
                <span class="crumb">{selection.database.clone()}</span>
                <span class="crumb-sep">"/"</span>
                <h1 data-testid="table-title">{selection.table.name.clone()}</h1>
                <code class="path" data-testid="table-path">{selection.table.path.clone()}</code>
                <span class="location" title="Location">{location}</span>
            </header>
            <nav class="tabs" role="tablist" aria-label="Table views">
                {Tab::ALL
                    .into_iter()
                    .map(|t| {
                        view! {
                            <button
                                class="tab"
                                role="tab"
                                class:active=move || tab.get() == t
                                aria-selected=move || (tab.get() == t).to_string()
                                data-testid=format!("tab-{}", t.id())
                                on:click=move |_| go(route, |r| r.tab = t)
                            >
                                {t.label()}
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
            <div class="tab-body" data-testid=move || format!("tab-body-{}", tab.get().id())>
                {move || {
                    let s = sel.get_value();
                    let t = tab.get();
                    let per_format = matches!(t, Tab::Overview | Tab::Schema | Tab::Snapshots | Tab::Files);
                    // Only the per-format tabs track the detection: re-creating another tab
                    // (e.g. Data, mid-load) when it completes would dispose it under its tasks.
                    let format = if per_format { iceberg.get() } else { None };
                    match (t, format) {
                        (_, None) if per_format => view! { <Busy text="Reading the table layout…" /> }.into_any(),
                        (Tab::Overview, Some(true)) => view! { <crate::iceberg_overview::IcebergOverview sel=s /> }.into_any(),
                        (Tab::Schema, Some(true)) => view! { <crate::iceberg_schema::IcebergSchemaTab sel=s /> }.into_any(),
                        (Tab::Snapshots, Some(true)) => view! { <crate::iceberg_snapshots::IcebergSnapshotsTab sel=s /> }.into_any(),
                        (Tab::Files, Some(true)) => view! { <crate::iceberg_files::IcebergFilesTab sel=s /> }.into_any(),
                        (Tab::Overview, _) => view! { <Overview sel=s /> }.into_any(),
                        (Tab::Schema, _) => view! { <SchemaTab sel=s /> }.into_any(),
                        (Tab::Snapshots, _) => view! { <crate::snapshots_tab::SnapshotsTab sel=s /> }.into_any(),
                        (Tab::Data, _) => view! { <crate::data_tab::DataTab sel=s /> }.into_any(),
                        (Tab::Diff, _) => view! { <crate::diff_tab::DiffTab sel=s /> }.into_any(),
                        (Tab::Files, _) => view! { <crate::files_tab::FilesTab sel=s /> }.into_any(),
                        (Tab::Sql, _) => view! { <crate::sql_tab::SqlTab starter=crate::sql_tab::table_starter(&s) /> }.into_any(),
                        (Tab::Ddl, _) => view! { <crate::ddl_tab::DdlTab sel=s /> }.into_any(),
                    }
                }}
            </div>
        </article>
    }
}

/// Metadata of a Paimon table for the Overview tab.
#[derive(Clone)]
struct OverviewData {
    schema: TableSchema,
    schemas: usize,
    latest: Option<Snapshot>,
    snapshots: usize,
    tags: Vec<String>,
}

/// Options with their Paimon defaults (shown even when unset).
const KNOWN_OPTIONS: &[(&str, &str, &str)] = &[
    ("bucket", "-1", "Storage"),
    ("bucket-key", "", "Storage"),
    ("file.format", "parquet", "Storage"),
    ("file.compression", "zstd", "Storage"),
    (
        "target-file-size",
        "128 mb (PK) / 256 mb (append)",
        "Storage",
    ),
    ("merge-engine", "deduplicate", "Merge"),
    ("changelog-producer", "none", "Merge"),
    ("sequence.field", "", "Merge"),
    ("rowkind.field", "", "Merge"),
    ("ignore-delete", "false", "Merge"),
    ("deletion-vectors.enabled", "false", "Merge"),
    ("snapshot.num-retained.min", "10", "Lifecycle"),
    ("snapshot.num-retained.max", "2147483647", "Lifecycle"),
    ("snapshot.time-retained", "1 h", "Lifecycle"),
    ("num-sorted-run.compaction-trigger", "5", "Compaction"),
    ("write-only", "false", "Compaction"),
];

fn bucket_mode(schema: &TableSchema) -> String {
    let bucket = schema
        .options
        .get("bucket")
        .and_then(|b| b.parse::<i32>().ok())
        .unwrap_or(-1);
    let pk = !schema.primary_keys.is_empty();
    match bucket {
        -1 if pk => "dynamic (bucket = -1)".into(),
        -1 => "unaware (bucket = -1)".into(),
        -2 => "postpone (bucket = -2)".into(),
        n => format!("fixed, {n} bucket{}", if n == 1 { "" } else { "s" }),
    }
}

#[component]
fn Overview(sel: Selection) -> impl IntoView {
    let data = RwSignal::new_local(Load::<OverviewData>::Loading("Reading metadata…".into()));
    let files = RwSignal::new_local(Load::<(usize, i64, i64)>::Loading("Listing files…".into()));
    let rows = RwSignal::new_local(Load::<usize>::Loading("Counting rows…".into()));
    let s2 = sel.clone();
    // Leaving the tab stops its reads (the row count scans the whole table): they must not
    // compete with the tab opened next, e.g. the Data tab's first rows.
    let (abort, registration) = AbortHandle::new_pair();
    on_cleanup(move || abort.abort());
    let work = async move {
        let sel = s2;
        let loaded = async {
            // The latest snapshot is read while the table opens, and shared with the Data tab.
            let (t, latest) = futures::join!(
                warehouse::table(&sel.table.path),
                warehouse::latest_snapshot(&sel.table.path)
            );
            let (t, latest) = (t?, latest?);
            let e = |e: lakescope_paimon::Error| e.to_string();
            // The count as Paimon's snapshotCount (listed files) and the latest snapshot only:
            // reading every snapshot would compete with the tab opened next.
            let (schemas, ids, tags) =
                futures::try_join!(t.schemas(), t.snapshot_ids(), t.tags()).map_err(e)?;
            Ok::<_, String>(OverviewData {
                schema: (**t.current_schema()).clone(),
                schemas: schemas.len(),
                latest,
                snapshots: ids.len(),
                tags: tags.into_iter().map(|(n, _)| n).collect(),
            })
        };
        let loaded = loaded.await;
        // The file and row counts describe the snapshot the badge shows (and need no second
        // read of the snapshot hint).
        let at = match &loaded {
            Ok(OverviewData {
                latest: Some(s), ..
            }) => Version::SnapshotId(s.id),
            _ => Version::Latest,
        };
        // The file listing's first reads (the manifest list, which the Data tab shares) go out
        // before the cards are drawn.
        let listing = scan_frame(&sel, Some("files"), at.clone());
        futures::pin_mut!(listing);
        let listed = futures::poll!(&mut listing);
        data.set(match loaded {
            Ok(d) => Load::Ready(d),
            Err(m) => Load::Failed(m),
        });
        let listed = match listed {
            std::task::Poll::Ready(listed) => listed,
            std::task::Poll::Pending => listing.await,
        };
        files.set(match listed {
            Ok(f) => {
                let (rc, sz) = (f.col("record_count"), f.col("file_size_in_bytes"));
                let mut records = 0;
                let mut size = 0;
                for r in 0..f.len() {
                    records += rc.and_then(|c| f.int(r, c)).unwrap_or(0);
                    size += sz.and_then(|c| f.int(r, c)).unwrap_or(0);
                }
                Load::Ready((f.len(), size, records))
            }
            Err(m) => Load::Failed(m),
        });
        // Logical rows: a full scan of one column (merged, deletes applied).
        let counted = async {
            let catalog = warehouse::catalog()?;
            let r = table_ref(&sel, None);
            let out = catalog
                .scan(
                    &r,
                    &ScanRequest {
                        at,
                        ..ScanRequest::default()
                    },
                )
                .await
                .map_err(|e| format!("Counting rows of {r} failed: {e}"))?;
            Ok::<_, String>(out.batches.iter().map(|b| b.num_rows()).sum())
        };
        rows.set(match counted.await {
            Ok(n) => Load::Ready(n),
            Err(m) => Load::Failed(m),
        });
    };
    spawn_local(async move {
        let _ = Abortable::new(work, registration).await;
    });
    let rows_view = move || match rows.get() {
        Load::Loading(t) => view! { <span class="muted">{t}</span> }.into_any(),
        Load::Ready(n) => view! { <span data-testid="row-count">{n.to_string()}</span> }.into_any(),
        Load::Failed(m) => view! { <span class="err-inline">{m}</span> }.into_any(),
    };
    let files_view = move || match files.get() {
        Load::Loading(t) => view! { <dd class="muted">{t}</dd> }.into_any(),
        Load::Ready((n, size, records)) => view! {
            <dd data-testid="file-stats">
                {format!("{n} files · {} · {records} rows in files", bytes(size))}
            </dd>
        }
        .into_any(),
        Load::Failed(m) => view! { <dd class="muted">{m}</dd> }.into_any(),
    };
    view! {
        <div class="overview" data-testid="overview">
            {move || match data.get() {
                Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
                Load::Failed(m) => view! { <ErrorPanel title="Cannot read this table" message=m /> }.into_any(),
                Load::Ready(d) => {
                    let s = &d.schema;
                    let opts = s.core_options();
                    let pk = !s.primary_keys.is_empty();
                    let kind = if pk { "Primary-key table" } else { "Append table" };
                    let engine = s.options.get("merge-engine").cloned().unwrap_or_else(|| "deduplicate".into());
                    let latest = d.latest.clone();
                    view! {
                        <div class="cards">
                            <section class="card">
                                <h2>"Table"</h2>
                                <dl class="facts">
                                    <dt>"Kind"</dt>
                                    <dd data-testid="table-kind">
                                        <span class=if pk { "badge kind-pk" } else { "badge kind-append" }>{kind}</span>
                                    </dd>
                                    <dt>"Primary key"</dt>
                                    <dd data-testid="primary-key">
                                        {if pk { s.primary_keys.join(", ") } else { "—".into() }}
                                    </dd>
                                    <dt>"Partition keys"</dt>
                                    <dd data-testid="partition-keys">
                                        {if s.partition_keys.is_empty() { "— (unpartitioned)".into() } else { s.partition_keys.join(", ") }}
                                    </dd>
                                    <dt>"Bucket mode"</dt>
                                    <dd data-testid="bucket-mode">{bucket_mode(s)}</dd>
                                    <dt>"Merge engine"</dt>
                                    <dd data-testid="merge-engine">{if pk { engine } else { "— (append)".into() }}</dd>
                                    <dt>"Changelog"</dt>
                                    <dd>{s.options.get("changelog-producer").cloned().unwrap_or_else(|| "none".into())}</dd>
                                    <dt>"File format"</dt>
                                    <dd data-testid="file-format">{opts.file_format()}</dd>
                                    <dt>"Comment"</dt>
                                    <dd data-testid="table-comment">{s.comment.clone().unwrap_or_else(|| "—".into())}</dd>
                                </dl>
                            </section>
                            <section class="card">
                                <h2>"Contents"</h2>
                                <dl class="facts">
                                    <dt>"Rows"</dt>
                                    <dd>{rows_view}</dd>
                                    <dt>"Files"</dt>
                                    {files_view}
                                    <dt>"Snapshots"</dt>
                                    <dd data-testid="snapshot-count">
                                        {format!("{}{}", d.snapshots, if d.tags.is_empty() { String::new() } else { format!(" · tags: {}", d.tags.join(", ")) })}
                                    </dd>
                                    <dt>"Schema"</dt>
                                    <dd>{format!("schema-{} ({} version{})", s.id, d.schemas, if d.schemas == 1 { "" } else { "s" })}</dd>
                                    <dt>"Last commit"</dt>
                                    <dd data-testid="last-commit">
                                        {match &latest {
                                            Some(l) => format!("#{} · {} · {:?} · by {}", l.id, time(l.time_millis), l.commit_kind, l.commit_user),
                                            None => "no snapshot yet".into(),
                                        }}
                                    </dd>
                                </dl>
                            </section>
                        </div>
                        <OptionsTable options=s.options.clone() />
                    }
                        .into_any()
                }
            }}
        </div>
    }
}

#[component]
fn OptionsTable(options: BTreeMap<String, String>) -> impl IntoView {
    let mut rows: Vec<(String, String, &'static str, String, bool)> = Vec::new();
    for (key, default, group) in KNOWN_OPTIONS {
        let set = options.get(*key);
        let value = set.cloned().unwrap_or_else(|| default.to_string());
        let non_default = set.is_some_and(|v| v != default);
        rows.push((
            key.to_string(),
            value,
            group,
            default.to_string(),
            non_default,
        ));
    }
    for (k, v) in &options {
        if !KNOWN_OPTIONS.iter().any(|(key, _, _)| key == k) {
            rows.push((k.clone(), v.clone(), "Other", String::new(), true));
        }
    }
    rows.sort_by(|a, b| (a.2, &a.0).cmp(&(b.2, &b.0)));
    view! {
        <section class="card wide">
            <h2>"Options " <span class="muted">"(highlighted: set on this table, not the default)"</span></h2>
            <table class="tbl" data-testid="options-table">
                <thead><tr><th>"Group"</th><th>"Key"</th><th>"Value"</th><th>"Default"</th></tr></thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|(k, v, g, d, nd)| {
                            let key = k.clone();
                            view! {
                            <tr class:non-default=nd data-option=key>
                                <td class="muted">{g}</td>
                                <td><code>{k}</code></td>
                                <td class="mono">{v}</td>
                                <td class="muted mono">{if d.is_empty() { "—".into() } else { d }}</td>
                            </tr>
                        }})
                        .collect_view()}
                </tbody>
            </table>
        </section>
    }
}

/// One change between two schema versions, matched by field id.
pub(crate) fn schema_changes(old: &TableSchema, new: &TableSchema) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for f in &new.fields {
        match old.field_by_id(f.id) {
            None => out.push(("added", format!("{} {} (id {})", f.name, f.data_type, f.id))),
            Some(o) => {
                if o.name != f.name {
                    out.push(("renamed", format!("{} → {} (id {})", o.name, f.name, f.id)));
                }
                if o.data_type != f.data_type {
                    out.push((
                        "retyped",
                        format!("{}: {} → {}", f.name, o.data_type, f.data_type),
                    ));
                }
                if o.description != f.description {
                    out.push(("comment", format!("{}: comment changed", f.name)));
                }
            }
        }
    }
    for o in &old.fields {
        if new.field_by_id(o.id).is_none() {
            out.push((
                "dropped",
                format!("{} {} (id {})", o.name, o.data_type, o.id),
            ));
        }
    }
    for (k, v) in &new.options {
        match old.options.get(k) {
            None => out.push(("option", format!("set {k} = {v}"))),
            Some(ov) if ov != v => out.push(("option", format!("{k}: {ov} → {v}"))),
            _ => {}
        }
    }
    for k in old.options.keys() {
        if !new.options.contains_key(k) {
            out.push(("option", format!("reset {k}")));
        }
    }
    out
}

#[component]
fn SchemaTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let schemas = RwSignal::new_local(Load::<Vec<TableSchema>>::Loading(
        "Reading schema files…".into(),
    ));
    let path = sel.table.path.clone();
    spawn_local(async move {
        let loaded = async {
            let t = warehouse::table(&path).await?;
            let list = t.schemas().await.map_err(|e| e.to_string())?;
            Ok::<_, String>(list.into_iter().map(|s| (*s).clone()).collect::<Vec<_>>())
        };
        schemas.set(match loaded.await {
            Ok(l) => Load::Ready(l),
            Err(m) => Load::Failed(m),
        });
    });
    move || match schemas.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot read the schema" message=m /> }.into_any()
        }
        Load::Ready(list) => {
            let latest = list.last().map(|s| s.id).unwrap_or(0);
            let chosen = route.with(|r| r.schema).unwrap_or(latest);
            let Some(idx) = list.iter().position(|s| s.id == chosen) else {
                return view! { <ErrorPanel title="No such schema" message=format!("schema-{chosen} does not exist") /> }.into_any();
            };
            let s = list[idx].clone();
            let changes = if idx > 0 {
                schema_changes(&list[idx - 1], &s)
            } else {
                Vec::new()
            };
            let pks = s.primary_keys.clone();
            let parts = s.partition_keys.clone();
            let history = list
                .iter()
                .enumerate()
                .rev()
                .map(|(i, v)| {
                    let id = v.id;
                    let summary = if i == 0 {
                        format!("created with {} columns", v.fields.len())
                    } else {
                        let c = schema_changes(&list[i - 1], v);
                        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
                        for (k, _) in &c {
                            *counts.entry(k).or_default() += 1;
                        }
                        if counts.is_empty() {
                            "no column changes".into()
                        } else {
                            counts
                                .iter()
                                .map(|(k, n)| format!("{n} {k}"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        }
                    };
                    view! {
                        <li>
                            <button
                                class="hist"
                                class:selected=id == chosen
                                data-testid="schema-version"
                                data-schema=id
                                on:click=move |_| go(route, |r| r.schema = Some(id))
                            >
                                <span class="hist-id">{format!("schema-{id}")}</span>
                                <span class="muted">{time(v.time_millis)}</span>
                                <span class="hist-sum">{summary}</span>
                            </button>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="split">
                    <section class="card grow1">
                        <h2>{format!("Fields of schema-{}", s.id)} <span class="muted">{format!(" · highest field id {}", s.highest_field_id)}</span></h2>
                        <table class="tbl" data-testid="schema-fields">
                            <thead><tr><th>"id"</th><th>"name"</th><th>"type"</th><th>"null"</th><th>"key"</th><th>"comment"</th></tr></thead>
                            <tbody>
                                {s.fields.iter().map(|f| {
                                    let nullable = f.data_type.to_string().ends_with("NOT NULL");
                                    let key = match (pks.contains(&f.name), parts.contains(&f.name)) {
                                        (true, true) => "PK, partition",
                                        (true, false) => "PK",
                                        (false, true) => "partition",
                                        _ => "",
                                    };
                                    view! {
                                        <tr data-field=f.name.clone()>
                                            <td class="mono muted">{f.id}</td>
                                            <td class="mono strong">{f.name.clone()}</td>
                                            <td class="mono type">{f.data_type.to_string().trim_end_matches(" NOT NULL").to_string()}</td>
                                            <td>{if nullable { "NOT NULL" } else { "nullable" }}</td>
                                            <td>{key}</td>
                                            <td class="comment">{f.description.clone().unwrap_or_default()}</td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                        <h2>{if idx == 0 { "Initial version".to_string() } else { format!("Changes from schema-{} to schema-{}", list[idx - 1].id, s.id) }}</h2>
                        <ul class="changes" data-testid="schema-diff">
                            {if idx == 0 {
                                view! { <li class="muted">"The table was created with this schema."</li> }.into_any()
                            } else if changes.is_empty() {
                                view! { <li class="muted">"No changes to columns or options."</li> }.into_any()
                            } else {
                                changes.into_iter().map(|(k, t)| view! {
                                    <li data-change=k><span class=format!("chg chg-{k}")>{k}</span>" "<span class="mono">{t}</span></li>
                                }).collect_view().into_any()
                            }}
                        </ul>
                    </section>
                    <section class="card side">
                        <h2>"History"</h2>
                        <ul class="history" data-testid="schema-history">{history}</ul>
                    </section>
                </div>
            }
                .into_any()
        }
    }
}

/// Shown while no table is selected.
#[component]
pub fn Welcome(state: RwSignal<LoadState>) -> impl IntoView {
    let route = use_route();
    view! {
        <div class="welcome" data-testid="welcome">
            <h1>"Explore a Paimon lake"</h1>
            <p>
                {move || match state.get() {
                    LoadState::Loaded(w) if w.table_count() > 0 => {
                        "Pick a table in the catalog on the left: overview, schema history, snapshots, data, diffs and files."
                            .to_string()
                    }
                    LoadState::Failed(_) => {
                        "Enter the URL of a warehouse folder above and press Open, or go back to the demo lake."
                            .to_string()
                    }
                    _ => "Open a warehouse to list its databases and tables.".to_string(),
                }}
            </p>
            <p class="hint">
                "Everything runs in this tab: files are fetched straight from the host, nothing is uploaded. Press / to filter."
            </p>
            {move || matches!(state.get(), LoadState::Loaded(_)).then(|| view! {
                <p>
                    <button class="btn" data-testid="open-console"
                        on:click=move |_| go(route, |r| r.tab = Tab::Sql)>
                        "Open the SQL console"
                    </button>
                    <span class="muted">" Flink SQL over the whole warehouse: create databases and tables, query across them."</span>
                </p>
            })}
        </div>
    }
}
