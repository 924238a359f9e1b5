//! The Overview tab of an Iceberg table: format, location, current snapshot, counts, refs and
//! properties (from `lakescope_iceberg::inspect`), plus the live row count of a scan.

use crate::app::Selection;
use crate::table_panel::table_ref;
use crate::util::{bytes, time, Busy, ErrorPanel, Load};
use crate::warehouse;
use lakescope_engine::scan::ScanRequest;
use lakescope_iceberg::inspect::{table_info, TableInfo};
use lakescope_iceberg::Table;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Opens the selected Iceberg table.
pub async fn open_table(sel: &Selection) -> Result<Table, String> {
    warehouse::iceberg_table(&sel.table.path).await
}

/// The metadata of the selected Iceberg table, loaded into `target`.
pub fn load_info(sel: &Selection, target: RwSignal<Load<TableInfo>, LocalStorage>) {
    let sel = sel.clone();
    spawn_local(async move {
        target.set(match open_table(&sel).await {
            Ok(t) => Load::Ready(table_info(&t)),
            Err(m) => Load::Failed(m),
        });
    });
}

/// `append` → the chart/legend class of an operation.
pub fn operation_class(op: &str) -> &'static str {
    match op {
        "append" => "k-append",
        "replace" => "k-compact",
        "overwrite" => "k-overwrite",
        "delete" => "k-delete",
        _ => "k-analyze",
    }
}

fn opt(v: Option<i64>) -> String {
    v.map_or_else(|| "—".into(), |n| n.to_string())
}

#[component]
pub fn IcebergOverview(sel: Selection) -> impl IntoView {
    let info = RwSignal::new_local(Load::<TableInfo>::Loading("Reading metadata…".into()));
    let rows = RwSignal::new_local(Load::<usize>::Loading("Counting rows…".into()));
    load_info(&sel, info);
    spawn_local(async move {
        let counted = async {
            let r = table_ref(&sel, None);
            let out = warehouse::catalog()?
                .scan(&r, &ScanRequest::default())
                .await
                .map_err(|e| format!("Counting rows of {r} failed: {e}"))?;
            Ok::<_, String>(out.batches.iter().map(|b| b.num_rows()).sum())
        };
        rows.set(match counted.await {
            Ok(n) => Load::Ready(n),
            Err(m) => Load::Failed(m),
        });
    });
    let rows_view = move || match rows.get() {
        Load::Loading(t) => view! { <span class="muted">{t}</span> }.into_any(),
        Load::Ready(n) => view! { <span data-testid="row-count">{n.to_string()}</span> }.into_any(),
        Load::Failed(m) => view! { <span class="err-inline">{m}</span> }.into_any(),
    };
    move || match info.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot read this Iceberg table" message=m /> }.into_any()
        }
        Load::Ready(d) => {
            let cur = d.current_snapshot().cloned();
            let spec = d.specs.iter().find(|s| s.is_default).map(|s| {
                if s.fields.is_empty() {
                    "— (unpartitioned)".to_string()
                } else {
                    s.fields
                        .iter()
                        .map(|f| {
                            format!(
                                "{}({})",
                                f.transform,
                                f.source_name
                                    .clone()
                                    .unwrap_or_else(|| f.source_id.to_string())
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            });
            let ident = d.current_schema().map(|s| {
                let names: Vec<String> = s
                    .fields
                    .iter()
                    .filter(|f| f.identifier)
                    .map(|f| f.name.clone())
                    .collect();
                if names.is_empty() {
                    "—".to_string()
                } else {
                    names.join(", ")
                }
            });
            let props = d.properties.clone();
            view! {
                <div class="overview" data-testid="overview">
                    <div class="cards">
                        <section class="card">
                            <h2>"Table"</h2>
                            <dl class="facts">
                                <dt>"Format"</dt>
                                <dd data-testid="table-kind"><span class="badge kind-iceberg">"Apache Iceberg"</span></dd>
                                <dt>"Format version"</dt>
                                <dd data-testid="format-version">{format!("v{}", d.format_version)}</dd>
                                <dt>"Location"</dt>
                                <dd class="mono wrap" data-testid="iceberg-location" title=d.location.clone()>{d.location.clone()}</dd>
                                <dt>"Metadata file"</dt>
                                <dd class="mono ellipsis" title=d.metadata_file.clone()>{d.metadata_file.rsplit('/').next().unwrap_or_default().to_string()}</dd>
                                <dt>"Table UUID"</dt>
                                <dd class="mono">{d.table_uuid.clone().unwrap_or_else(|| "—".into())}</dd>
                                <dt>"Partitioning"</dt>
                                <dd data-testid="partition-keys">{format!("spec {} · {}", d.default_spec_id, spec.unwrap_or_default())}</dd>
                                <dt>"Identifier fields"</dt>
                                <dd data-testid="primary-key">{ident.unwrap_or_default()}</dd>
                                <dt>"Last updated"</dt>
                                <dd>{time(d.last_updated_ms)}</dd>
                            </dl>
                        </section>
                        <section class="card">
                            <h2>"Contents"</h2>
                            <dl class="facts">
                                <dt>"Rows"</dt>
                                <dd>{rows_view}</dd>
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
                                <dt>"Snapshots"</dt>
                                <dd data-testid="snapshot-count">{d.snapshots.len().to_string()}</dd>
                                <dt>"Schemas"</dt>
                                <dd data-testid="schema-count">{format!("{} (current: {})", d.schemas.len(), d.current_schema_id)}</dd>
                                <dt>"Partition specs"</dt>
                                <dd data-testid="spec-count">{d.specs.len().to_string()}</dd>
                                <dt>"Current snapshot"</dt>
                                <dd class="mono" data-testid="last-commit">
                                    {cur.as_ref().map_or_else(|| "no snapshot yet".into(), |s| s.id.to_string())}
                                </dd>
                                <dt>"Committed"</dt>
                                <dd data-testid="last-operation">
                                    {cur.as_ref().map_or_else(|| "—".into(), |s| format!("{} · {}", s.operation, time(s.timestamp_ms)))}
                                </dd>
                                <dt>"Refs"</dt>
                                <dd data-testid="refs">
                                    {d.refs.iter().map(|r| view! {
                                        <span class="tag" title=format!("{} → snapshot {}", r.kind, r.snapshot_id)>{format!("{} {}", r.kind, r.name)}</span>
                                    }).collect_view()}
                                </dd>
                            </dl>
                        </section>
                    </div>
                    <section class="card wide">
                        <h2>"Properties"</h2>
                        <table class="tbl" data-testid="options-table">
                            <thead><tr><th>"Key"</th><th>"Value"</th></tr></thead>
                            <tbody>
                                {if props.is_empty() {
                                    view! { <tr><td class="muted" colspan="2">"No properties set."</td></tr> }.into_any()
                                } else {
                                    props.into_iter().map(|(k, v)| { let key = k.clone(); view! {
                                        <tr data-option=key><td><code>{k}</code></td><td class="mono">{v}</td></tr>
                                    }}).collect_view().into_any()
                                }}
                            </tbody>
                        </table>
                    </section>
                </div>
            }
            .into_any()
        }
    }
}
