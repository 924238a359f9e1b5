//! Files of a Paimon table: partitions × buckets × LSM levels, a chart of file sizes and levels
//! per bucket (small files and skew at a glance), and the manifests (`$manifests`).

use crate::util::{bytes, Frame};
use crate::widgets::grid::Grid;
use lakescope_engine::sql_editor::TableSchema;
use lakescope_engine::table::{FileDetail, Files};
use leptos::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug)]
struct FileInfo {
    level: i64,
    size: i64,
    records: i64,
    path: String,
}

/// A Paimon table's live files by (partition, bucket), with its manifests.
#[derive(Clone)]
pub struct LsmData {
    /// (partition, bucket) → files, highest level first, then largest first
    buckets: BTreeMap<(String, i64), Vec<FileInfo>>,
    small_threshold: i64,
    manifests: Arc<Frame>,
}

fn parse_size(s: &str) -> Option<i64> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    let (num, mult) = [
        ("kb", 1i64 << 10),
        ("mb", 1 << 20),
        ("gb", 1 << 30),
        ("b", 1),
    ]
    .iter()
    .find_map(|(suf, m)| t.strip_suffix(suf).map(|n| (n.to_string(), *m)))
    .unwrap_or((t.clone(), 1));
    num.parse::<f64>().ok().map(|n| (n * mult as f64) as i64)
}

impl LsmData {
    /// The `files` of a table whose current schema is `schema` (a file below a tenth of its
    /// `target-file-size` is small), and its `$manifests`.
    pub fn new(schema: &TableSchema, files: Files, manifests: Arc<Frame>) -> Self {
        let target = schema
            .options
            .get("target-file-size")
            .and_then(|s| parse_size(s))
            .unwrap_or(if schema.primary_keys.is_empty() {
                256 << 20
            } else {
                128 << 20
            });
        let mut buckets: BTreeMap<(String, i64), Vec<FileInfo>> = BTreeMap::new();
        for f in files.files {
            let (bucket, level) = match f.detail {
                FileDetail::Paimon { bucket, level } => (bucket, level),
                FileDetail::Iceberg { .. } => (0, 0),
            };
            buckets
                .entry((f.partition, i64::from(bucket)))
                .or_default()
                .push(FileInfo {
                    level: i64::from(level),
                    size: f.size,
                    records: f.records,
                    path: f.path,
                });
        }
        for files in buckets.values_mut() {
            files.sort_by(|a, b| b.level.cmp(&a.level).then(b.size.cmp(&a.size)));
        }
        Self {
            buckets,
            small_threshold: target / 10,
            manifests,
        }
    }
}

/// The buckets × levels panel.
pub fn lsm_panel(d: LsmData) -> impl IntoView {
    let all: Vec<&FileInfo> = d.buckets.values().flatten().collect();
    let total_size: i64 = all.iter().map(|f| f.size).sum();
    let small = all.iter().filter(|f| f.size < d.small_threshold).count();
    let max_level = all.iter().map(|f| f.level).max().unwrap_or(0);
    let bucket_sizes: Vec<i64> = d
        .buckets
        .values()
        .map(|fs| fs.iter().map(|f| f.size).sum())
        .collect();
    let max_bucket = bucket_sizes.iter().copied().max().unwrap_or(1).max(1);
    let min_bucket = bucket_sizes.iter().copied().min().unwrap_or(0);
    let skew = if min_bucket > 0 {
        max_bucket as f64 / min_bucket as f64
    } else {
        0.0
    };

    // chart
    let row_h = 22.0;
    let label_w = 170.0;
    let bar_w = 600.0;
    let w = label_w + bar_w + 130.0;
    let h = row_h * d.buckets.len() as f64 + 8.0;
    let rows = d
        .buckets
        .iter()
        .enumerate()
        .map(|(i, ((part, bucket), files))| {
            let y = 4.0 + i as f64 * row_h;
            let sum: i64 = files.iter().map(|f| f.size).sum();
            let mut x = label_w;
            let rects = files
                .iter()
                .map(|f| {
                    let fw = (f.size as f64 / max_bucket as f64 * bar_w).max(1.0);
                    let rx = x;
                    x += fw;
                    let class = format!(
                        "file lvl-{}{}",
                        f.level.min(5),
                        if f.size < d.small_threshold { " small" } else { "" }
                    );
                    let name = f.path.rsplit('/').next().unwrap_or_default().to_string();
                    view! {
                        <rect class=class x=rx y=y + 3.0 width=fw height=row_h - 6.0>
                            <title>{format!("{name}\nlevel {} · {} · {} rows", f.level, bytes(f.size), f.records)}</title>
                        </rect>
                    }
                })
                .collect_view();
            let label = if part.is_empty() { format!("bucket {bucket}") } else { format!("{part} · b{bucket}") };
            view! {
                <g data-testid="files-bucket">
                    <text class="axis-label" x=label_w - 8.0 y=y + row_h / 2.0 + 4.0 text-anchor="end">{label}</text>
                    {rects}
                    <text class="axis-label" x=x + 6.0 y=y + row_h / 2.0 + 4.0>{format!("{} · {} files", bytes(sum), files.len())}</text>
                </g>
            }
        })
        .collect_view();

    let table = d
        .buckets
        .iter()
        .map(|((part, bucket), files)| {
            let mut levels: BTreeMap<i64, (usize, i64)> = BTreeMap::new();
            for f in files {
                let e = levels.entry(f.level).or_default();
                e.0 += 1;
                e.1 += f.size;
            }
            let size: i64 = files.iter().map(|f| f.size).sum();
            let records: i64 = files.iter().map(|f| f.records).sum();
            let lv = levels
                .iter()
                .map(|(l, (n, s))| format!("L{l}: {n} ({})", bytes(*s)))
                .collect::<Vec<_>>()
                .join("  ");
            view! {
                <tr data-testid="files-row">
                    <td class="mono">{if part.is_empty() { "—".to_string() } else { part.clone() }}</td>
                    <td class="num">{*bucket}</td>
                    <td class="num">{files.len()}</td>
                    <td class="mono">{lv}</td>
                    <td class="num">{records}</td>
                    <td class="num">{bytes(size)}</td>
                    <td class="num">{bytes(size / files.len().max(1) as i64)}</td>
                </tr>
            }
        })
        .collect_view();

    let manifests = Signal::stored(Some(d.manifests.clone()));
    view! {
        <div class="diff-summary" data-testid="files-summary">
            <span class="pill">{format!("{} files", all.len())}</span>
            <span class="pill">{bytes(total_size)}</span>
            <span class="pill">{format!("{} partition×bucket", d.buckets.len())}</span>
            <span class={if small > 0 { "pill warn" } else { "pill" }}>
                {format!("{small} small (< {})", bytes(d.small_threshold))}
            </span>
            <span class={if skew > 4.0 { "pill warn" } else { "pill" }}>
                {if skew > 0.0 { format!("bucket skew {skew:.1}×") } else { "bucket skew n/a".into() }}
            </span>
            <span class="muted">{format!("levels 0…{max_level}")}</span>
        </div>
        <section class="card wide">
            <h2>"File sizes per bucket " <span class="muted">"(each block is a file, width ∝ size, colour = LSM level; outlined: small file)"</span></h2>
            <svg class="chart" data-testid="files-chart" viewBox=format!("0 0 {w} {h}") role="img" aria-label="File sizes per bucket">
                {rows}
            </svg>
            <div class="legend">
                {(0..=max_level.min(5)).map(|l| view! { <span class=format!("lvl-chip lvl-{l}")>{format!("level {l}")}</span> }).collect_view()}
            </div>
        </section>
        <section class="card wide">
            <h2>"Partitions × buckets × levels"</h2>
            <table class="tbl" data-testid="files-table">
                <thead><tr><th>"partition"</th><th class="num">"bucket"</th><th class="num">"files"</th><th>"levels"</th><th class="num">"rows"</th><th class="num">"size"</th><th class="num">"avg file"</th></tr></thead>
                <tbody>{table}</tbody>
            </table>
        </section>
        <section class="card wide flush">
            <h2 class="pad">"Manifests"</h2>
            <Grid frame=manifests testid="manifests-grid" class="short" />
        </section>
    }
}
