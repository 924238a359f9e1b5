//! The Files tab of a table of either format (`lakescope_engine::table::Files`): one load of the
//! live files, then the panel where the formats differ — Paimon's buckets × LSM levels with its
//! manifests and a Compact action ([`crate::tabs::files_lsm`]), Iceberg's data and delete files with
//! its manifests ([`crate::tabs::files_content`]).

use crate::app::Selection;
use crate::state::warehouse;
use crate::tabs::compact_action::{CompactAction, CompactState};
use crate::tabs::files_content::content_panel;
use crate::tabs::files_lsm::{lsm_panel, LsmData};
use crate::tabs::panel::{scan_frame, table_ref};
use crate::util::{ErrorPanel, Load};
use crate::widgets::progress::{Cancelled, Job, JobProgress};
use lakescope_engine::table::{Files, Format, Table};
use lakescope_engine::Version;
use leptos::prelude::*;
use std::sync::Arc;

/// The live files of a table and what its format's panel needs besides.
#[derive(Clone)]
enum Loaded {
    /// A Paimon table's files by bucket, with its manifests.
    Paimon(LsmData),
    /// An Iceberg table's files and manifests.
    Iceberg(Files),
}

/// Reads the latest snapshot's files of the selected table (and a Paimon table's manifests).
async fn load(sel: Selection) -> Result<Loaded, String> {
    let t = warehouse::any_table(&sel.table.path).await?;
    let name = table_ref(&sel, None);
    let files = t
        .files(&name, &Version::Latest)
        .await
        .map_err(|e| format!("Listing the files of {name} failed: {e}"))?;
    Ok(match t {
        Table::Paimon(t) => {
            let manifests = scan_frame(&sel, Some("manifests"), Version::Latest).await?;
            Loaded::Paimon(LsmData::new(t.current_schema(), files, Arc::new(manifests)))
        }
        Table::Iceberg(_) => Loaded::Iceberg(files),
    })
}

#[component]
pub fn FilesTab(sel: Selection) -> impl IntoView {
    let data = RwSignal::new_local(Load::<Loaded>::Loading("Reading manifests…".into()));
    let table_name = format!("{}.{}", sel.database, sel.table.name);
    let sel = StoredValue::new(sel);
    // Bumped after a compaction commit or "Run again": the tab reads the table again.
    let reload = RwSignal::new(0u32);
    let compact_state = RwSignal::new(CompactState::Idle);
    let job = Job::new();
    let cancelled = RwSignal::new(false);
    Effect::new(move |_| {
        reload.track();
        cancelled.set(false);
        data.set(Load::Loading("Reading manifests…".into()));
        job.start(load(sel.get_value()), move |out| match out {
            Some(r) => {
                data.try_set(r.map_or_else(Load::Failed, Load::Ready));
            }
            None => {
                cancelled.try_set(true);
            }
        });
    });
    let on_done = move || reload.update(|n| *n += 1);
    // Compaction is a Paimon commit: its action shows on Paimon tables (the catalog entry's
    // format).
    let paimon = sel.with_value(|s| s.table.format == Format::Paimon);
    let compact = move || {
        paimon.then(|| {
            view! { <CompactAction table=table_name.clone() state=compact_state on_done /> }
        })
    };
    let body = move || match data.get() {
        _ if cancelled.get() => view! {
            <Cancelled what="Listing the files" rerun=move || reload.update(|n| *n += 1) />
        }
        .into_any(),
        Load::Loading(t) => view! { <JobProgress job text=t unit="" /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot list the files" message=m /> }.into_any()
        }
        Load::Ready(Loaded::Paimon(d)) => lsm_panel(d).into_any(),
        Load::Ready(Loaded::Iceberg(d)) => content_panel(d).into_any(),
    };
    view! {
        {compact}
        {body}
    }
}
