//! The Data tab's controls besides the version picker: the column menu, the filter bar, the
//! status line with its Cancel button, and the CSV / JSON Lines export of the rows read.

use crate::state::route::{go, use_route};
use crate::tabs::data::export::export;
use crate::tabs::data::read::Status;
use crate::util::Frame;
use lakescope_engine::scan::parse_filter;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::sync::Arc;

/// The column menu over the current schema's `all` columns; the chosen ones are the route's
/// `cols` (empty: all).
#[component]
pub fn ColumnsMenu(all: RwSignal<Vec<String>>) -> impl IntoView {
    let route = use_route();
    let toggle_col = move |name: String, on: bool| {
        let all = all.get_untracked();
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
    view! {
        <details class="cols-menu">
            <summary class="btn" data-testid="columns-button">
                {move || {
                    let n = all.with(|a| a.len());
                    let k = route.with(|r| if r.cols.is_empty() { n } else { r.cols.split(',').count() });
                    format!("Columns {k}/{n}")
                }}
            </summary>
            <div class="cols-pop" data-testid="columns-menu">
                {move || all.get().into_iter().map(|c| {
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
    }
}

/// The filter field (applied on Enter or Apply as the route's `filter`) and its parse error.
#[component]
pub fn FilterBar() -> impl IntoView {
    let route = use_route();
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
    view! {
        <div class="filterbar">
            <span class="filter-icon" aria-hidden="true">"⌕"</span>
            <input id="data-filter" class="input filter-input" data-testid="data-filter" type="text" spellcheck="false"
                autocomplete="off" placeholder="Filter rows, e.g. dt = '2024-03-01' AND qty >= 3   (press / to focus, Enter to apply)"
                bind:value=filter_text
                on:keydown=move |ev| if ev.key() == "Enter" { apply_filter() } />
            <button class="btn" data-testid="apply-filter" on:click=move |_| apply_filter()>"Apply"</button>
        </div>
        {move || filter_error.get().map(|e| view! { <div class="filter-error" role="alert" data-testid="filter-error">{e}</div> })}
    }
}

/// The status line of the read: progress with Cancel (`on_cancel`), the rows read, or the error.
#[component]
pub fn StatusLine(
    status: RwSignal<Status>,
    on_cancel: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <div class="statusline" data-testid="data-status">
            {move || match status.get() {
                Status::Idle => view! { <span></span> }.into_any(),
                Status::Loading { rows, split, splits } => view! {
                    <span class="spinner" aria-hidden="true"></span>
                    <span data-testid="busy">{format!("Reading… {rows} rows, split {split} of {splits}")}</span>
                    <progress max=splits.max(1) value=split></progress>
                    <button class="btn small" data-testid="cancel" on:click=move |_| on_cancel()>"Cancel"</button>
                }.into_any(),
                Status::Done { rows, ms, snapshot, cancelled, by_workers, held_at } => view! {
                    <span data-testid="row-total">{format!("{rows} rows")}</span>
                    <span class="muted">{if cancelled { " · cancelled (partial result)".to_string() } else {
                        format!(" · {}{:.0} ms", snapshot.map(|s| format!("snapshot {s} · ")).unwrap_or_default(), ms)
                    }}</span>
                    {(by_workers > 0 && !cancelled).then(|| view! {
                        <span class="muted" data-testid="data-workers"
                            title="Splits read by the page's scan workers (one per core; ?threads=1 reads on the page alone)">
                            {format!(" · {by_workers} {} on workers", if by_workers == 1 { "split" } else { "splits" })}
                        </span>
                    })}
                    {held_at.map(|bound| view! {
                        <span class="warn-inline" data-testid="data-bound" role="status"
                            title="Set another bound for this page with ?grid-mib=N in its address">
                            {format!("· the first rows only: the Data tab holds at most {} of rows (filter, pick columns or use SQL for the rest)",
                                crate::util::bytes(bound as i64))}
                        </span>
                    })}
                }.into_any(),
                Status::Failed(m) => view! { <span class="err-inline" data-testid="data-error" role="alert">{m}</span> }.into_any(),
            }}
        </div>
    }
}

/// The export buttons over the rows in `frame`, named after the table `name`.
#[component]
pub fn ExportButtons(frame: RwSignal<Option<Arc<Frame>>>, name: String) -> impl IntoView {
    let name = StoredValue::new(name);
    let failed = RwSignal::new(None::<String>);
    let run = move |jsonl: bool| {
        if let Some(f) = frame.get_untracked() {
            failed.set(None);
            spawn_local(async move {
                if let Err(e) = export(&f, &name.get_value(), jsonl).await {
                    failed.set(Some(format!("Export failed: {e}")));
                }
            });
        }
    };
    view! {
        <button class="btn" data-testid="export-csv" on:click=move |_| run(false)>"CSV"</button>
        <button class="btn" data-testid="export-jsonl" on:click=move |_| run(true)>"JSON Lines"</button>
        {move || failed.get().map(|e| view! { <span class="err-inline" data-testid="export-error" role="alert">{e}</span> })}
    }
}
