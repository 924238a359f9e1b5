//! ALTER TABLE through a Paimon REST catalog (`POST …/tables/{table}`, `AlterTableRequest`): the
//! change from one schema to the next as the catalog's `SchemaChange` list, which the service
//! applies in order and writes as the next schema.

use super::RestCatalog;
use crate::error::{Error, Result};
use crate::spec::schema::TableSchema;
use crate::spec::types::{DataField, DataType};
use lakescope_storage::transport::may_have_applied;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Where `addColumn` puts the new column (`Move`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Move {
    /// The new column.
    pub field_name: String,
    /// The column it goes after (`AFTER`); `None` with `FIRST`.
    pub reference_field_name: Option<String>,
    /// `FIRST` or `AFTER`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// One `SchemaChange` of Paimon's REST `AlterTableRequest` (its `action` names the kind).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "action",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum SchemaChange {
    /// Sets a table option.
    SetOption {
        /// The option.
        key: String,
        /// Its value.
        value: String,
    },
    /// Removes a table option.
    RemoveOption {
        /// The option.
        key: String,
    },
    /// Sets (or, `None`, removes) the table comment.
    UpdateComment {
        /// The comment.
        comment: Option<String>,
    },
    /// Adds a column.
    AddColumn {
        /// The column's name (one element: a top-level column).
        field_names: Vec<String>,
        /// Its type, with nullability.
        data_type: DataType,
        /// Its comment.
        comment: Option<String>,
        /// Where it goes (`None`: last).
        #[serde(rename = "move")]
        position: Option<Move>,
    },
    /// Renames a column.
    RenameColumn {
        /// The column's current name.
        field_names: Vec<String>,
        /// Its new name.
        new_name: String,
    },
    /// Drops a column.
    DropColumn {
        /// The column.
        field_names: Vec<String>,
    },
    /// Changes a column's type (with its nullability).
    UpdateColumnType {
        /// The column.
        field_names: Vec<String>,
        /// The new type.
        new_data_type: DataType,
        /// Whether the column keeps its nullability (`false`: the new type's).
        keep_nullability: bool,
    },
    /// Sets (or, `None`, removes) a column's comment.
    UpdateColumnComment {
        /// The column.
        field_names: Vec<String>,
        /// The comment.
        new_comment: Option<String>,
    },
}

#[derive(Serialize)]
struct AlterTableRequest<'a> {
    changes: &'a [SchemaChange],
}

/// The schema changes that turn `old` into `new` (columns matched by field id), in an order the
/// service can apply one by one: renames, drops, additions (each after the column before it in
/// `new`), type and comment updates, then options and the table comment. A change the REST
/// protocol cannot express — other primary or partition keys, existing columns in another
/// order — is [`Error::Unsupported`] naming it, and nothing is sent.
pub fn schema_changes(
    table: &str,
    old: &TableSchema,
    new: &TableSchema,
) -> Result<Vec<SchemaChange>> {
    let unsupported = |what: &str| Error::Unsupported {
        file: table.to_string(),
        feature: format!("{what} through a Paimon REST catalog's alterTable (nothing was changed)"),
    };
    if old.primary_keys != new.primary_keys {
        return Err(unsupported("changing the primary key"));
    }
    if old.partition_keys != new.partition_keys {
        return Err(unsupported("changing the partition keys"));
    }
    let old_by_id: HashMap<i32, &DataField> = old.fields.iter().map(|f| (f.id, f)).collect();
    let new_ids: Vec<i32> = new.fields.iter().map(|f| f.id).collect();
    let kept_in_old: Vec<i32> = old
        .fields
        .iter()
        .map(|f| f.id)
        .filter(|id| new_ids.contains(id))
        .collect();
    let kept_in_new: Vec<i32> = new_ids
        .iter()
        .copied()
        .filter(|id| old_by_id.contains_key(id))
        .collect();
    if kept_in_old != kept_in_new {
        return Err(unsupported("moving existing columns"));
    }
    let mut changes = Vec::new();
    for f in &new.fields {
        if let Some(o) = old_by_id.get(&f.id).filter(|o| o.name != f.name) {
            changes.push(SchemaChange::RenameColumn {
                field_names: vec![o.name.clone()],
                new_name: f.name.clone(),
            });
        }
    }
    for o in old.fields.iter().filter(|o| !new_ids.contains(&o.id)) {
        changes.push(SchemaChange::DropColumn {
            field_names: vec![o.name.clone()],
        });
    }
    for (i, f) in new.fields.iter().enumerate() {
        if old_by_id.contains_key(&f.id) {
            continue;
        }
        let position = match i.checked_sub(1).map(|p| &new.fields[p]) {
            None => Some(Move {
                field_name: f.name.clone(),
                reference_field_name: None,
                kind: "FIRST",
            }),
            // last among the kept columns and those added before it: no move
            Some(_)
                if new.fields[i + 1..]
                    .iter()
                    .all(|n| !old_by_id.contains_key(&n.id)) =>
            {
                None
            }
            Some(before) => Some(Move {
                field_name: f.name.clone(),
                reference_field_name: Some(before.name.clone()),
                kind: "AFTER",
            }),
        };
        changes.push(SchemaChange::AddColumn {
            field_names: vec![f.name.clone()],
            data_type: f.data_type.clone(),
            comment: f.description.clone(),
            position,
        });
    }
    for f in &new.fields {
        let Some(o) = old_by_id.get(&f.id) else {
            continue;
        };
        if o.data_type != f.data_type {
            changes.push(SchemaChange::UpdateColumnType {
                field_names: vec![f.name.clone()],
                new_data_type: f.data_type.clone(),
                keep_nullability: false,
            });
        }
        if o.description != f.description {
            changes.push(SchemaChange::UpdateColumnComment {
                field_names: vec![f.name.clone()],
                new_comment: f.description.clone(),
            });
        }
    }
    changes.extend(option_changes(&old.options, &new.options));
    if old.comment != new.comment {
        changes.push(SchemaChange::UpdateComment {
            comment: new.comment.clone(),
        });
    }
    Ok(changes)
}

/// `setOption` for each option `new` sets or changes, `removeOption` for each it drops.
fn option_changes(
    old: &BTreeMap<String, String>,
    new: &BTreeMap<String, String>,
) -> Vec<SchemaChange> {
    let set = new
        .iter()
        .filter(|(k, v)| old.get(*k) != Some(*v))
        .map(|(k, v)| SchemaChange::SetOption {
            key: k.clone(),
            value: v.clone(),
        });
    let removed = old
        .keys()
        .filter(|k| !new.contains_key(*k))
        .map(|k| SchemaChange::RemoveOption { key: k.clone() });
    set.chain(removed).collect()
}

impl RestCatalog {
    /// Alters a table with `changes`, applied by the service in order (`POST
    /// /v1/{prefix}/databases/{database}/tables/{table}`). A refusal says nothing was changed;
    /// a `5xx` (but `501`), no answer or an unreadable one says the change may or may not have
    /// been applied, since the service may have written the next schema before failing.
    pub async fn alter_table(
        &self,
        database: &str,
        table: &str,
        changes: &[SchemaChange],
    ) -> Result<()> {
        let body = serde_json::to_vec(&AlterTableRequest { changes })
            .map_err(|e| Error::Invalid(format!("encoding a REST catalog request: {e}")))?;
        match self
            .send("POST", &self.table_path(database, table), Some(body))
            .await
        {
            Err(Error::Catalog {
                endpoint,
                status,
                message,
            }) => {
                let outcome = if may_have_applied(status) {
                    "the schema change may or may not have been applied: DESCRIBE the table before altering it again"
                } else {
                    "nothing was changed"
                };
                Err(Error::Catalog {
                    endpoint,
                    status,
                    message: format!("altering table {database}.{table}: {message} ({outcome})"),
                })
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rest::RestOptions;
    use lakescope_storage::transport::CannedTransport;
    use std::rc::Rc;

    fn schema(json: &str) -> TableSchema {
        serde_json::from_str(json).unwrap()
    }

    const OLD: &str = r#"{"version":3,"id":0,"fields":[
        {"id":0,"name":"id","type":"BIGINT NOT NULL"},{"id":1,"name":"v","type":"STRING"},
        {"id":2,"name":"w","type":"INT"}],
        "highestFieldId":2,"partitionKeys":[],"primaryKeys":["id"],
        "options":{"bucket":"1","a":"1"},"timeMillis":0}"#;

    #[test]
    fn renames_drops_adds_then_options_in_the_protocol_form() {
        let new = schema(
            r#"{"version":3,"id":1,"fields":[
            {"id":3,"name":"first","type":"INT"},{"id":0,"name":"id","type":"BIGINT NOT NULL"},
            {"id":1,"name":"value","type":"STRING","description":"c"},{"id":4,"name":"mid","type":"DOUBLE"},
            {"id":5,"name":"last","type":"STRING"}],
            "highestFieldId":5,"partitionKeys":[],"primaryKeys":["id"],
            "options":{"bucket":"1","b":"2"},"comment":"t","timeMillis":0}"#,
        );
        let changes = schema_changes("d.t", &schema(OLD), &new).unwrap();
        let json = serde_json::to_value(&changes).unwrap();
        assert_eq!(
            json,
            serde_json::json!([
                {"action":"renameColumn","fieldNames":["v"],"newName":"value"},
                {"action":"dropColumn","fieldNames":["w"]},
                {"action":"addColumn","fieldNames":["first"],"dataType":"INT","comment":null,
                 "move":{"fieldName":"first","referenceFieldName":null,"type":"FIRST"}},
                // only new columns follow: appended in order, no move
                {"action":"addColumn","fieldNames":["mid"],"dataType":"DOUBLE","comment":null,"move":null},
                {"action":"addColumn","fieldNames":["last"],"dataType":"STRING","comment":null,"move":null},
                {"action":"updateColumnComment","fieldNames":["value"],"newComment":"c"},
                {"action":"setOption","key":"b","value":"2"},
                {"action":"removeOption","key":"a"},
                {"action":"updateComment","comment":"t"},
            ])
        );
    }

    #[test]
    fn a_column_added_between_kept_ones_goes_after_its_left_neighbour() {
        let new = schema(
            r#"{"version":3,"id":1,"fields":[
            {"id":0,"name":"id","type":"BIGINT NOT NULL"},{"id":3,"name":"x","type":"INT"},
            {"id":1,"name":"v","type":"STRING"},{"id":4,"name":"y","type":"INT"},
            {"id":2,"name":"w","type":"INT"}],
            "highestFieldId":4,"partitionKeys":[],"primaryKeys":["id"],
            "options":{"bucket":"1","a":"1"},"timeMillis":0}"#,
        );
        let changes = schema_changes("d.t", &schema(OLD), &new).unwrap();
        assert_eq!(
            serde_json::to_value(&changes).unwrap(),
            serde_json::json!([
                {"action":"addColumn","fieldNames":["x"],"dataType":"INT","comment":null,
                 "move":{"fieldName":"x","referenceFieldName":"id","type":"AFTER"}},
                {"action":"addColumn","fieldNames":["y"],"dataType":"INT","comment":null,
                 "move":{"fieldName":"y","referenceFieldName":"v","type":"AFTER"}},
            ])
        );
    }

    /// `alter_table` on a catalog whose answer to the alter is `answer`.
    async fn alter_answered(answer: (u16, &str)) -> Result<()> {
        let transport = Rc::new(CannedTransport::new([
            (200, r#"{"defaults":{"prefix":"pre"}}"#),
            answer,
        ]));
        let options = RestOptions {
            warehouse: "wh".into(),
            ..RestOptions::default()
        };
        let catalog = RestCatalog::connect("http://h", &options, transport)
            .await
            .unwrap();
        let changes = [SchemaChange::SetOption {
            key: "k".into(),
            value: "v".into(),
        }];
        catalog.alter_table("d", "t", &changes).await
    }

    #[tokio::test]
    async fn an_alter_answered_with_anything_but_an_error_is_done() {
        for body in ["", "{}", "null", r#"{"ignored":[1]}"#] {
            let answer = alter_answered((200, body)).await;
            assert!(answer.is_ok(), "{body:?}: {answer:?}");
        }
    }

    #[tokio::test]
    async fn an_alter_that_fails_says_whether_the_schema_may_have_changed() {
        let endpoint = "POST http://h/v1/pre/databases/d/tables/t";
        for (answer, outcome) in [
            ((400, r#"{"message":"bad change"}"#), "nothing was changed"),
            ((501, "not here"), "nothing was changed"),
            (
                (500, "<html>oops</html>"),
                "may or may not have been applied",
            ),
            ((503, ""), "may or may not have been applied"),
            (
                (200, "<html>proxy</html>"),
                "may or may not have been applied",
            ),
        ] {
            let e = alter_answered(answer).await.unwrap_err().to_string();
            assert!(
                e.contains(endpoint) && e.contains("altering table d.t") && e.contains(outcome),
                "{answer:?}: {e}"
            );
        }
    }

    #[test]
    fn key_changes_and_moves_are_refused_by_name() {
        let old = schema(OLD);
        let mut no_pk = old.clone();
        no_pk.primary_keys.clear();
        let e = schema_changes("d.t", &old, &no_pk).unwrap_err().to_string();
        assert!(
            e.contains("changing the primary key") && e.contains("d.t"),
            "{e}"
        );
        let mut moved = old.clone();
        moved.fields.swap(1, 2);
        let e = schema_changes("d.t", &old, &moved).unwrap_err().to_string();
        assert!(e.contains("moving existing columns"), "{e}");
    }
}
