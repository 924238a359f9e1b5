//! The Overview tab's options table: a Paimon table's options (the known ones with their
//! defaults) or an Iceberg table's properties.

use lakescope_engine::table::Format;
use leptos::prelude::*;
use std::collections::BTreeMap;

/// Paimon options with their defaults (shown even when unset).
const PAIMON_OPTIONS: &[(&str, &str, &str)] = &[
    ("bucket", "-1", "Storage"),
    ("bucket-key", "", "Storage"),
    ("file.format", "parquet", "Storage"),
    ("file.compression", "zstd", "Storage"),
    (
        "target-file-size",
        "128 mb (PK) / 256 mb (append)",
        "Storage",
    ),
    ("merge-engine", "deduplicate", "Merge"),
    ("changelog-producer", "none", "Merge"),
    ("sequence.field", "", "Merge"),
    ("rowkind.field", "", "Merge"),
    ("ignore-delete", "false", "Merge"),
    ("deletion-vectors.enabled", "false", "Merge"),
    ("snapshot.num-retained.min", "10", "Lifecycle"),
    ("snapshot.num-retained.max", "2147483647", "Lifecycle"),
    ("snapshot.time-retained", "1 h", "Lifecycle"),
    ("num-sorted-run.compaction-trigger", "5", "Compaction"),
    ("write-only", "false", "Compaction"),
];

/// The options (Paimon, with the defaults of the known ones) or properties (Iceberg) of a table.
#[component]
pub fn OptionsTable(format: Format, options: BTreeMap<String, String>) -> impl IntoView {
    let known = match format {
        Format::Paimon => PAIMON_OPTIONS,
        Format::Iceberg => &[],
    };
    let mut rows: Vec<(String, String, &'static str, String, bool)> = Vec::new();
    for (key, default, group) in known {
        let set = options.get(*key);
        let value = set.cloned().unwrap_or_else(|| default.to_string());
        let non_default = set.is_some_and(|v| v != default);
        rows.push((
            key.to_string(),
            value,
            group,
            default.to_string(),
            non_default,
        ));
    }
    for (k, v) in &options {
        if !known.iter().any(|(key, _, _)| key == k) {
            rows.push((k.clone(), v.clone(), "Other", String::new(), true));
        }
    }
    rows.sort_by(|a, b| (a.2, &a.0).cmp(&(b.2, &b.0)));
    let title = match format {
        Format::Paimon => "Options ",
        Format::Iceberg => "Properties ",
    };
    let empty = rows.is_empty().then(|| {
        view! { <tr><td class="muted" colspan="4">"No properties set."</td></tr> }
    });
    view! {
        <section class="card wide">
            <h2>{title} <span class="muted">"(highlighted: set on this table, not the default)"</span></h2>
            <table class="tbl" data-testid="options-table">
                <thead><tr><th>"Group"</th><th>"Key"</th><th>"Value"</th><th>"Default"</th></tr></thead>
                <tbody>
                    {empty}
                    {rows
                        .into_iter()
                        .map(|(k, v, g, d, nd)| {
                            let key = k.clone();
                            view! {
                            <tr class:non-default=nd data-option=key>
                                <td class="muted">{g}</td>
                                <td><code>{k}</code></td>
                                <td class="mono">{v}</td>
                                <td class="muted mono">{if d.is_empty() { "—".into() } else { d }}</td>
                            </tr>
                        }})
                        .collect_view()}
                </tbody>
            </table>
        </section>
    }
}
