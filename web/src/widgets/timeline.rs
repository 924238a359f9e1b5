//! The snapshot timeline chart: one bar per commit (records added/removed, kind coloured, refs
//! marked) and, for tables with branches, one lane per branch under it.

use crate::util::{time, time_short};
use leptos::prelude::*;

/// One bar of the timeline: a commit with its net change of records.
pub struct Bar {
    pub id: i64,
    pub time_millis: i64,
    /// Records added (positive) or removed (negative).
    pub delta: i64,
    /// Colour class (`k-append`, ...).
    pub class: &'static str,
    /// Commit kind or operation, for the tooltip.
    pub kind: String,
    /// Tags / refs on this snapshot.
    pub marks: Vec<String>,
    /// The axis label under the bar.
    pub label: String,
}

/// A branch: its name, the snapshots of its history (the head's parent chain), and what a click
/// on its name does (read the branch).
pub struct Lane {
    pub name: String,
    pub snapshots: Vec<i64>,
    pub open: Callback<()>,
}

/// Height of one branch lane.
const LANE_H: f64 = 18.0;

/// The timeline chart: one bar per snapshot in commit order (x labels are commit times);
/// bars above the axis are records added, below records removed. With more than one lane,
/// each branch's snapshots show as dots on its own lane under the bars (the first lane is
/// `main`; a dot another lane shares is drawn faint).
pub fn timeline(
    bars: &[Bar],
    lanes: &[Lane],
    travel: impl Fn(i64) + Copy + 'static,
) -> impl IntoView {
    let n = bars.len().max(1);
    let w = 900.0f64;
    let h = 190.0f64;
    let lanes_h = if lanes.len() > 1 {
        LANE_H * lanes.len() as f64 + 6.0
    } else {
        0.0
    };
    let (left, right, top, bottom) = (44.0, 10.0, 22.0, 34.0);
    let plot_w = w - left - right;
    let max_up = bars
        .iter()
        .map(|b| b.delta)
        .filter(|v| *v > 0)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let max_down = bars
        .iter()
        .map(|b| b.delta)
        .filter(|v| *v < 0)
        .map(|v| -v)
        .max()
        .unwrap_or(0) as f64;
    let total = max_up + max_down;
    let plot_h = h - top - bottom;
    let zero = top + plot_h * max_up / total;
    let step = plot_w / n as f64;
    let bw = (step * 0.6).clamp(2.0, 36.0);
    let label_every = (n / 10).max(1);
    let rendered = bars
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let id = b.id;
            let d = b.delta as f64;
            let x = left + step * (i as f64 + 0.5);
            let hh = (d.abs() / total * plot_h).max(1.5);
            let y = if d >= 0.0 { zero - hh } else { zero };
            let title = format!(
                "snapshot {id} · {} · {} · delta {:+} rows{}",
                b.kind,
                time(b.time_millis),
                b.delta,
                if b.marks.is_empty() { String::new() } else { format!(" · {}", b.marks.join(", ")) }
            );
            let label = (i % label_every == 0).then(|| {
                view! {
                    <text class="axis-label" x=x y=h - bottom + 14.0 text-anchor="middle">{b.label.clone()}</text>
                    <text class="axis-label faint" x=x y=h - bottom + 26.0 text-anchor="middle">{time_short(b.time_millis)}</text>
                }
            });
            let tag_mark = (!b.marks.is_empty()).then(|| {
                view! {
                    <line class="tag-line" x1=x x2=x y1=top - 8.0 y2=h - bottom />
                    <text class="tag-label" x=x + 3.0 y=top - 10.0>{b.marks.join(", ")}</text>
                }
            });
            view! {
                <g class="bar-g" data-testid="timeline-bar" data-snapshot=id on:click=move |_| travel(id)>
                    {tag_mark}
                    <rect class="hit" x=x - step / 2.0 y=top width=step height=plot_h />
                    <rect class=format!("bar {}", b.class) x=x - bw / 2.0 y=y width=bw height=hh rx="1.5" />
                    <title>{title}</title>
                    {label}
                </g>
            }
        })
        .collect_view();
    view! {
        <svg class="chart" data-testid="timeline" viewBox=format!("0 0 {w} {}", h + lanes_h) role="img" aria-label="Snapshot timeline">
            <line class="axis" x1=left x2=w - right y1=zero y2=zero />
            <text class="axis-label" x=left - 6.0 y=top + 4.0 text-anchor="end">{format!("+{}", max_up as i64)}</text>
            <text class="axis-label" x=left - 6.0 y=zero + 4.0 text-anchor="end">"0"</text>
            {(max_down > 0.0).then(|| view! {
                <text class="axis-label" x=left - 6.0 y=h - bottom text-anchor="end">{format!("-{}", max_down as i64)}</text>
            })}
            {rendered}
            {(lanes.len() > 1).then(|| lanes_view(bars, lanes, (left, step, h + 4.0), travel))}
        </svg>
    }
}

/// The branch lanes: a labelled line per branch with a clickable dot per snapshot, placed under
/// that snapshot's bar. `(left, step, top)`: the plot's left edge, bar spacing, first lane's top.
fn lanes_view(
    bars: &[Bar],
    lanes: &[Lane],
    (left, step, top): (f64, f64, f64),
    travel: impl Fn(i64) + Copy + 'static,
) -> impl IntoView {
    let x_of = |id: i64| {
        bars.iter()
            .position(|b| b.id == id)
            .map(|i| left + step * (i as f64 + 0.5))
    };
    let on_other = |lane: usize, id: i64| {
        lanes
            .iter()
            .enumerate()
            .any(|(j, l)| j < lane && l.snapshots.contains(&id))
    };
    lanes
        .iter()
        .enumerate()
        .map(|(i, lane)| {
            let y = top + LANE_H * (i as f64 + 0.5);
            let open = lane.open;
            let xs: Vec<(i64, f64)> = lane.snapshots.iter().filter_map(|&id| Some((id, x_of(id)?))).collect();
            let (x1, x2) = xs.iter().fold((f64::MAX, f64::MIN), |(a, b), (_, x)| (a.min(*x), b.max(*x)));
            let dots = xs
                .iter()
                .map(|&(id, x)| {
                    let shared = on_other(i, id);
                    view! {
                        <circle class="lane-dot" class:shared=shared data-testid="lane-snapshot" data-snapshot=id
                            cx=x cy=y r="4" on:click=move |_| travel(id)>
                            <title>{format!("snapshot {id}")}</title>
                        </circle>
                    }
                })
                .collect_view();
            view! {
                <g class="lane" data-testid="timeline-lane" data-branch=lane.name.clone()>
                    <text class="lane-label" data-testid="lane-label" x=left - 6.0 y=y + 3.5 text-anchor="end"
                        on:click=move |_| open.run(())>
                        {lane.name.clone()}
                        <title>{format!("Read branch {} in the Data tab", lane.name)}</title>
                    </text>
                    {(!xs.is_empty()).then(|| view! { <line class="lane-line" x1=x1 x2=x2 y1=y y2=y /> })}
                    {dots}
                </g>
            }
        })
        .collect_view()
}
