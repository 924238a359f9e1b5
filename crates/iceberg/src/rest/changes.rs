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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SnapshotRef;

    fn metadata() -> TableMetadata {
        let json = r#"{"format-version": 2, "table-uuid": "u-1", "location": "s3://b/t",
            "last-column-id": 1, "current-schema-id": 0, "default-spec-id": 0,
            "last-partition-id": 999,
            "schemas": [{"type": "struct", "schema-id": 0, "fields": [
                {"id": 1, "name": "id", "type": "long", "required": false}]}],
            "partition-specs": [{"spec-id": 0, "fields": []}],
            "properties": {"a": "1", "gone": "x"}}"#;
        TableMetadata::parse("m.json", json.as_bytes()).unwrap()
    }

    #[test]
    fn a_new_snapshot_asserts_the_ref_it_moves() {
        let base = metadata();
        let mut next = base.clone();
        let snap: crate::spec::Snapshot = serde_json::from_str(
            r#"{"snapshot-id": 5, "sequence-number": 1, "timestamp-ms": 1,
                "manifest-list": "s3://b/t/metadata/snap-5.avro",
                "summary": {"operation": "append"}, "schema-id": 0}"#,
        )
        .unwrap();
        next.snapshots.push(snap.clone());
        next.current_snapshot_id = Some(5);
        next.refs.insert(
            "main".into(),
            SnapshotRef {
                snapshot_id: 5,
                ref_type: "branch".into(),
                max_ref_age_ms: None,
                max_snapshot_age_ms: None,
                min_snapshots_to_keep: None,
            },
        );
        let (req, upd) = changes(&base, &next);
        assert!(req.contains(&TableRequirement::AssertRefSnapshotId {
            reference: "main".into(),
            snapshot_id: None
        }));
        assert!(req.contains(&TableRequirement::AssertCurrentSchemaId {
            current_schema_id: 0
        }));
        assert_eq!(
            upd,
            vec![
                TableUpdate::AddSnapshot { snapshot: snap },
                TableUpdate::SetSnapshotRef {
                    ref_name: "main".into(),
                    ref_type: "branch".into(),
                    snapshot_id: 5
                }
            ]
        );
        let json = serde_json::to_value(&req).unwrap();
        assert!(json.as_array().unwrap().iter().any(|r| r
            == &serde_json::json!({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": null})));
    }

    #[test]
    fn properties_set_and_removed() {
        let base = metadata();
        let mut next = base.clone();
        next.properties.insert("a".into(), "2".into());
        next.properties.remove("gone");
        let (_, upd) = changes(&base, &next);
        assert_eq!(
            upd,
            vec![
                TableUpdate::SetProperties {
                    updates: BTreeMap::from([("a".into(), "2".into())])
                },
                TableUpdate::RemoveProperties {
                    removals: vec!["gone".into()]
                }
            ]
        );
        assert!(changes(&base, &base).1.is_empty());
    }
}
