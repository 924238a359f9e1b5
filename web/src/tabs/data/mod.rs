//! Data: the virtualised grid with time travel, column projection, a pushed-down filter, the
//! audit-log view and export of the current view.

mod export;
mod read;
mod toolbar;
mod version_picker;

use crate::app::Selection;
use crate::state::route::{go, use_route};
use crate::state::versions::load_branch_versions;
use crate::widgets::grid::Grid;
use lakescope_engine::versions::Versions;
use leptos::prelude::*;
use leptos::task::spawn_local;
pub use read::held_bytes_bound;
use read::{blob_download, load, now, Query, Status};
use toolbar::{ColumnsMenu, ExportButtons, FilterBar, StatusLine};
use version_picker::VersionPicker;

/// The Data tab. Its read streams batches into the grid with progress and Cancel, so it is a
/// task of its own (a generation counter drops superseded reads) rather than a resource.
#[component]
pub fn DataTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let frame = RwSignal::new(None);
    let status = RwSignal::new(Status::Idle);
    let generation = StoredValue::new(0u64);
    let all_columns = RwSignal::new(Vec::<String>::new());
    let versions = RwSignal::new_local(Versions::default());
    let table_name = format!("{}.{}", sel.database, sel.table.name);
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
                Ok(loaded) => status.set(Status::Done {
                    rows: loaded.rows,
                    ms: now() - start,
                    snapshot: loaded.snapshot,
                    cancelled: false,
                    by_workers: loaded.by_workers,
                    held_at: loaded.held_at,
                }),
                Err(m) => {
                    frame.set(None);
                    status.set(Status::Failed(m));
                }
            }
        });
    });

    let cancel = move || {
        generation.update_value(|g| *g += 1);
        let rows = frame.with_untracked(|f| f.as_ref().map_or(0, |f| f.len()));
        status.set(Status::Done {
            rows,
            ms: 0.0,
            snapshot: None,
            cancelled: true,
            by_workers: 0,
            held_at: None,
        });
    };
    let ts_error = RwSignal::new(None::<String>);

    view! {
        <div class="data-tab">
            <div class="toolbar">
                <VersionPicker versions own ts_error />
                <ColumnsMenu all=all_columns />
                <label class="check" title="Show the audit log: every row with its row kind (+I, -U, +U, -D)">
                    <input type="checkbox" data-testid="audit-toggle" prop:checked=move || route.with(|r| r.audit)
                        on:change=move |ev| { let on = event_target_checked(&ev); go(route, |r| r.audit = on) } />
                    "audit log (rowkind)"
                </label>
                <span class="spacer"></span>
                <ExportButtons frame name=table_name />
            </div>
            <Show when=move || iceberg_table.get() == Some(false)>
                <crate::tabs::upload_action::UploadAction database=sel.with_value(|s| s.database.clone())
                    table=sel.with_value(|s| s.table.name.clone()) on_done=move || reload.update(|n| *n += 1) />
            </Show>
            <FilterBar />
            {move || ts_error.get().map(|e| view! { <div class="filter-error" role="alert">{e}</div> })}
            <StatusLine status on_cancel=cancel />
            <Grid frame=frame testid="data-grid" class="fill" blob_download=blob_download(status) />
        </div>
    }
}
