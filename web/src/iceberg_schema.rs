//! The Schema tab of an Iceberg table: the fields of a schema version (ids, types, required,
//! identifier), its changes from the previous version by field id, the history of every schema,
//! and the partition specs with their transforms.

use crate::app::Selection;
use crate::iceberg_overview::load_info;
use crate::route::{go, use_route};
use crate::util::{Busy, ErrorPanel, Load};
use lakescope_iceberg::inspect::{SchemaInfo, SpecInfo, TableInfo};
use leptos::prelude::*;
use std::collections::BTreeMap;

fn summary(i: usize, s: &SchemaInfo) -> String {
    if i == 0 {
        return format!("created with {} columns", s.fields.len());
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &s.changes {
        *counts.entry(c.kind.label()).or_default() += 1;
    }
    if counts.is_empty() {
        return "no column changes".into();
    }
    counts
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn specs_view(specs: &[SpecInfo]) -> impl IntoView {
    specs
        .iter()
        .map(|s| {
            let fields = if s.fields.is_empty() {
                view! { <li class="muted">"unpartitioned"</li> }.into_any()
            } else {
                s.fields
                    .iter()
                    .map(|f| {
                        let source = f.source_name.clone().unwrap_or_else(|| format!("field {}", f.source_id));
                        view! {
                            <li class="mono">{format!("{} = {}({}) · id {}", f.name, f.transform, source, f.field_id)}</li>
                        }
                    })
                    .collect_view()
                    .into_any()
            };
            view! {
                <div class="spec" data-testid="partition-spec" data-spec=s.id>
                    <strong>{format!("spec {}", s.id)}</strong>
                    {s.is_default.then(|| view! { <span class="tag">"default"</span> })}
                    <ul class="changes">{fields}</ul>
                </div>
            }
        })
        .collect_view()
}

fn schema_view(d: TableInfo, chosen: Option<i64>) -> AnyView {
    let route = use_route();
    let list = &d.schemas;
    let chosen = chosen.unwrap_or(i64::from(d.current_schema_id));
    let Some(idx) = list.iter().position(|s| i64::from(s.id) == chosen) else {
        return view! { <ErrorPanel title="No such schema" message=format!("Schema {chosen} does not exist in this table's metadata; pick one in the history.") /> }.into_any();
    };
    let s = list[idx].clone();
    let history = list
        .iter()
        .enumerate()
        .rev()
        .map(|(i, v)| {
            let id = i64::from(v.id);
            let current = v.id == d.current_schema_id;
            view! {
                <li>
                    <button class="hist" class:selected=id == chosen data-testid="schema-version" data-schema=id
                        on:click=move |_| go(route, |r| r.schema = Some(id))>
                        <span class="hist-id">{format!("schema {id}")}</span>
                        <span class="muted">{if current { "current" } else { "" }}</span>
                        <span class="hist-sum">{summary(i, v)}</span>
                    </button>
                </li>
            }
        })
        .collect_view();
    let changes = if idx == 0 {
        view! { <li class="muted">"The table was created with this schema."</li> }.into_any()
    } else if s.changes.is_empty() {
        view! { <li class="muted">"No changes to columns."</li> }.into_any()
    } else {
        s.changes
            .iter()
            .map(|c| {
                let k = c.kind.label();
                view! { <li data-change=k><span class=format!("chg chg-{k}")>{k}</span>" "<span class="mono">{c.text.clone()}</span></li> }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <div class="split">
            <section class="card grow1">
                <h2>{format!("Fields of schema {}", s.id)}</h2>
                <table class="tbl" data-testid="schema-fields">
                    <thead><tr><th>"id"</th><th>"name"</th><th>"type"</th><th>"null"</th><th>"key"</th><th>"comment"</th></tr></thead>
                    <tbody>
                        {s.fields.iter().map(|f| view! {
                            <tr data-field=f.name.clone()>
                                <td class="mono muted">{f.id}</td>
                                <td class="mono strong">{f.name.clone()}</td>
                                <td class="mono type">{f.type_name.clone()}</td>
                                <td>{if f.required { "required" } else { "optional" }}</td>
                                <td>{if f.identifier { "identifier" } else { "" }}</td>
                                <td class="comment">{f.doc.clone().unwrap_or_default()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
                <h2>{if idx == 0 { "Initial version".to_string() } else { format!("Changes from schema {} to schema {}", list[idx - 1].id, s.id) }}</h2>
                <ul class="changes" data-testid="schema-diff">{changes}</ul>
                <h2>"Partition specs"</h2>
                <div data-testid="partition-specs">{specs_view(&d.specs)}</div>
            </section>
            <section class="card side">
                <h2>"History"</h2>
                <ul class="history" data-testid="schema-history">{history}</ul>
            </section>
        </div>
    }
    .into_any()
}

#[component]
pub fn IcebergSchemaTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let info = RwSignal::new_local(Load::<TableInfo>::Loading("Reading metadata…".into()));
    load_info(&sel, info);
    move || match info.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot read the schema" message=m /> }.into_any()
        }
        Load::Ready(d) => schema_view(d, route.with(|r| r.schema)),
    }
}
