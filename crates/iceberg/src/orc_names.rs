//! ORC data files are matched by column name: refused when a name could select another field.
//!
//! Iceberg ORC files carry field ids as `iceberg.id` type attributes, which the ORC decoders
//! lakescope uses (orc-rust, the browser's ORC worker) do not expose. Matching by name equals
//! matching by id only while a read field has had one name (path) in every schema of the table
//! and no other field ever had that name; otherwise the read is refused naming the file, the
//! column and the feature, never a renamed or re-added column read from the wrong data.

use crate::spec::{TableMetadata, Type};
use crate::{Error, Result};
use lakescope_format::spec::{DataField, DataType, TypeKind};
use std::collections::{BTreeSet, HashMap};

/// Refuses reading `read_fields` from the ORC data file `key` by name when a name is ambiguous
/// in the table's schema history.
pub fn check(key: &str, meta: &TableMetadata, read_fields: &[DataField]) -> Result<()> {
    let mut paths_of: HashMap<i32, BTreeSet<String>> = HashMap::new();
    let mut ids_of: HashMap<String, BTreeSet<i32>> = HashMap::new();
    for schema in &meta.schemas {
        for f in &schema.fields {
            record(f.id, &f.name, &f.field_type, &mut paths_of, &mut ids_of);
        }
    }
    let mut read = Vec::new();
    for f in read_fields {
        read_ids(f, &mut read);
    }
    for id in read {
        let Some(paths) = paths_of.get(&id) else {
            continue;
        };
        let names = paths.iter().cloned().collect::<Vec<_>>().join("', '");
        if paths.len() > 1 {
            return Err(refusal(
                key,
                format!("field id {id} has had several names ('{names}')"),
            ));
        }
        for path in paths {
            if let Some(ids) = ids_of.get(path).filter(|ids| ids.len() > 1) {
                let ids = ids.iter().map(i32::to_string).collect::<Vec<_>>();
                return Err(refusal(
                    key,
                    format!("the name '{path}' has named field ids {}", ids.join(", ")),
                ));
            }
        }
    }
    Ok(())
}

fn refusal(key: &str, why: String) -> Error {
    Error::unsupported(
        key,
        format!(
            "ORC data file columns matched by name, but {why} (ORC iceberg.id attributes are not read)"
        ),
    )
}

fn record(
    id: i32,
    path: &str,
    t: &Type,
    paths_of: &mut HashMap<i32, BTreeSet<String>>,
    ids_of: &mut HashMap<String, BTreeSet<i32>>,
) {
    paths_of.entry(id).or_default().insert(path.to_string());
    ids_of.entry(path.to_string()).or_default().insert(id);
    nested(path, t, paths_of, ids_of);
}

fn nested(
    path: &str,
    t: &Type,
    paths_of: &mut HashMap<i32, BTreeSet<String>>,
    ids_of: &mut HashMap<String, BTreeSet<i32>>,
) {
    match t {
        Type::Struct(fields) => {
            for f in fields {
                let p = format!("{path}.{}", f.name);
                record(f.id, &p, &f.field_type, paths_of, ids_of);
            }
        }
        Type::List { element, .. } => nested(&format!("{path}.element"), element, paths_of, ids_of),
        Type::Map { key, value, .. } => {
            nested(&format!("{path}.key"), key, paths_of, ids_of);
            nested(&format!("{path}.value"), value, paths_of, ids_of);
        }
        _ => {}
    }
}

/// The field ids of `f` and of the fields inside it.
pub(crate) fn read_ids(f: &DataField, out: &mut Vec<i32>) {
    out.push(f.id);
    type_ids(&f.data_type, out);
}

fn type_ids(t: &DataType, out: &mut Vec<i32>) {
    match &t.kind {
        TypeKind::Row(children) => children.iter().for_each(|c| read_ids(c, out)),
        TypeKind::Array(e) | TypeKind::Multiset(e) => type_ids(e, out),
        TypeKind::Map(k, v) => {
            type_ids(k, out);
            type_ids(v, out);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(schemas: &str) -> TableMetadata {
        let json = format!(
            r#"{{"format-version":2,"table-uuid":"u","location":"s3://b/t","last-sequence-number":0,
            "last-updated-ms":1,"last-column-id":3,"current-schema-id":1,"schemas":[{schemas}],
            "default-spec-id":0,"partition-specs":[{{"spec-id":0,"fields":[]}}],
            "last-partition-id":999}}"#
        );
        serde_json::from_str(&json).unwrap()
    }

    fn long(id: i32, name: &str) -> DataField {
        DataField {
            id,
            name: name.into(),
            data_type: DataType::nullable(TypeKind::BigInt),
            description: None,
        }
    }

    #[test]
    fn renamed_or_reused_names_are_refused() {
        let s0 = r#"{"type":"struct","schema-id":0,"fields":[
            {"id":1,"name":"a","required":false,"type":"long"},
            {"id":2,"name":"b","required":false,"type":"long"}]}"#;
        // b renamed to c; a dropped and a new column named a added (id 3).
        let s1 = r#"{"type":"struct","schema-id":1,"fields":[
            {"id":2,"name":"c","required":false,"type":"long"},
            {"id":3,"name":"a","required":false,"type":"long"}]}"#;
        let m = meta(&format!("{s0},{s1}"));
        assert!(check("d.orc", &meta(s0), &[long(1, "a"), long(2, "b")]).is_ok());
        let err = check("d.orc", &m, &[long(2, "c")]).unwrap_err().to_string();
        assert!(
            err.contains("d.orc") && err.contains("'b', 'c'") && err.contains("iceberg.id"),
            "{err}"
        );
        let err = check("d.orc", &m, &[long(3, "a")]).unwrap_err().to_string();
        assert!(err.contains("'a'") && err.contains("1, 3"), "{err}");
    }
}
