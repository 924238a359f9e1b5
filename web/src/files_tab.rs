//! Files: partitions × buckets × levels from `$files`, a chart of file sizes and levels per
//! bucket (small files and skew at a glance), the manifests, and a Compact action.

use crate::app::Selection;
use crate::compact_action::{CompactAction, CompactState};
use crate::grid::Grid;
use crate::progress::{Cancelled, Job, JobProgress};
use crate::table_panel::scan_frame;
use crate::util::{bytes, ErrorPanel, Frame, Load};
use crate::warehouse;
use lakescope_engine::Version;
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

#[derive(Clone)]
struct FilesData {
    /// (partition, bucket) → files
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

#[component]
pub fn FilesTab(sel: Selection) -> impl IntoView {
    let data = RwSignal::new_local(Load::<FilesData>::Loading(
        "Reading manifests ($files)…".into(),
    ));
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
        data.set(Load::Loading("Reading manifests ($files)…".into()));
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
    let body = move || match data.get() {
        _ if cancelled.get() => view! {
            <Cancelled what="Listing the files" rerun=move || reload.update(|n| *n += 1) />
        }
        .into_any(),
        Load::Loading(t) => view! { <JobProgress job text=t unit="" /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot list the files" message=m /> }.into_any()
        }
        Load::Ready(d) => files_view(d).into_any(),
    };
    view! {
        <CompactAction table=table_name state=compact_state on_done />
        {body}
    }
}

/// Reads the files and manifests of the selected table.
async fn load(sel: Selection) -> Result<FilesData, String> {
    async {
        let t = warehouse::table(&sel.table.path).await?;
        let schema = t.current_schema();
        let keys = schema.partition_keys.clone();
        // `{v1, v2}` (the row cast to string) → `k1=v1/k2=v2`
        let part_name = |text: String| -> String {
            let inner = text.trim_start_matches('{').trim_end_matches('}');
            if keys.is_empty() || inner.is_empty() {
                return text;
            }
            let vals: Vec<&str> = inner.split(", ").collect();
            if vals.len() != keys.len() {
                return text;
            }
            keys.iter()
                .zip(vals)
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("/")
        };
        let target = schema
            .options
            .get("target-file-size")
            .and_then(|s| parse_size(s))
            .unwrap_or(if schema.primary_keys.is_empty() {
                256 << 20
            } else {
                128 << 20
            });
        let f = scan_frame(&sel, Some("files"), Version::Latest).await?;
        let col = |n: &str| f.col(n).ok_or(format!("$files has no column {n}"));
        let (cp, cb, cl, cs, cr, cf) = (
            col("partition")?,
            col("bucket")?,
            col("level")?,
            col("file_size_in_bytes")?,
            col("record_count")?,
            col("file_path")?,
        );
        let mut buckets: BTreeMap<(String, i64), Vec<FileInfo>> = BTreeMap::new();
        for r in 0..f.len() {
            let part = part_name(f.cell(r, cp).unwrap_or_default());
            buckets
                .entry((part, f.int(r, cb).unwrap_or(0)))
                .or_default()
                .push(FileInfo {
                    level: f.int(r, cl).unwrap_or(0),
                    size: f.int(r, cs).unwrap_or(0),
                    records: f.int(r, cr).unwrap_or(0),
                    path: f.cell(r, cf).unwrap_or_default(),
                });
        }
        for files in buckets.values_mut() {
            files.sort_by(|a, b| b.level.cmp(&a.level).then(b.size.cmp(&a.size)));
        }
        let manifests = scan_frame(&sel, Some("manifests"), Version::Latest).await?;
        Ok::<_, String>(FilesData {
            buckets,
            small_threshold: target / 10,
            manifests: Arc::new(manifests),
        })
    }
    .await
}

fn files_view(d: FilesData) -> impl IntoView {
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
