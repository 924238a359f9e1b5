//! The Overview tab of a table of either format (`lakescope_engine::table::Overview`): its keys,
//! current snapshot and counts, the facts only its format has, and its options or properties.

mod cards;
mod options;

use crate::app::Selection;
use crate::state::warehouse;
use crate::tabs::panel::{scan_frame, table_ref};
use crate::util::{bytes, Busy, ErrorPanel, Load};
use cards::{contents, iceberg_contents, table_facts};
use futures::future::{AbortHandle, Abortable};
use lakescope_engine::scan::ScanRequest;
use lakescope_engine::table::{Format, Overview, OverviewDetail};
use lakescope_engine::Version;
use leptos::prelude::*;
use leptos::task::spawn_local;
use options::OptionsTable;

/// Reads the overview of the table at `path`, of the `format` its catalog entry gives.
async fn read_overview(path: &str, format: Format) -> Result<Overview, String> {
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

/// What the tab shows as it is read: the overview, the file listing (Paimon), the row count.
#[derive(Clone, Copy)]
struct Loads {
    overview: RwSignal<Load<Overview>, LocalStorage>,
    files: RwSignal<Load<(usize, i64, i64)>, LocalStorage>,
    rows: RwSignal<Load<usize>, LocalStorage>,
}

/// Reads the overview, then the file listing (Paimon) and the row count of its current snapshot.
async fn load(sel: Selection, into: Loads) {
    let loaded = read_overview(&sel.table.path, sel.table.format).await;
    // The file and row counts describe the snapshot the overview shows.
    let at = shown_snapshot(&loaded);
    let paimon = matches!(&loaded, Ok(o) if o.format == Format::Paimon);
    // The file listing's first reads (the manifest list, which the Data tab shares) go out
    // before the cards are drawn.
    let files_at = at.clone();
    let listing = async {
        match paimon {
            true => Some(file_counts(&sel, files_at).await),
            false => None,
        }
    };
    futures::pin_mut!(listing);
    let listed = futures::poll!(&mut listing);
    into.overview
        .set(loaded.map_or_else(Load::Failed, Load::Ready));
    let listed = match listed {
        std::task::Poll::Ready(listed) => listed,
        std::task::Poll::Pending => listing.await,
    };
    if let Some(listed) = listed {
        into.files
            .set(listed.map_or_else(Load::Failed, Load::Ready));
    }
    let counted = row_count(&sel, at).await;
    into.rows
        .set(counted.map_or_else(Load::Failed, Load::Ready));
}

#[component]
pub fn OverviewTab(sel: Selection) -> impl IntoView {
    let loads = Loads {
        overview: RwSignal::new_local(Load::Loading("Reading metadata…".into())),
        files: RwSignal::new_local(Load::Loading("Listing files…".into())),
        rows: RwSignal::new_local(Load::Loading("Counting rows…".into())),
    };
    // Leaving the tab stops its reads (the row count scans the whole table): they must not
    // compete with the tab opened next, e.g. the Data tab's first rows.
    let (abort, registration) = AbortHandle::new_pair();
    on_cleanup(move || abort.abort());
    let work = load(sel, loads);
    spawn_local(async move {
        let _ = Abortable::new(work, registration).await;
    });
    view! {
        <div class="overview" data-testid="overview">
            {move || match loads.overview.get() {
                Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
                Load::Failed(m) => view! { <ErrorPanel title="Cannot read this table" message=m /> }.into_any(),
                Load::Ready(o) => overview_view(o, loads),
            }}
        </div>
    }
}

/// The Table and Contents cards and the options of a table's overview.
fn overview_view(o: Overview, loads: Loads) -> AnyView {
    let info = match &o.detail {
        OverviewDetail::Iceberg(info) => Some((**info).clone()),
        OverviewDetail::Paimon { .. } => None,
    };
    let files = match &info {
        None => view! { <dt>"Files"</dt> {file_count(loads.files)} }.into_any(),
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
                    <dd>{row_count_view(loads.rows)}</dd>
                    {files}
                    {contents(&o, info.as_ref())}
                </dl>
            </section>
        </div>
        <OptionsTable format=o.format options=o.properties.clone() />
    }
    .into_any()
}

/// The Contents card's row count, once counted.
fn row_count_view(rows: RwSignal<Load<usize>, LocalStorage>) -> impl IntoView {
    move || match rows.get() {
        Load::Loading(t) => view! { <span class="muted">{t}</span> }.into_any(),
        Load::Ready(n) => view! { <span data-testid="row-count">{n.to_string()}</span> }.into_any(),
        Load::Failed(m) => view! { <span class="err-inline">{m}</span> }.into_any(),
    }
}

/// The Contents card's file counts of a Paimon table, once listed.
fn file_count(files: RwSignal<Load<(usize, i64, i64)>, LocalStorage>) -> impl IntoView {
    move || match files.get() {
        Load::Loading(t) => view! { <dd class="muted">{t}</dd> }.into_any(),
        Load::Ready((n, size, records)) => view! {
            <dd data-testid="file-stats">
                {format!("{n} files · {} · {records} rows in files", bytes(size))}
            </dd>
        }
        .into_any(),
        Load::Failed(m) => view! { <dd class="muted">{m}</dd> }.into_any(),
    }
}
