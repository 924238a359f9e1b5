//! The Overview tab of a table of either format (`lakescope_engine::table::Overview`): its keys,
//! current snapshot and counts, the facts only its format has, and its options or properties.

mod cards;
mod options;

use crate::app::Selection;
use crate::state::tab_load::{settled, tab_resource};
use crate::state::warehouse;
use crate::tabs::panel::{scan_frame, table_ref};
use crate::util::{bytes, Busy, ErrorPanel};
use cards::{contents, iceberg_contents, table_facts};
use lakescope_engine::scan::ScanRequest;
use lakescope_engine::table::{Format, Overview, OverviewDetail};
use lakescope_engine::Version;
use leptos::prelude::*;
use options::OptionsTable;

/// Reads the overview of the table at `path`.
async fn read_overview(path: &str) -> Result<Overview, String> {
    let format = warehouse::format(path).await;
    // A Paimon table's latest snapshot is read while the table opens, and shared with the Data tab.
    let latest = async {
        match format {
            Format::Paimon => warehouse::latest_snapshot(path).await,
            Format::Iceberg => Ok(None),
        }
    };
    let (t, latest) = futures::join!(warehouse::any_table(path), latest);
    t?.overview_with_latest(latest?)
        .await
        .map_err(|e| e.to_string())
}

/// The snapshot an overview shows (the file and row counts describe it).
fn shown_snapshot(overview: &Result<Overview, String>) -> Version {
    match overview {
        Ok(Overview {
            current: Some(c), ..
        }) => Version::SnapshotId(c.id),
        _ => Version::Latest,
    }
}

/// A Paimon table's live files at `at`: (files, bytes, records in files), from `$files`.
async fn file_counts(sel: &Selection, at: Version) -> Result<(usize, i64, i64), String> {
    let f = scan_frame(sel, Some("files"), at).await?;
    let (rc, sz) = (f.col("record_count"), f.col("file_size_in_bytes"));
    let mut records = 0;
    let mut size = 0;
    for r in 0..f.len() {
        records += rc.and_then(|c| f.int(r, c)).unwrap_or(0);
        size += sz.and_then(|c| f.int(r, c)).unwrap_or(0);
    }
    Ok((f.len(), size, records))
}

/// The logical rows at `at`: a full scan (merged, deletes applied).
async fn row_count(sel: &Selection, at: Version) -> Result<usize, String> {
    let r = table_ref(sel, None);
    let request = ScanRequest {
        at,
        ..ScanRequest::default()
    };
    let out = warehouse::catalog()?
        .scan(&r, &request)
        .await
        .map_err(|e| format!("Counting rows of {r} failed: {e}"))?;
    Ok(out.batches.iter().map(|b| b.num_rows()).sum())
}

#[component]
pub fn OverviewTab(sel: Selection) -> impl IntoView {
    let sel = StoredValue::new(sel);
    // Three loads, one after the other: the overview, then (Paimon) the file listing, whose
    // first reads the Data tab shares, then the row count. Leaving the tab stops them.
    let overview = tab_resource(move || {
        let path = sel.with_value(|s| s.table.path.clone());
        async move { read_overview(&path).await }
    });
    let files: FilesLoad = tab_resource(move || {
        let sel = sel.get_value();
        async move {
            let o = settled(overview).await;
            let paimon = matches!(&o, Ok(o) if o.format == Format::Paimon);
            match paimon {
                true => Some(file_counts(&sel, shown_snapshot(&o)).await),
                false => None,
            }
        }
    });
    let rows: RowsLoad = tab_resource(move || {
        let sel = sel.get_value();
        async move {
            let at = shown_snapshot(&settled(overview).await);
            let _listed = settled(files).await;
            row_count(&sel, at).await
        }
    });
    view! {
        <div class="overview" data-testid="overview">
            <Suspense fallback=|| view! { <Busy text="Reading metadata…".to_string() /> }>
                {move || Suspend::new(async move {
                    match overview.await {
                        Err(m) => view! { <ErrorPanel title="Cannot read this table" message=m /> }.into_any(),
                        Ok(o) => overview_view(o, rows, files),
                    }
                })}
            </Suspense>
        </div>
    }
}

/// The Table and Contents cards and the options of a table's overview.
fn overview_view(o: Overview, rows: RowsLoad, files: FilesLoad) -> AnyView {
    let info = match &o.detail {
        OverviewDetail::Iceberg(info) => Some((**info).clone()),
        OverviewDetail::Paimon { .. } => None,
    };
    let files = match &info {
        None => view! { <dt>"Files"</dt> <FileCount files /> }.into_any(),
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
                    <dd><RowCount rows /></dd>
                    {files}
                    {contents(&o, info.as_ref())}
                </dl>
            </section>
        </div>
        <OptionsTable format=o.format options=o.properties.clone() />
    }
    .into_any()
}

/// The row count's load.
type RowsLoad = LocalResource<Result<usize, String>>;

/// The file listing's load: (files, bytes, records) of a Paimon table; `None` for Iceberg.
type FilesLoad = LocalResource<Option<Result<(usize, i64, i64), String>>>;

/// The Contents card's row count, once counted.
#[component]
fn RowCount(rows: RowsLoad) -> impl IntoView {
    view! {
        <Suspense fallback=|| view! { <span class="muted">"Counting rows…"</span> }>
            {move || Suspend::new(async move {
                match rows.await {
                    Ok(n) => view! { <span data-testid="row-count">{n.to_string()}</span> }.into_any(),
                    Err(m) => view! { <span class="err-inline">{m}</span> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// The Contents card's file counts of a Paimon table, once listed.
#[component]
fn FileCount(files: FilesLoad) -> impl IntoView {
    view! {
        <Suspense fallback=|| view! { <dd class="muted">"Listing files…"</dd> }>
            {move || Suspend::new(async move {
                match files.await {
                    Some(Ok((n, size, records))) => view! {
                        <dd data-testid="file-stats">
                            {format!("{n} files · {} · {records} rows in files", bytes(size))}
                        </dd>
                    }
                    .into_any(),
                    Some(Err(m)) => view! { <dd class="muted">{m}</dd> }.into_any(),
                    None => ().into_any(),
                }
            })}
        </Suspense>
    }
}
