//! The DDL tab's first card: the table's CREATE TABLE statement, as SHOW CREATE TABLE gives it.

use crate::util::{Busy, ErrorPanel, Load};
use lakescope_engine::sql_editor::{highlight, show_create_table, TableSchema};
use leptos::prelude::*;

/// Highlighted, read-only DDL.
#[component]
fn DdlText(text: String) -> impl IntoView {
    let segments = highlight(&text, None)
        .into_iter()
        .map(|s| view! { <span class=s.class>{s.text}</span> })
        .collect_view();
    view! { <pre class="ddl-show" data-testid="ddl-create">{segments}</pre> }
}

/// The CREATE TABLE of the table `name` (database, table) once its `schema` is read (`None`:
/// an Iceberg table, which the DDL tab does not edit).
#[component]
pub fn CreateCard(
    schema: RwSignal<Load<Option<TableSchema>>, LocalStorage>,
    name: [String; 2],
) -> impl IntoView {
    move || {
        match schema.get() {
        Load::Loading(t) => view! { <Busy text=t /> }.into_any(),
        Load::Failed(m) => view! { <ErrorPanel title="Cannot read the schema" message=m /> }.into_any(),
        Load::Ready(None) => view! {
            <p class="muted" data-testid="ddl-iceberg">
                "An Iceberg table: its fields and history are in the Schema tab; the DDL tab edits Paimon tables."
            </p>
        }
        .into_any(),
        Load::Ready(Some(s)) => {
            let parts = ["lakescope", name[0].as_str(), name[1].as_str()];
            view! {
                <h2>{format!("SHOW CREATE TABLE · schema-{}", s.id)}</h2>
                <DdlText text=show_create_table(&parts, &s) />
            }
            .into_any()
        }
    }
    }
}
