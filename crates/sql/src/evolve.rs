//! Applies a validated ALTER TABLE to a Paimon `TableSchema` (the next schema version), for the engine and tests.

use crate::ast::{AlterAction, AlterTable, ColumnPosition};
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_paimon::spec::types::DataField;

fn place(fields: &mut Vec<DataField>, f: DataField, pos: &Option<ColumnPosition>) {
    let idx = match pos {
        None => fields.len(),
        Some(ColumnPosition::First) => 0,
        Some(ColumnPosition::After(a)) => fields
            .iter()
            .position(|x| x.name == a.name)
            .map(|i| i + 1)
            .unwrap_or(fields.len()),
    };
    fields.insert(idx, f);
}

/// The schema after `alter` (call [`crate::validate`] with the old schema first). Watermark and
/// partition drops do not change the schema.
pub fn apply_alter(old: &TableSchema, alter: &AlterTable) -> TableSchema {
    let mut s = old.clone();
    s.id += 1;
    match &alter.action {
        AlterAction::Set(opts) => {
            for o in opts {
                s.options.insert(o.key.clone(), o.value.clone());
            }
        }
        AlterAction::Reset(keys) => {
            for (k, _) in keys {
                s.options.remove(k);
            }
        }
        AlterAction::RenameColumn { from, to } => {
            for f in s.fields.iter_mut().filter(|f| f.name == from.name) {
                f.name = to.name.clone();
            }
            for k in s.primary_keys.iter_mut().chain(s.partition_keys.iter_mut()) {
                if *k == from.name {
                    *k = to.name.clone();
                }
            }
        }
        AlterAction::DropColumns(cols) => {
            s.fields.retain(|f| !cols.iter().any(|c| c.name == f.name))
        }
        AlterAction::Add(ch) => {
            for cc in &ch.columns {
                let Some(t) = cc.column.data_type() else {
                    continue;
                };
                s.highest_field_id += 1;
                let f = DataField {
                    id: s.highest_field_id,
                    name: cc.column.name.name.clone(),
                    data_type: t.clone(),
                    description: cc.column.comment.clone(),
                };
                place(&mut s.fields, f, &cc.position);
            }
        }
        AlterAction::Modify(ch) => {
            for cc in &ch.columns {
                let Some(i) = s.fields.iter().position(|f| f.name == cc.column.name.name) else {
                    continue;
                };
                let mut f = s.fields.remove(i);
                if let Some(t) = cc.column.data_type() {
                    let pk = s.primary_keys.contains(&f.name);
                    f.data_type = t.clone().with_nullable(t.nullable && !pk);
                }
                if cc.column.comment.is_some() {
                    f.description = cc.column.comment.clone();
                }
                match &cc.position {
                    None => s.fields.insert(i, f),
                    p => place(&mut s.fields, f, p),
                }
            }
        }
        AlterAction::RenameTo(_)
        | AlterAction::DropWatermark(_)
        | AlterAction::DropPrimaryKey(_)
        | AlterAction::DropPartitions { .. } => {}
    }
    s
}
