//! The Overview tab of a table of either format (`lakescope_engine::table::Overview`): its keys,
//! current snapshot and counts, the facts only its format has, and its options or properties.

use crate::app::Selection;
use crate::state::warehouse;
use crate::tabs::panel::{scan_frame, table_ref};
use crate::tabs::schema::schema_name;
use crate::util::{bytes, time, Busy, ErrorPanel, Load};
use futures::future::{AbortHandle, Abortable};
use lakescope_engine::format_types::TableInfo;
use lakescope_engine::scan::ScanRequest;
use lakescope_engine::table::{CommitDetail, Format, Overview, OverviewDetail};
use lakescope_engine::Version;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::BTreeMap;

/// Paimon options with their defaults (shown even when unset).
const PAIMON_OPTIONS: &[(&str, &str, &str)] = &[
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

/// A Paimon table's bucket mode, from its `bucket` option.
fn bucket_mode(o: &Overview) -> String {
    let bucket = o
        .properties
        .get("bucket")
        .and_then(|b| b.parse::<i32>().ok())
        .unwrap_or(-1);
    match bucket {
        -1 if !o.primary_keys.is_empty() => "dynamic (bucket = -1)".into(),
        -1 => "unaware (bucket = -1)".into(),
        -2 => "postpone (bucket = -2)".into(),
        n => format!("fixed, {n} bucket{}", if n == 1 { "" } else { "s" }),
    }
}

/// `APPEND`, `append` → `Append`.
fn title_case(kind: &str) -> String {
    let lower = kind.to_lowercase();
    let mut chars = lower.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn opt(v: Option<i64>) -> String {
    v.map_or_else(|| "—".into(), |n| n.to_string())
}

fn or_dash(list: &[String], empty: &str) -> String {
    if list.is_empty() {
        empty.to_string()
    } else {
        list.join(", ")
    }
}

/// Reads the overview, then the file listing (Paimon) and the row count of its current snapshot.
async fn load(
    sel: Selection,
    data: RwSignal<Load<Overview>, LocalStorage>,
    files: RwSignal<Load<(usize, i64, i64)>, LocalStorage>,
    rows: RwSignal<Load<usize>, LocalStorage>,
) {
    let path = sel.table.path.clone();
    let loaded = async {
        let format = warehouse::format(&path).await;
        // A Paimon table's latest snapshot is read while the table opens, and shared with
        // the Data tab.
        let latest = async {
            match format {
                Format::Paimon => warehouse::latest_snapshot(&path).await,
                Format::Iceberg => Ok(None),
            }
        };
        let (t, latest) = futures::join!(warehouse::any_table(&path), latest);
        let overview = t?.overview_with_latest(latest?).await;
        overview.map_err(|e| e.to_string())
    };
    let loaded = loaded.await;
    // The file and row counts describe the snapshot the overview shows.
    let at = match &loaded {
        Ok(Overview {
            current: Some(c), ..
        }) => Version::SnapshotId(c.id),
        _ => Version::Latest,
    };
    let paimon = matches!(&loaded, Ok(o) if o.format == Format::Paimon);
    // The file listing's first reads (the manifest list, which the Data tab shares) go out
    // before the cards are drawn.
    let files_at = at.clone();
    let listing = async {
        if !paimon {
            return None;
        }
        Some(scan_frame(&sel, Some("files"), files_at).await)
    };
    futures::pin_mut!(listing);
    let listed = futures::poll!(&mut listing);
    data.set(loaded.map_or_else(Load::Failed, Load::Ready));
    let listed = match listed {
        std::task::Poll::Ready(listed) => listed,
        std::task::Poll::Pending => listing.await,
    };
    if let Some(listed) = listed {
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
    }
    // Logical rows: a full scan (merged, deletes applied).
    let counted = async {
        let r = table_ref(&sel, None);
        let request = ScanRequest {
            at,
            ..ScanRequest::default()
        };
        let out = warehouse::catalog()?
            .scan(&r, &request)
            .await
            .map_err(|e| format!("Counting rows of {r} failed: {e}"))?;
        Ok::<_, String>(out.batches.iter().map(|b| b.num_rows()).sum())
    };
    rows.set(counted.await.map_or_else(Load::Failed, Load::Ready));
}

#[component]
pub fn OverviewTab(sel: Selection) -> impl IntoView {
    let data = RwSignal::new_local(Load::<Overview>::Loading("Reading metadata…".into()));
    let files = RwSignal::new_local(Load::<(usize, i64, i64)>::Loading("Listing files…".into()));
    let rows = RwSignal::new_local(Load::<usize>::Loading("Counting rows…".into()));
    // Leaving the tab stops its reads (the row count scans the whole table): they must not
    // compete with the tab opened next, e.g. the Data tab's first rows.
    let (abort, registration) = AbortHandle::new_pair();
    on_cleanup(move || abort.abort());
    let work = load(sel, data, files, rows);
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
                Load::Ready(o) => {
                    let info = match &o.detail {
                        OverviewDetail::Iceberg(info) => Some((**info).clone()),
                        OverviewDetail::Paimon { .. } => None,
                    };
                    let files = match &info {
                        None => view! { <dt>"Files"</dt> {files_view} }.into_any(),
                        Some(info) => iceberg_contents(info).into_any(),
                    };
                    view! {
                        <div class="cards">
                            <section class="card">
                                <h2>"Table"</h2>
                                <dl class="facts">{table_facts(&o, info.as_ref())}</dl>
                            </section>
                            <section class="card">
                                <h2>"Contents"</h2>
                                <dl class="facts">
                                    <dt>"Rows"</dt>
                                    <dd>{rows_view}</dd>
                                    {files}
                                    {contents(&o, info.as_ref())}
                                </dl>
                            </section>
                        </div>
                        <OptionsTable format=o.format options=o.properties.clone() />
                    }
                        .into_any()
                }
            }}
        </div>
    }
}

/// The Table card: the format, keys and comment, and the facts of the table's format.
fn table_facts(o: &Overview, info: Option<&TableInfo>) -> impl IntoView {
    let pk = !o.primary_keys.is_empty();
    let partition = or_dash(&o.partition_keys, "— (unpartitioned)");
    let kind = match (info, pk) {
        (Some(_), _) => view! { <span class="badge kind-iceberg">"Apache Iceberg"</span> },
        (None, true) => view! { <span class="badge kind-pk">"Primary-key table"</span> },
        (None, false) => view! { <span class="badge kind-append">"Append table"</span> },
    };
    let format_facts = match info {
        None => {
            let option = |k: &str, default: &str| {
                o.properties.get(k).cloned().unwrap_or_else(|| default.into())
            };
            let file_format = match &o.detail {
                OverviewDetail::Paimon { file_format } => file_format.clone(),
                OverviewDetail::Iceberg(_) => String::new(),
            };
            view! {
                <dt>"Bucket mode"</dt>
                <dd data-testid="bucket-mode">{bucket_mode(o)}</dd>
                <dt>"Merge engine"</dt>
                <dd data-testid="merge-engine">{if pk { option("merge-engine", "deduplicate") } else { "— (append)".into() }}</dd>
                <dt>"Changelog"</dt>
                <dd>{option("changelog-producer", "none")}</dd>
                <dt>"File format"</dt>
                <dd data-testid="file-format">{file_format}</dd>
            }
            .into_any()
        }
        Some(d) => view! {
            <dt>"Format version"</dt>
            <dd data-testid="format-version">{format!("v{}", d.format_version)}</dd>
            <dt>"Location"</dt>
            <dd class="mono wrap" data-testid="iceberg-location" title=d.location.clone()>{d.location.clone()}</dd>
            <dt>"Metadata file"</dt>
            <dd class="mono ellipsis" title=d.metadata_file.clone()>{d.metadata_file.rsplit('/').next().unwrap_or_default().to_string()}</dd>
            <dt>"Table UUID"</dt>
            <dd class="mono">{d.table_uuid.clone().unwrap_or_else(|| "—".into())}</dd>
            <dt>"Last updated"</dt>
            <dd>{time(d.last_updated_ms)}</dd>
        }
        .into_any(),
    };
    let partition = match info {
        Some(d) => format!("spec {} · {partition}", d.default_spec_id),
        None => partition,
    };
    view! {
        <dt>"Kind"</dt>
        <dd data-testid="table-kind">{kind}</dd>
        <dt>{if info.is_some() { "Identifier fields" } else { "Primary key" }}</dt>
        <dd data-testid="primary-key">{or_dash(&o.primary_keys, "—")}</dd>
        <dt>"Partition keys"</dt>
        <dd data-testid="partition-keys">{partition}</dd>
        {format_facts}
        <dt>"Comment"</dt>
        <dd data-testid="table-comment">{o.comment.clone().unwrap_or_else(|| "—".into())}</dd>
    }
}

/// An Iceberg table's data and delete files, from its current snapshot's summary.
fn iceberg_contents(d: &TableInfo) -> impl IntoView {
    let cur = d.current_snapshot().cloned();
    view! {
        <dt>"Data files"</dt>
        <dd data-testid="file-stats">
            {cur.as_ref().map_or_else(|| "no snapshot yet".into(), |s| format!(
                "{} · {} records · {}", opt(s.total_data_files), opt(s.total_records),
                s.total_files_size.map_or_else(|| "size unknown".into(), bytes)))}
        </dd>
        <dt>"Delete files"</dt>
        <dd data-testid="delete-stats">
            {cur.as_ref().map_or_else(|| "—".into(), |s| format!(
                "{} · {} position / {} equality deletes",
                opt(s.total_delete_files), opt(s.total_position_deletes), opt(s.total_equality_deletes)))}
        </dd>
    }
}

/// The Contents card's versions: snapshots, tags, schemas, the last commit (Iceberg: its specs
/// and refs too).
fn contents(o: &Overview, info: Option<&TableInfo>) -> impl IntoView {
    let tags = if o.tags.is_empty() {
        String::new()
    } else {
        format!(" · tags: {}", o.tags.join(", "))
    };
    let last = match &o.current {
        None => "no snapshot yet".to_string(),
        Some(c) => {
            let by = match &c.detail {
                CommitDetail::Paimon { commit_user, .. } => {
                    format!(" · by {commit_user}")
                }
                CommitDetail::Iceberg(_) => String::new(),
            };
            format!(
                "#{} · {} · {}{by}",
                c.id,
                time(c.time_millis),
                title_case(&c.kind)
            )
        }
    };
    let versions = if o.schema_count == 1 { "" } else { "s" };
    let iceberg = info.map(|d| {
        view! {
            <dt>"Partition specs"</dt>
            <dd data-testid="spec-count">{d.specs.len().to_string()}</dd>
            <dt>"Refs"</dt>
            <dd data-testid="refs">
                {d.refs.iter().map(|r| view! {
                    <span class="tag" title=format!("{} → snapshot {}", r.kind, r.snapshot_id)>{format!("{} {}", r.kind, r.name)}</span>
                }).collect_view()}
            </dd>
        }
    });
    view! {
        <dt>"Snapshots"</dt>
        <dd data-testid="snapshot-count">{format!("{}{tags}", o.snapshot_count)}</dd>
        <dt>"Schema"</dt>
        <dd data-testid="schema-count">{format!("{} ({} version{versions})", schema_name(o.format, o.schema_id), o.schema_count)}</dd>
        <dt>"Last commit"</dt>
        <dd data-testid="last-commit">{last}</dd>
        {iceberg}
    }
}

/// The options (Paimon, with the defaults of the known ones) or properties (Iceberg) of a table.
#[component]
fn OptionsTable(format: Format, options: BTreeMap<String, String>) -> impl IntoView {
    let known = match format {
        Format::Paimon => PAIMON_OPTIONS,
        Format::Iceberg => &[],
    };
    let mut rows: Vec<(String, String, &'static str, String, bool)> = Vec::new();
    for (key, default, group) in known {
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
        if !known.iter().any(|(key, _, _)| key == k) {
            rows.push((k.clone(), v.clone(), "Other", String::new(), true));
        }
    }
    rows.sort_by(|a, b| (a.2, &a.0).cmp(&(b.2, &b.0)));
    let title = match format {
        Format::Paimon => "Options ",
        Format::Iceberg => "Properties ",
    };
    let empty = rows.is_empty().then(|| {
        view! { <tr><td class="muted" colspan="4">"No properties set."</td></tr> }
    });
    view! {
        <section class="card wide">
            <h2>{title} <span class="muted">"(highlighted: set on this table, not the default)"</span></h2>
            <table class="tbl" data-testid="options-table">
                <thead><tr><th>"Group"</th><th>"Key"</th><th>"Value"</th><th>"Default"</th></tr></thead>
                <tbody>
                    {empty}
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
