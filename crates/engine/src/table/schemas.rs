//! The schema history of a table: each version's fields and its changes from the one before,
//! matched by field id.

use crate::Result;
use lakescope_iceberg::inspect::{table_info, SpecInfo};
use lakescope_iceberg::Table as IcebergTable;
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_paimon::table::Table as PaimonTable;
use serde::Serialize;

/// A table's schema versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Schemas {
    /// Versions by id, oldest first.
    pub versions: Vec<SchemaVersion>,
    /// The current version's id.
    pub current: i64,
    /// Iceberg's partition specs (Paimon keeps its partition keys on each schema: none here).
    pub specs: Vec<SpecInfo>,
}

/// One schema version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaVersion {
    /// Schema id.
    pub id: i64,
    /// When the version was created (Paimon; Iceberg does not record it).
    pub time_millis: Option<i64>,
    /// Columns in table order.
    pub fields: Vec<Field>,
    /// The highest field id used so far (Paimon records it).
    pub highest_field_id: Option<i64>,
    /// Changes from the version before (empty for the first).
    pub changes: Vec<SchemaChange>,
}

/// A column of a schema version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Field {
    /// Field id.
    pub id: i64,
    /// Column name.
    pub name: String,
    /// The type as the format writes it, without its nullability.
    pub type_text: String,
    /// Whether the column may be null.
    pub nullable: bool,
    /// The column's roles: `PK`, `partition` (Paimon), `identifier` (Iceberg), joined by `, `.
    pub key: String,
    /// Column comment.
    pub comment: Option<String>,
}

/// One change between two schema versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaChange {
    /// `added`, `dropped`, `renamed`, `retyped`, `comment`, `option` (Paimon), `required`,
    /// `optional` (Iceberg).
    pub kind: String,
    /// What changed, e.g. `name → full_name (id 1)`.
    pub text: String,
}

impl SchemaChange {
    fn new(kind: &str, text: String) -> Self {
        Self {
            kind: kind.to_string(),
            text,
        }
    }
}

/// The changes from Paimon schema `old` to `new`: columns matched by field id, then options.
pub fn paimon_schema_changes(old: &TableSchema, new: &TableSchema) -> Vec<SchemaChange> {
    let mut out = Vec::new();
    for f in &new.fields {
        match old.field_by_id(f.id) {
            None => out.push(SchemaChange::new(
                "added",
                format!("{} {} (id {})", f.name, f.data_type, f.id),
            )),
            Some(o) => {
                if o.name != f.name {
                    let text = format!("{} → {} (id {})", o.name, f.name, f.id);
                    out.push(SchemaChange::new("renamed", text));
                }
                if o.data_type != f.data_type {
                    let text = format!("{}: {} → {}", f.name, o.data_type, f.data_type);
                    out.push(SchemaChange::new("retyped", text));
                }
                if o.description != f.description {
                    let text = format!("{}: comment changed", f.name);
                    out.push(SchemaChange::new("comment", text));
                }
            }
        }
    }
    for o in old
        .fields
        .iter()
        .filter(|o| new.field_by_id(o.id).is_none())
    {
        let text = format!("{} {} (id {})", o.name, o.data_type, o.id);
        out.push(SchemaChange::new("dropped", text));
    }
    for (k, v) in &new.options {
        match old.options.get(k) {
            None => out.push(SchemaChange::new("option", format!("set {k} = {v}"))),
            Some(ov) if ov != v => {
                out.push(SchemaChange::new("option", format!("{k}: {ov} → {v}")))
            }
            _ => {}
        }
    }
    for k in old.options.keys().filter(|k| !new.options.contains_key(*k)) {
        out.push(SchemaChange::new("option", format!("reset {k}")));
    }
    out
}

fn paimon_fields(s: &TableSchema) -> Vec<Field> {
    s.fields
        .iter()
        .map(|f| {
            let text = f.data_type.to_string();
            let pk = s.primary_keys.contains(&f.name);
            let partition = s.partition_keys.contains(&f.name);
            let key = match (pk, partition) {
                (true, true) => "PK, partition",
                (true, false) => "PK",
                (false, true) => "partition",
                _ => "",
            };
            Field {
                id: i64::from(f.id),
                name: f.name.clone(),
                nullable: !text.ends_with("NOT NULL"),
                type_text: text.trim_end_matches(" NOT NULL").to_string(),
                key: key.to_string(),
                comment: f.description.clone(),
            }
        })
        .collect()
}

/// The schema versions of a Paimon table; the current is the latest.
pub(super) async fn paimon(table: &PaimonTable) -> Result<Schemas> {
    let list = table.schemas().await?;
    let versions = list
        .iter()
        .enumerate()
        .map(|(i, s)| SchemaVersion {
            id: s.id,
            time_millis: Some(s.time_millis),
            fields: paimon_fields(s),
            highest_field_id: Some(i64::from(s.highest_field_id)),
            changes: match i.checked_sub(1) {
                Some(prev) => paimon_schema_changes(&list[prev], s),
                None => Vec::new(),
            },
        })
        .collect();
    Ok(Schemas {
        versions,
        current: list.last().map_or(0, |s| s.id),
        specs: Vec::new(),
    })
}

/// The schema versions and partition specs of an Iceberg table's metadata.
pub(super) fn iceberg(table: &IcebergTable) -> Schemas {
    let info = table_info(table);
    let versions = info
        .schemas
        .into_iter()
        .map(|s| SchemaVersion {
            id: i64::from(s.id),
            time_millis: None,
            fields: s
                .fields
                .into_iter()
                .map(|f| Field {
                    id: i64::from(f.id),
                    name: f.name,
                    type_text: f.type_name,
                    nullable: !f.required,
                    key: if f.identifier {
                        "identifier".into()
                    } else {
                        String::new()
                    },
                    comment: f.doc,
                })
                .collect(),
            highest_field_id: None,
            changes: s
                .changes
                .into_iter()
                .map(|c| SchemaChange::new(c.kind.label(), c.text))
                .collect(),
        })
        .collect();
    Schemas {
        versions,
        current: i64::from(info.current_schema_id),
        specs: info.specs,
    }
}
