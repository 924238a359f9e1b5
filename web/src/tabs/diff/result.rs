//! The Diff tab's result: counts, the rows per partition and the grid of changed rows with the
//! changed cells highlighted.

use crate::tabs::diff::compute::DiffView;
use crate::util::Frame;
use crate::widgets::grid::{CellClass, Grid};
use leptos::prelude::*;
use std::sync::Arc;

/// The result of a diff.
pub fn diff_view(d: DiffView) -> impl IntoView {
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
