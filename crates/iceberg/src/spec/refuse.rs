//! Table-metadata features lakescope does not implement, refused by name before parsing.
//!
//! Checked on the raw JSON (so that the typed parse cannot fail first with a vaguer message):
//! table encryption (`encryption-keys`, snapshot `key-id`), multi-argument partition transforms
//! (`source-ids`) and partition transforms this reader does not know.

use super::transform::Transform;
use crate::{Error, Result};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Markers {
    #[serde(default)]
    encryption_keys: Option<Vec<Value>>,
    #[serde(default)]
    snapshots: Vec<SnapshotMarkers>,
    #[serde(default)]
    partition_specs: Vec<SpecMarkers>,
    #[serde(default)]
    partition_spec: Option<Vec<FieldMarkers>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct SnapshotMarkers {
    #[serde(default)]
    snapshot_id: Option<i64>,
    #[serde(default)]
    key_id: Option<Value>,
}

#[derive(Deserialize)]
struct SpecMarkers {
    #[serde(default)]
    fields: Vec<FieldMarkers>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct FieldMarkers {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    source_ids: Option<Vec<Value>>,
    #[serde(default)]
    transform: Option<String>,
}

/// Refuses metadata (`json`, the text of `file`) using a feature lakescope does not implement.
/// JSON that does not even have these shapes is left to the typed parse to report.
pub fn check(file: &str, json: &[u8]) -> Result<()> {
    let Ok(m) = serde_json::from_slice::<Markers>(json) else {
        return Ok(());
    };
    if m.encryption_keys.as_ref().is_some_and(|k| !k.is_empty()) {
        return Err(Error::unsupported(
            file,
            "table encryption (encryption-keys): encrypted tables cannot be read",
        ));
    }
    if let Some(s) = m.snapshots.iter().find(|s| s.key_id.is_some()) {
        return Err(Error::unsupported(
            file,
            format!(
                "table encryption: snapshot {} has an encrypted manifest list (key-id)",
                s.snapshot_id.unwrap_or_default()
            ),
        ));
    }
    let fields = m
        .partition_specs
        .iter()
        .flat_map(|s| &s.fields)
        .chain(m.partition_spec.iter().flatten());
    for f in fields {
        let name = f.name.as_deref().unwrap_or("?");
        if f.source_ids.as_ref().is_some_and(|ids| ids.len() != 1) {
            return Err(Error::unsupported(
                file,
                format!("multi-argument partition transform of field '{name}' (source-ids)"),
            ));
        }
        if let Some(t) = &f.transform {
            if Transform::parse(t).is_none() {
                return Err(Error::unsupported(
                    file,
                    format!("partition transform '{t}' of field '{name}'"),
                ));
            }
        }
    }
    Ok(())
}
