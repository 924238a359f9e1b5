//! The Overview tab's cards: the Table card (format, keys, the facts of the table's format) and
//! the Contents card's versions and, for Iceberg, its files from the snapshot summary.

use crate::tabs::schema::schema_name;
use crate::util::{bytes, time};
use lakescope_engine::format_types::TableInfo;
use lakescope_engine::table::{CommitDetail, Overview, OverviewDetail};
use leptos::prelude::*;

/// A Paimon table's bucket mode, from its `bucket` option.
fn bucket_mode(o: &Overview) -> String {
    let bucket = o
        .properties
        .get("bucket")
        .and_then(|b| b.parse::<i32>().ok())
        .unwrap_or(-1);
    match bucket {
        -1 if !o.primary_keys.is_empty() => "dynamic (bucket = -1)".into(),
        -1 => "unaware (bucket = -1)".into(),
        -2 => "postpone (bucket = -2)".into(),
        n => format!("fixed, {n} bucket{}", if n == 1 { "" } else { "s" }),
    }
}

/// `APPEND`, `append` → `Append`.
fn title_case(kind: &str) -> String {
    let lower = kind.to_lowercase();
    let mut chars = lower.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn opt(v: Option<i64>) -> String {
    v.map_or_else(|| "—".into(), |n| n.to_string())
}

fn or_dash(list: &[String], empty: &str) -> String {
    if list.is_empty() {
        empty.to_string()
    } else {
        list.join(", ")
    }
}

/// The Table card: the format, keys and comment, and the facts of the table's format.
pub fn table_facts(o: &Overview, info: Option<&TableInfo>) -> impl IntoView {
    let pk = !o.primary_keys.is_empty();
    let partition = or_dash(&o.partition_keys, "— (unpartitioned)");
    let kind = match (info, pk) {
        (Some(_), _) => view! { <span class="badge kind-iceberg">"Apache Iceberg"</span> },
        (None, true) => view! { <span class="badge kind-pk">"Primary-key table"</span> },
        (None, false) => view! { <span class="badge kind-append">"Append table"</span> },
    };
    let format_facts = match info {
        None => {
            let option = |k: &str, default: &str| {
                o.properties.get(k).cloned().unwrap_or_else(|| default.into())
            };
            let file_format = match &o.detail {
                OverviewDetail::Paimon { file_format } => file_format.clone(),
                OverviewDetail::Iceberg(_) => String::new(),
            };
            view! {
                <dt>"Bucket mode"</dt>
                <dd data-testid="bucket-mode">{bucket_mode(o)}</dd>
                <dt>"Merge engine"</dt>
                <dd data-testid="merge-engine">{if pk { option("merge-engine", "deduplicate") } else { "— (append)".into() }}</dd>
                <dt>"Changelog"</dt>
                <dd>{option("changelog-producer", "none")}</dd>
                <dt>"File format"</dt>
                <dd data-testid="file-format">{file_format}</dd>
            }
            .into_any()
        }
        Some(d) => view! {
            <dt>"Format version"</dt>
            <dd data-testid="format-version">{format!("v{}", d.format_version)}</dd>
            <dt>"Location"</dt>
            <dd class="mono wrap" data-testid="iceberg-location" title=d.location.clone()>{d.location.clone()}</dd>
            <dt>"Metadata file"</dt>
            <dd class="mono ellipsis" title=d.metadata_file.clone()>{d.metadata_file.rsplit('/').next().unwrap_or_default().to_string()}</dd>
            <dt>"Table UUID"</dt>
            <dd class="mono">{d.table_uuid.clone().unwrap_or_else(|| "—".into())}</dd>
            <dt>"Last updated"</dt>
            <dd>{time(d.last_updated_ms)}</dd>
        }
        .into_any(),
    };
    let partition = match info {
        Some(d) => format!("spec {} · {partition}", d.default_spec_id),
        None => partition,
    };
    view! {
        <dt>"Kind"</dt>
        <dd data-testid="table-kind">{kind}</dd>
        <dt>{if info.is_some() { "Identifier fields" } else { "Primary key" }}</dt>
        <dd data-testid="primary-key">{or_dash(&o.primary_keys, "—")}</dd>
        <dt>"Partition keys"</dt>
        <dd data-testid="partition-keys">{partition}</dd>
        {format_facts}
        <dt>"Comment"</dt>
        <dd data-testid="table-comment">{o.comment.clone().unwrap_or_else(|| "—".into())}</dd>
    }
}

/// An Iceberg table's data and delete files, from its current snapshot's summary.
pub fn iceberg_contents(d: &TableInfo) -> impl IntoView {
    let cur = d.current_snapshot().cloned();
    view! {
        <dt>"Data files"</dt>
        <dd data-testid="file-stats">
            {cur.as_ref().map_or_else(|| "no snapshot yet".into(), |s| format!(
                "{} · {} records · {}", opt(s.total_data_files), opt(s.total_records),
                s.total_files_size.map_or_else(|| "size unknown".into(), bytes)))}
        </dd>
        <dt>"Delete files"</dt>
        <dd data-testid="delete-stats">
            {cur.as_ref().map_or_else(|| "—".into(), |s| format!(
                "{} · {} position / {} equality deletes",
                opt(s.total_delete_files), opt(s.total_position_deletes), opt(s.total_equality_deletes)))}
        </dd>
    }
}

/// The Contents card's versions: snapshots, tags, schemas, the last commit (Iceberg: its specs
/// and refs too).
pub fn contents(o: &Overview, info: Option<&TableInfo>) -> impl IntoView {
    let tags = if o.tags.is_empty() {
        String::new()
    } else {
        format!(" · tags: {}", o.tags.join(", "))
    };
    let last = match &o.current {
        None => "no snapshot yet".to_string(),
        Some(c) => {
            let by = match &c.detail {
                CommitDetail::Paimon { commit_user, .. } => {
                    format!(" · by {commit_user}")
                }
                CommitDetail::Iceberg(_) => String::new(),
            };
            format!(
                "#{} · {} · {}{by}",
                c.id,
                time(c.time_millis),
                title_case(&c.kind)
            )
        }
    };
    let versions = if o.schema_count == 1 { "" } else { "s" };
    let iceberg = info.map(|d| {
        view! {
            <dt>"Partition specs"</dt>
            <dd data-testid="spec-count">{d.specs.len().to_string()}</dd>
            <dt>"Refs"</dt>
            <dd data-testid="refs">
                {d.refs.iter().map(|r| view! {
                    <span class="tag" title=format!("{} → snapshot {}", r.kind, r.snapshot_id)>{format!("{} {}", r.kind, r.name)}</span>
                }).collect_view()}
            </dd>
        }
    });
    view! {
        <dt>"Snapshots"</dt>
        <dd data-testid="snapshot-count">{format!("{}{tags}", o.snapshot_count)}</dd>
        <dt>"Schema"</dt>
        <dd data-testid="schema-count">{format!("{} ({} version{versions})", schema_name(o.format, o.schema_id), o.schema_count)}</dd>
        <dt>"Last commit"</dt>
        <dd data-testid="last-commit">{last}</dd>
        {iceberg}
    }
}
