//! A commit as REST requirements and updates: the difference between the metadata a writer
//! started from and the metadata it produced.

use super::types::{TableRequirement, TableUpdate};
use crate::spec::TableMetadata;
use std::collections::BTreeMap;

/// What the writer's `next` metadata changed relative to `base`, and what `base` must still be
/// on the server for those changes to apply (the table, the refs' snapshots, the schema and
/// spec the files were written with, the last assigned ids when new ones were assigned).
pub fn changes(
    base: &TableMetadata,
    next: &TableMetadata,
) -> (Vec<TableRequirement>, Vec<TableUpdate>) {
    let mut requirements = Vec::new();
    let mut updates = Vec::new();
    if let Some(uuid) = &base.table_uuid {
        requirements.push(TableRequirement::AssertTableUuid { uuid: uuid.clone() });
    }
    if let Some(id) = base.current_schema_id {
        requirements.push(TableRequirement::AssertCurrentSchemaId {
            current_schema_id: id,
        });
    }
    if let Some(id) = base.default_spec_id {
        requirements.push(TableRequirement::AssertDefaultSpecId {
            default_spec_id: id,
        });
    }
    let new_schemas: Vec<_> = next
        .schemas
        .iter()
        .filter(|s| !base.schemas.iter().any(|b| b.schema_id == s.schema_id))
        .collect();
    if !new_schemas.is_empty() {
        requirements.push(TableRequirement::AssertLastAssignedFieldId {
            last_assigned_field_id: base.last_column_id,
        });
    }
    for schema in new_schemas {
        updates.push(TableUpdate::AddSchema {
            schema: schema.clone(),
            last_column_id: next.last_column_id,
        });
    }
    if let Some(id) = next
        .current_schema_id
        .filter(|id| Some(*id) != base.current_schema_id)
    {
        updates.push(TableUpdate::SetCurrentSchema { schema_id: id });
    }
    let new_specs: Vec<_> = next
        .partition_specs
        .iter()
        .filter(|s| !base.partition_specs.iter().any(|b| b.spec_id == s.spec_id))
        .collect();
    if let (false, Some(id)) = (new_specs.is_empty(), base.last_partition_id) {
        requirements.push(TableRequirement::AssertLastAssignedPartitionId {
            last_assigned_partition_id: id,
        });
    }
    for spec in new_specs {
        updates.push(TableUpdate::AddSpec { spec: spec.clone() });
    }
    if let Some(id) = next
        .default_spec_id
        .filter(|id| Some(*id) != base.default_spec_id)
    {
        updates.push(TableUpdate::SetDefaultSpec { spec_id: id });
    }
    for snapshot in &next.snapshots {
        if base.snapshot(snapshot.snapshot_id).is_none() {
            updates.push(TableUpdate::AddSnapshot {
                snapshot: snapshot.clone(),
            });
        }
    }
    for (name, r) in &next.refs {
        if base.refs.get(name) != Some(r) {
            requirements.push(TableRequirement::AssertRefSnapshotId {
                reference: name.clone(),
                snapshot_id: base.refs.get(name).map(|b| b.snapshot_id),
            });
            updates.push(TableUpdate::SetSnapshotRef {
                ref_name: name.clone(),
                ref_type: r.ref_type.clone(),
                snapshot_id: r.snapshot_id,
            });
        }
    }
    for (name, r) in &base.refs {
        if !next.refs.contains_key(name) {
            requirements.push(TableRequirement::AssertRefSnapshotId {
                reference: name.clone(),
                snapshot_id: Some(r.snapshot_id),
            });
            updates.push(TableUpdate::RemoveSnapshotRef {
                ref_name: name.clone(),
            });
        }
    }
    let set: BTreeMap<String, String> = next
        .properties
        .iter()
        .filter(|(k, v)| base.properties.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if !set.is_empty() {
        updates.push(TableUpdate::SetProperties { updates: set });
    }
    let removals: Vec<String> = base
        .properties
        .keys()
        .filter(|k| !next.properties.contains_key(*k))
        .cloned()
        .collect();
    if !removals.is_empty() {
        updates.push(TableUpdate::RemoveProperties { removals });
    }
    (requirements, updates)
}
