//! The DDL tab: a Paimon table's CREATE TABLE (as SHOW CREATE TABLE gives it) and an ALTER TABLE
//! editor validated live by the SQL worker, with a preview of the next schema and a commit.

mod check;
mod commit;
mod create;

use crate::app::Selection;
use crate::state::warehouse;
use crate::util::Load;
use crate::widgets::ddl_editor::DdlEditor;
use check::{check_while_typing, Check, CheckStatus};
use commit::CommitBar;
use create::CreateCard;
use lakescope_engine::sql_editor::{ddl_schema, quote_ident, TableSchema};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub fn DdlTab(sel: Selection) -> impl IntoView {
    let schema = RwSignal::new_local(Load::<Option<TableSchema>>::Loading(
        "Reading the schema…".into(),
    ));
    // Bumped after a commit: the schema is read again.
    let reloads = RwSignal::new(0u32);
    let path = sel.table.path.clone();
    Effect::new(move |_| {
        reloads.track();
        let path = path.clone();
        spawn_local(async move {
            let loaded = async {
                let tables = warehouse::tables()?;
                let schema = ddl_schema(&tables, &path).await;
                schema.map_err(|e| e.to_string())
            };
            let _ = schema.try_set(match loaded.await {
                Ok(s) => Load::Ready(s),
                Err(m) => Load::Failed(m),
            });
        });
    });
    let name = [sel.database.clone(), sel.table.name.clone()];
    let prefill = format!(
        "ALTER TABLE {}.{} ",
        quote_ident(&name[0]),
        quote_ident(&name[1])
    );
    let text = RwSignal::new(prefill.clone());
    let check = RwSignal::new(Check::Idle);
    let prefill = StoredValue::new(prefill);
    let columns = Signal::derive(move || match schema.get() {
        Load::Ready(Some(s)) => s.fields.iter().map(|f| f.name.clone()).collect(),
        _ => Vec::new(),
    });
    check_while_typing(text, prefill, reloads, check);
    let error = Signal::derive(move || match check.get() {
        Check::Invalid { pos, message } => Some((text.with(|t| pos.char_offset(t)), message)),
        _ => None,
    });
    view! {
        <div class="ddl-tab" data-testid="ddl-tab">
            <section class="card"><CreateCard schema=schema name=name /></section>
            <section class="card">
                <h2>"ALTER TABLE"</h2>
                <DdlEditor text=text columns=columns error=error />
                <CheckStatus check=check />
                <CommitBar check=check text=text prefill=prefill reloads=reloads />
            </section>
        </div>
    }
}
