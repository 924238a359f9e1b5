//! Files of an Iceberg table: the live data and delete files of a snapshot (content, spec id,
//! partition, records, size), a chart of file sizes per partition coloured by content, and the
//! manifests.

use crate::util::bytes;
use lakescope_engine::format_types::Content;
use lakescope_engine::table::{DataFile, FileDetail, Files};
use leptos::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn content_class(c: Content) -> &'static str {
    match c {
        Content::Data => "c-data",
        Content::PositionDeletes => "c-pos",
        Content::EqualityDeletes => "c-eq",
    }
}

fn file_name(key: &str) -> String {
    key.rsplit('/').next().unwrap_or_default().to_string()
}

/// What an Iceberg file holds, its spec id and sequence number (a Paimon file: data, spec 0).
fn iceberg(f: &DataFile) -> (Content, i32, i64) {
    match f.detail {
        FileDetail::Iceberg {
            content,
            spec_id,
            sequence_number,
        } => (content, spec_id, sequence_number),
        FileDetail::Paimon { .. } => (Content::Data, 0, 0),
    }
}

/// Files grouped by (spec id, partition).
type Groups<'a> = BTreeMap<(i32, String), Vec<&'a DataFile>>;

fn chart(groups: &Groups) -> impl IntoView {
    let max = groups
        .values()
        .map(|fs| fs.iter().map(|f| f.size).sum::<i64>())
        .max()
        .unwrap_or(1)
        .max(1);
    let (row_h, label_w, bar_w) = (22.0, 230.0, 560.0);
    let w = label_w + bar_w + 140.0;
    let h = row_h * groups.len() as f64 + 8.0;
    let rows = groups
        .iter()
        .enumerate()
        .map(|(i, ((spec, part), files))| {
            let y = 4.0 + i as f64 * row_h;
            let mut x = label_w;
            let rects = files
                .iter()
                .map(|f| {
                    let fw = (f.size as f64 / max as f64 * bar_w).max(1.0);
                    let rx = x;
                    x += fw;
                    view! {
                        <rect class=format!("file {}", content_class(iceberg(f).0)) x=rx y=y + 3.0 width=fw height=row_h - 6.0>
                            <title>{format!("{}\n{} · {} · {} records", file_name(&f.path), iceberg(f).0.label(), bytes(f.size), f.records)}</title>
                        </rect>
                    }
                })
                .collect_view();
            let sum: i64 = files.iter().map(|f| f.size).sum();
            let label = if part.is_empty() { format!("spec {spec} · unpartitioned") } else { format!("spec {spec} · {part}") };
            view! {
                <g data-testid="files-partition">
                    <text class="axis-label" x=label_w - 8.0 y=y + row_h / 2.0 + 4.0 text-anchor="end">{label}</text>
                    {rects}
                    <text class="axis-label" x=x + 6.0 y=y + row_h / 2.0 + 4.0>{format!("{} · {} files", bytes(sum), files.len())}</text>
                </g>
            }
        })
        .collect_view();
    view! {
        <svg class="chart" data-testid="files-chart" viewBox=format!("0 0 {w} {h}") role="img" aria-label="File sizes per partition">
            {rows}
        </svg>
    }
}

/// The content-kinds panel.
pub fn content_panel(d: Files) -> impl IntoView {
    let count = |c: Content| d.files.iter().filter(|f| iceberg(f).0 == c).count();
    let (data, pos, eq) = (
        count(Content::Data),
        count(Content::PositionDeletes),
        count(Content::EqualityDeletes),
    );
    let total: i64 = d.files.iter().map(|f| f.size).sum();
    let specs: BTreeSet<i32> = d.files.iter().map(|f| iceberg(f).1).collect();
    let mut groups: Groups = BTreeMap::new();
    for f in &d.files {
        groups
            .entry((iceberg(f).1, f.partition.clone()))
            .or_default()
            .push(f);
    }
    let file_rows = d
        .files
        .iter()
        .map(|f| {
            view! {
                <tr data-testid="iceberg-file" data-content=content_class(iceberg(f).0) data-spec=iceberg(f).1>
                    <td><span class=format!("ice-content {}", content_class(iceberg(f).0))>{iceberg(f).0.label()}</span></td>
                    <td class="num">{iceberg(f).1}</td>
                    <td class="mono">{if f.partition.is_empty() { "—".to_string() } else { f.partition.clone() }}</td>
                    <td class="num">{f.records}</td>
                    <td class="num">{bytes(f.size)}</td>
                    <td class="num">{iceberg(f).2}</td>
                    <td class="mono">{f.format.clone()}</td>
                    <td class="mono ellipsis" title=f.path.clone()>{file_name(&f.path)}</td>
                </tr>
            }
        })
        .collect_view();
    let opt = |v: Option<i32>| v.map(|n| n.to_string()).unwrap_or_default();
    let manifest_rows = d
        .manifests
        .iter()
        .map(|m| {
            view! {
                <tr data-testid="iceberg-manifest">
                    <td class="mono ellipsis" title=m.key.clone()>{file_name(&m.key)}</td>
                    <td><span class=format!("ice-content {}", content_class(m.content))>{m.content.label()}</span></td>
                    <td class="num">{m.spec_id}</td>
                    <td class="num">{m.sequence_number}</td>
                    <td class="mono">{m.added_snapshot_id.to_string()}</td>
                    <td class="num">{opt(m.added_files)}</td>
                    <td class="num">{opt(m.existing_files)}</td>
                    <td class="num">{opt(m.deleted_files)}</td>
                    <td class="num">{bytes(m.length)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="diff-summary" data-testid="files-summary">
            <span class="pill" data-testid="data-file-count">{format!("{data} data files")}</span>
            <span class={if pos + eq > 0 { "pill warn" } else { "pill" }} data-testid="delete-file-count">
                {format!("{} delete files ({pos} position, {eq} equality)", pos + eq)}
            </span>
            <span class="pill">{bytes(total)}</span>
            <span class="pill" data-testid="spec-ids">{format!("spec ids: {}", specs.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "))}</span>
            <span class="muted">{d.snapshot_id.map(|s| format!("snapshot {s}")).unwrap_or_else(|| "no snapshot".into())}</span>
        </div>
        <section class="card wide">
            <h2>"File sizes per partition " <span class="muted">"(each block is a file, width ∝ size, colour = content)"</span></h2>
            {chart(&groups)}
            <div class="legend">
                <span class="ice-content c-data">"data"</span>
                <span class="ice-content c-pos">"position deletes"</span>
                <span class="ice-content c-eq">"equality deletes"</span>
            </div>
        </section>
        <section class="card wide">
            <h2>"Live files"</h2>
            <table class="tbl" data-testid="files-table">
                <thead><tr><th>"content"</th><th class="num">"spec"</th><th>"partition"</th><th class="num">"records"</th><th class="num">"size"</th><th class="num">"seq"</th><th>"format"</th><th>"file"</th></tr></thead>
                <tbody>{file_rows}</tbody>
            </table>
        </section>
        <section class="card wide">
            <h2>"Manifests"</h2>
            <table class="tbl" data-testid="manifests-table">
                <thead><tr><th>"manifest"</th><th>"content"</th><th class="num">"spec"</th><th class="num">"seq"</th><th>"added by snapshot"</th><th class="num">"added"</th><th class="num">"existing"</th><th class="num">"deleted"</th><th class="num">"size"</th></tr></thead>
                <tbody>{manifest_rows}</tbody>
            </table>
        </section>
    }
}
