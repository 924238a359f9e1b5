//! `$aggregation_fields`: each column of the latest schema with its `fields.<column>.*` options
//! (aggregate function and its settings), as Paimon's `AggregationFieldsTable` lists them.

use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use std::sync::Arc;

/// The option keys in the order a Java `HashMap` filled with them in `keys` order iterates
/// them (Java reads a schema's options into one, `SchemaSerializer`): by bucket of the final
/// table size (16, doubled while more than 3/4 full), keys of one bucket in insertion order.
fn java_hash_map_order<'a>(keys: &[&'a str]) -> Vec<&'a str> {
    let mut capacity = 16usize;
    while keys.len() > capacity / 4 * 3 {
        capacity *= 2;
    }
    let bucket = |key: &str| {
        // Java `String.hashCode` over UTF-16 units, then `HashMap.hash`'s spreading
        let h = key
            .encode_utf16()
            .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
        let h = u32::from_ne_bytes(h.to_ne_bytes());
        usize::try_from(h ^ (h >> 16)).unwrap_or(0) & (capacity - 1)
    };
    let mut ordered: Vec<(usize, usize, &str)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (bucket(k), i, *k))
        .collect();
    ordered.sort_unstable();
    ordered.into_iter().map(|(_, _, k)| k).collect()
}

/// Java `AbstractCollection.toString`: `[a, b]`, `[]` when empty.
fn java_list(items: &[&str]) -> String {
    format!("[{}]", items.join(", "))
}

/// `$aggregation_fields`: per column of the latest schema, in order, `field_name`,
/// `field_type` (Paimon's type text, `INT NOT NULL`), `function` and `function_options` (the
/// values and the keys of the options `fields.<column>.<…>`, in the order Java's `HashMap` of
/// the schema's options gives them, as Java list texts `[sum, true]`), `comment`. The options
/// are read from the schema file as written (their order decides ties in Java's map).
pub async fn aggregation_fields(table: &Table) -> Result<ReadOutput> {
    let schema = table.latest_schema().await?;
    let key = format!(
        "{}/schema/schema-{}",
        table.metadata_path().trim_end_matches('/'),
        schema.id
    );
    let bytes = table.store().get(&key).await?;
    let json: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| Error::corrupt(&key, e))?;
    let options = json
        .get("options")
        .and_then(|o| o.as_object())
        .ok_or_else(|| Error::corrupt(&key, "schema without options"))?;
    let mut entries = Vec::with_capacity(options.len());
    for (k, v) in options {
        // Jackson's `asText` of a non-text value is its JSON text; Paimon writes only strings
        let v = v
            .as_str()
            .ok_or_else(|| Error::corrupt(&key, format!("option '{k}' is not a string")))?;
        entries.push((k.as_str(), v));
    }
    let keys: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
    let ordered = java_hash_map_order(&keys);
    // Java `String.split("\\.")`: trailing empty parts dropped; `fields.<column>.<more>`
    let column_of = |k: &str| -> Option<String> {
        let mut parts: Vec<&str> = k.split('.').collect();
        while parts.last() == Some(&"") {
            parts.pop();
        }
        (parts.len() > 2 && parts[0] == "fields").then(|| parts[1].to_string())
    };
    let mut names = Vec::new();
    let mut types = Vec::new();
    let mut functions = Vec::new();
    let mut function_options = Vec::new();
    let mut comments = Vec::new();
    for field in &schema.fields {
        let mine: Vec<&str> = ordered
            .iter()
            .copied()
            .filter(|k| column_of(k).as_deref() == Some(field.name.as_str()))
            .collect();
        let values: Vec<&str> = mine
            .iter()
            .filter_map(|k| entries.iter().find(|(e, _)| e == k).map(|(_, v)| *v))
            .collect();
        names.push(field.name.clone());
        types.push(field.data_type.to_string());
        functions.push(java_list(&values));
        function_options.push(java_list(&mine));
        comments.push(field.description.clone());
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("field_name", DataType::Utf8, false),
        Field::new("field_type", DataType::Utf8, false),
        Field::new("function", DataType::Utf8, true),
        Field::new("function_options", DataType::Utf8, true),
        Field::new("comment", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(names)),
        Arc::new(StringArray::from(types)),
        Arc::new(StringArray::from(functions)),
        Arc::new(StringArray::from(function_options)),
        Arc::new(StringArray::from(comments)),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::Invalid(format!("building $aggregation_fields: {e}")))?;
    Ok(ReadOutput {
        schema,
        batches: vec![batch],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_iterate_in_java_hash_map_order() {
        // As Java 17 prints `new HashMap<>()` filled in this order: "Aa" and "BB" share a hash
        // code (bucket 0), so insertion order decides between them.
        assert_eq!(
            java_hash_map_order(&["BB", "Aa", "b", "a"]),
            ["BB", "Aa", "a", "b"]
        );
        assert_eq!(java_hash_map_order(&["Aa", "BB"]), ["Aa", "BB"]);
        // 14 keys: the table grows to 32 buckets ("q" is bucket 17 of 32, 1 of 16)
        let keys: Vec<String> = ('a'..='m').chain(['q']).map(String::from).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        assert_eq!(java_hash_map_order(&keys), keys);
    }
}
