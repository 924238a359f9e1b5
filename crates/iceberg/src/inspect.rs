//! What the explorer shows of an Iceberg table's metadata, as plain serde data: overview facts,
//! snapshots with their summary counts and refs, schemas with the changes between versions (by
//! field id), and partition specs with their transforms.

use crate::spec::{NestedField, Schema, Snapshot, TableMetadata, Type};
use crate::table::Table;
use serde::Serialize;
use std::collections::BTreeMap;

/// The metadata of a table, ready to display.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableInfo {
    /// The table format version (`format-version`): 1, 2 or 3.
    pub format_version: u8,
    /// The table's UUID (`table-uuid`), when the metadata has one (always from v2).
    pub table_uuid: Option<String>,
    /// Location as written in the metadata (absolute URI).
    pub location: String,
    /// Store key of the metadata file that was read.
    pub metadata_file: String,
    /// When the metadata was written (`last-updated-ms`), in milliseconds since the Unix epoch.
    pub last_updated_ms: i64,
    /// The highest data sequence number assigned so far (`last-sequence-number`; 0 in v1
    /// tables).
    pub last_sequence_number: i64,
    /// The current snapshot's id: `current-snapshot-id`, else what the branch `main` points at;
    /// `None` for a table without snapshots.
    pub current_snapshot_id: Option<i64>,
    /// The current schema's id (`current-schema-id`; 0 if no schema is current).
    pub current_schema_id: i32,
    /// The id of the spec new files are written with (`default-spec-id`; 0 when absent).
    pub default_spec_id: i32,
    /// In commit order (parents before children, then by time).
    pub snapshots: Vec<SnapshotInfo>,
    /// By schema id, each with its changes from the previous one.
    pub schemas: Vec<SchemaInfo>,
    /// Every partition spec of the table, in the metadata's order.
    pub specs: Vec<SpecInfo>,
    /// The branches and tags, by name.
    pub refs: Vec<RefInfo>,
    /// The table properties, as written.
    pub properties: BTreeMap<String, String>,
}

/// A branch or tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefInfo {
    /// The ref's name (`main` is the table's main branch).
    pub name: String,
    /// `branch` or `tag`.
    pub kind: String,
    /// The snapshot the ref points at.
    pub snapshot_id: i64,
}

/// One snapshot with the counters of its summary (absent counters are `None`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotInfo {
    /// The snapshot id (`snapshot-id`).
    pub id: i64,
    /// The snapshot it was committed on top of (`parent-snapshot-id`); `None` for a first snapshot.
    pub parent_id: Option<i64>,
    /// The snapshot's data sequence number (`sequence-number`; 0 in v1 tables).
    pub sequence_number: i64,
    /// When the snapshot was created (`timestamp-ms`), in milliseconds since the Unix epoch.
    pub timestamp_ms: i64,
    /// `append`, `replace`, `overwrite`, `delete` (empty when the summary does not say).
    pub operation: String,
    /// The schema the snapshot was written with (`schema-id`), when the snapshot says.
    pub schema_id: Option<i32>,
    /// Summary `added-records`: rows in the data files the snapshot added.
    pub added_records: Option<i64>,
    /// Summary `deleted-records`: rows in the data files the snapshot removed.
    pub deleted_records: Option<i64>,
    /// Summary `added-data-files`: data files the snapshot added.
    pub added_data_files: Option<i64>,
    /// Summary `deleted-data-files`: data files the snapshot removed.
    pub deleted_data_files: Option<i64>,
    /// Summary `added-delete-files`: delete files (position, equality, deletion vectors) added.
    pub added_delete_files: Option<i64>,
    /// Summary `removed-delete-files`: delete files the snapshot removed.
    pub removed_delete_files: Option<i64>,
    /// Summary `added-position-deletes`: position-delete rows in the delete files added.
    pub added_position_deletes: Option<i64>,
    /// Summary `added-equality-deletes`: equality-delete rows in the delete files added.
    pub added_equality_deletes: Option<i64>,
    /// Summary `total-records`: rows in all the table's data files after the snapshot (deletes not
    /// applied).
    pub total_records: Option<i64>,
    /// Summary `total-data-files`: data files in the table after the snapshot.
    pub total_data_files: Option<i64>,
    /// Summary `total-delete-files`: delete files in the table after the snapshot.
    pub total_delete_files: Option<i64>,
    /// Summary `total-position-deletes`: position-delete rows in the table after the snapshot.
    pub total_position_deletes: Option<i64>,
    /// Summary `total-equality-deletes`: equality-delete rows in the table after the snapshot.
    pub total_equality_deletes: Option<i64>,
    /// Summary `total-files-size`: the size of all data and delete files after the snapshot, in
    /// bytes.
    pub total_files_size: Option<i64>,
    /// Names of the refs pointing at this snapshot.
    pub refs: Vec<String>,
    /// The whole summary, as written.
    pub summary: BTreeMap<String, String>,
}

/// A schema version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaInfo {
    /// The schema id (`schema-id`).
    pub id: i32,
    /// The top-level fields, in order.
    pub fields: Vec<FieldInfo>,
    /// The field ids of the row identifier (`identifier-field-ids`); empty when there is none.
    pub identifier_field_ids: Vec<i32>,
    /// Changes from the previous schema (by id); empty for the first.
    pub changes: Vec<SchemaChange>,
}

/// A top-level field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldInfo {
    /// The field id.
    pub id: i32,
    /// The field's name in this schema version.
    pub name: String,
    /// The type as Iceberg writes it (`long`, `decimal(9, 2)`, `list<string>`, ...).
    pub type_name: String,
    /// Whether the field is non-null (`required`).
    pub required: bool,
    /// Part of the row identifier.
    pub identifier: bool,
    /// The field's comment (`doc`), if any.
    pub doc: Option<String>,
}

/// What changed in one field between two schema versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// A field this schema has and the previous one had not (a new field id).
    Added,
    /// A field the previous schema had and this one has not.
    Dropped,
    /// The same field id under a new name.
    Renamed,
    /// A type promotion (`int` → `long`, wider decimal, ...).
    Retyped,
    /// Required ↔ optional.
    Nullability,
    /// The field's comment (`doc`) was added, changed or removed.
    Comment,
    /// The identifier fields (row key) changed.
    Identifier,
}

impl ChangeKind {
    /// A short lowercase label (`added`, `renamed`, ...).
    pub fn label(self) -> &'static str {
        match self {
            Self::Added => "added",
            Self::Dropped => "dropped",
            Self::Renamed => "renamed",
            Self::Retyped => "retyped",
            Self::Nullability => "nullability",
            Self::Comment => "comment",
            Self::Identifier => "identifier",
        }
    }
}

/// One change, with a sentence describing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaChange {
    /// What kind of change it is.
    pub kind: ChangeKind,
    /// The field id it concerns (`None` for a change of the identifier fields).
    pub field_id: Option<i32>,
    /// A sentence for display, e.g. `id: int → long` or `a → b (id 3)`.
    pub text: String,
}

/// A partition spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpecInfo {
    /// The spec id (`spec-id`).
    pub id: i32,
    /// Whether new data files are written with this spec (it is `default-spec-id`).
    pub is_default: bool,
    /// The partition fields, in order; empty for an unpartitioned spec.
    pub fields: Vec<SpecFieldInfo>,
}

/// `transform(source)` named `name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SpecFieldInfo {
    /// The partition field's id (`field-id`, from 1000).
    pub field_id: i32,
    /// The partition field's name in the partition tuple.
    pub name: String,
    /// The field id of the source column (`source-id`).
    pub source_id: i32,
    /// Name of the source column in the current schema (else in the newest schema holding it).
    pub source_name: Option<String>,
    /// The transform as written (`identity`, `bucket[16]`, `day`, ...).
    pub transform: String,
}

/// The display text of a type.
pub fn type_text(t: &Type) -> String {
    match t {
        Type::Struct(fields) => format!(
            "struct<{}>",
            fields
                .iter()
                .map(|f| format!("{}: {}", f.name, type_text(&f.field_type)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Type::List { element, .. } => format!("list<{}>", type_text(element)),
        Type::Map { key, value, .. } => format!("map<{}, {}>", type_text(key), type_text(value)),
        other => match other.to_json() {
            serde_json::Value::String(s) => s,
            v => v.to_string(),
        },
    }
}

fn field_info(schema: &Schema, f: &NestedField) -> FieldInfo {
    FieldInfo {
        id: f.id,
        name: f.name.clone(),
        type_name: type_text(&f.field_type),
        required: f.required,
        identifier: schema.identifier_field_ids.contains(&f.id),
        doc: f.doc.clone(),
    }
}

/// The changes from `old` to `new`, matching top-level fields by id.
pub fn schema_changes(old: &Schema, new: &Schema) -> Vec<SchemaChange> {
    let mut out = Vec::new();
    let mut push = |kind, id: Option<i32>, text: String| {
        out.push(SchemaChange {
            kind,
            field_id: id,
            text,
        })
    };
    for f in &new.fields {
        let ty = type_text(&f.field_type);
        let Some(o) = old.field(f.id) else {
            push(
                ChangeKind::Added,
                Some(f.id),
                format!("{} {ty} (id {})", f.name, f.id),
            );
            continue;
        };
        if o.name != f.name {
            push(
                ChangeKind::Renamed,
                Some(f.id),
                format!("{} → {} (id {})", o.name, f.name, f.id),
            );
        }
        let old_ty = type_text(&o.field_type);
        if old_ty != ty {
            push(
                ChangeKind::Retyped,
                Some(f.id),
                format!("{}: {old_ty} → {ty}", f.name),
            );
        }
        if o.required != f.required {
            let word = |r: bool| if r { "required" } else { "optional" };
            push(
                ChangeKind::Nullability,
                Some(f.id),
                format!("{}: {} → {}", f.name, word(o.required), word(f.required)),
            );
        }
        if o.doc != f.doc {
            push(
                ChangeKind::Comment,
                Some(f.id),
                format!("{}: comment changed", f.name),
            );
        }
    }
    for o in &old.fields {
        if new.field(o.id).is_none() {
            push(
                ChangeKind::Dropped,
                Some(o.id),
                format!("{} {} (id {})", o.name, type_text(&o.field_type), o.id),
            );
        }
    }
    if old.identifier_field_ids != new.identifier_field_ids {
        let names = |s: &Schema| {
            let n: Vec<String> = s
                .identifier_field_ids
                .iter()
                .map(|id| s.find_field(*id).map_or(id.to_string(), |f| f.name.clone()))
                .collect();
            if n.is_empty() {
                "none".to_string()
            } else {
                n.join(", ")
            }
        };
        push(
            ChangeKind::Identifier,
            None,
            format!("identifier fields: {} → {}", names(old), names(new)),
        );
    }
    out
}

fn count(summary: &BTreeMap<String, String>, key: &str) -> Option<i64> {
    summary.get(key).and_then(|v| v.trim().parse().ok())
}

fn snapshot_info(meta: &TableMetadata, s: &Snapshot) -> SnapshotInfo {
    let c = |k: &str| count(&s.summary, k);
    SnapshotInfo {
        id: s.snapshot_id,
        parent_id: s.parent_snapshot_id,
        sequence_number: s.sequence_number,
        timestamp_ms: s.timestamp_ms,
        operation: s.operation().unwrap_or_default().to_string(),
        schema_id: s.schema_id,
        added_records: c("added-records"),
        deleted_records: c("deleted-records"),
        added_data_files: c("added-data-files"),
        deleted_data_files: c("deleted-data-files"),
        added_delete_files: c("added-delete-files"),
        removed_delete_files: c("removed-delete-files"),
        added_position_deletes: c("added-position-deletes"),
        added_equality_deletes: c("added-equality-deletes"),
        total_records: c("total-records"),
        total_data_files: c("total-data-files"),
        total_delete_files: c("total-delete-files"),
        total_position_deletes: c("total-position-deletes"),
        total_equality_deletes: c("total-equality-deletes"),
        total_files_size: c("total-files-size"),
        refs: meta
            .refs
            .iter()
            .filter(|(_, r)| r.snapshot_id == s.snapshot_id)
            .map(|(n, _)| n.clone())
            .collect(),
        summary: s.summary.clone(),
    }
}

/// The display form of a table's metadata.
pub fn table_info(table: &Table) -> TableInfo {
    let m = table.metadata();
    let mut snaps: Vec<&Snapshot> = m.snapshots.iter().collect();
    snaps.sort_by_key(|s| (s.sequence_number, s.timestamp_ms));
    let mut schemas: Vec<&Schema> = m.schemas.iter().collect();
    schemas.sort_by_key(|s| s.schema_id);
    let schema_infos = schemas
        .iter()
        .enumerate()
        .map(|(i, s)| SchemaInfo {
            id: s.schema_id,
            fields: s.fields.iter().map(|f| field_info(s, f)).collect(),
            identifier_field_ids: s.identifier_field_ids.clone(),
            changes: match i.checked_sub(1) {
                Some(prev) => schema_changes(schemas[prev], s),
                None => Vec::new(),
            },
        })
        .collect();
    let source_name = |id: i32| {
        m.current_schema()
            .and_then(|s| s.find_field(id))
            .or_else(|| schemas.iter().rev().find_map(|s| s.find_field(id)))
            .map(|f| f.name.clone())
    };
    let default_spec_id = m.default_spec_id.unwrap_or(0);
    let specs = m
        .partition_specs
        .iter()
        .map(|spec| SpecInfo {
            id: spec.spec_id,
            is_default: spec.spec_id == default_spec_id,
            fields: spec
                .fields
                .iter()
                .map(|f| SpecFieldInfo {
                    field_id: f.field_id.unwrap_or_default(),
                    name: f.name.clone(),
                    source_id: f.source_id,
                    source_name: source_name(f.source_id),
                    transform: f.transform.clone(),
                })
                .collect(),
        })
        .collect();
    TableInfo {
        format_version: m.format_version,
        table_uuid: m.table_uuid.clone(),
        location: m.location.clone(),
        metadata_file: table.metadata_key().to_string(),
        last_updated_ms: m.last_updated_ms,
        last_sequence_number: m.last_sequence_number,
        current_snapshot_id: m.current_snapshot().map(|s| s.snapshot_id),
        current_schema_id: m.current_schema().map_or(0, |s| s.schema_id),
        default_spec_id,
        snapshots: snaps.into_iter().map(|s| snapshot_info(m, s)).collect(),
        schemas: schema_infos,
        specs,
        refs: m
            .refs
            .iter()
            .map(|(name, r)| RefInfo {
                name: name.clone(),
                kind: r.ref_type.clone(),
                snapshot_id: r.snapshot_id,
            })
            .collect(),
        properties: m.properties.clone(),
    }
}

impl TableInfo {
    /// The current snapshot.
    pub fn current_snapshot(&self) -> Option<&SnapshotInfo> {
        let id = self.current_snapshot_id?;
        self.snapshots.iter().find(|s| s.id == id)
    }

    /// The current schema.
    pub fn current_schema(&self) -> Option<&SchemaInfo> {
        self.schemas.iter().find(|s| s.id == self.current_schema_id)
    }
}
