//! The Schema tab of a table of either format (`lakescope_engine::table::Schemas`): the fields of
//! a schema version, its changes from the previous version by field id, the history of every
//! version, and an Iceberg table's partition specs.

use crate::app::Selection;
use crate::state::route::{go, use_route};
use crate::state::warehouse;
use crate::util::{time, Busy, ErrorPanel, Load};
use lakescope_engine::format_types::SpecInfo;
use lakescope_engine::table::{Format, SchemaVersion, Schemas};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::collections::BTreeMap;

/// A schema version's name: Paimon's file name `schema-N`, Iceberg's `schema N`.
pub fn schema_name(format: Format, id: i64) -> String {
    match format {
        Format::Paimon => format!("schema-{id}"),
        Format::Iceberg => format!("schema {id}"),
    }
}

/// The history line of version `i`: how many changes of each kind.
fn summary(i: usize, v: &SchemaVersion) -> String {
    if i == 0 {
        return format!("created with {} columns", v.fields.len());
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &v.changes {
        *counts.entry(c.kind.as_str()).or_default() += 1;
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

fn schema_view(format: Format, d: Schemas, chosen: Option<i64>) -> AnyView {
    let route = use_route();
    let name = move |id| schema_name(format, id);
    let list = &d.versions;
    let chosen = chosen.unwrap_or(d.current);
    let Some(idx) = list.iter().position(|s| s.id == chosen) else {
        return view! { <ErrorPanel title="No such schema" message=format!("{} does not exist; pick a version in the history.", name(chosen)) /> }.into_any();
    };
    let s = list[idx].clone();
    let history = list
        .iter()
        .enumerate()
        .rev()
        .map(|(i, v)| {
            let id = v.id;
            let when = match v.time_millis {
                Some(ms) => time(ms),
                None if id == d.current => "current".into(),
                None => String::new(),
            };
            view! {
                <li>
                    <button class="hist" class:selected=id == chosen data-testid="schema-version" data-schema=id
                        on:click=move |_| go(route, |r| r.schema = Some(id))>
                        <span class="hist-id">{name(id)}</span>
                        <span class="muted">{when}</span>
                        <span class="hist-sum">{summary(i, v)}</span>
                    </button>
                </li>
            }
        })
        .collect_view();
    let changes = if idx == 0 {
        view! { <li class="muted">"The table was created with this schema."</li> }.into_any()
    } else if s.changes.is_empty() {
        // Paimon's options are part of its schema; Iceberg's properties are not.
        let what = match format {
            Format::Paimon => "No changes to columns or options.",
            Format::Iceberg => "No changes to columns.",
        };
        view! { <li class="muted">{what}</li> }.into_any()
    } else {
        s.changes
            .iter()
            .map(|c| {
                let (k, kind, class) = (c.kind.clone(), c.kind.clone(), format!("chg chg-{}", c.kind));
                view! { <li data-change=kind><span class=class>{k}</span>" "<span class="mono">{c.text.clone()}</span></li> }
            })
            .collect_view()
            .into_any()
    };
    let highest = s
        .highest_field_id
        .map(|h| format!(" · highest field id {h}"))
        .unwrap_or_default();
    let specs = (!d.specs.is_empty()).then(|| {
        view! {
            <h2>"Partition specs"</h2>
            <div data-testid="partition-specs">{specs_view(&d.specs)}</div>
        }
    });
    view! {
        <div class="split">
            <section class="card grow1">
                <h2>{format!("Fields of {}", name(s.id))} <span class="muted">{highest}</span></h2>
                <table class="tbl" data-testid="schema-fields">
                    <thead><tr><th>"id"</th><th>"name"</th><th>"type"</th><th>"null"</th><th>"key"</th><th>"comment"</th></tr></thead>
                    <tbody>
                        {s.fields.iter().map(|f| view! {
                            <tr data-field=f.name.clone()>
                                <td class="mono muted">{f.id}</td>
                                <td class="mono strong">{f.name.clone()}</td>
                                <td class="mono type">{f.type_text.clone()}</td>
                                <td>{if f.nullable { "nullable" } else { "NOT NULL" }}</td>
                                <td>{f.key.clone()}</td>
                                <td class="comment">{f.comment.clone().unwrap_or_default()}</td>
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
                <h2>{if idx == 0 { "Initial version".to_string() } else { format!("Changes from {} to {}", name(list[idx - 1].id), name(s.id)) }}</h2>
                <ul class="changes" data-testid="schema-diff">{changes}</ul>
                {specs}
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
pub fn SchemaTab(sel: Selection) -> impl IntoView {
    let route = use_route();
    let schemas = RwSignal::new_local(Load::<(Format, Schemas)>::Loading(
        "Reading schema files…".into(),
    ));
    let path = sel.table.path.clone();
    spawn_local(async move {
        let loaded = async {
            let t = warehouse::any_table(&path).await?;
            let list = t.schemas().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((t.format(), list))
        };
        schemas.set(loaded.await.map_or_else(Load::Failed, Load::Ready));
    });
    move || match schemas.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => {
            view! { <ErrorPanel title="Cannot read the schema" message=m /> }.into_any()
        }
        Load::Ready((format, d)) => schema_view(format, d, route.with(|r| r.schema)),
    }
}
