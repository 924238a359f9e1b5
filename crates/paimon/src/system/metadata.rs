//! System tables built from metadata files alone: `$snapshots`, `$schemas`, `$options`, `$tags`.

use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};
use arrow_array::builder::{Int64Builder, StringBuilder, TimestampMillisecondBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use std::sync::Arc;

fn ts_field(name: &str, nullable: bool) -> Field {
    Field::new(
        name,
        DataType::Timestamp(TimeUnit::Millisecond, None),
        nullable,
    )
}

fn batch(fields: Vec<Field>, columns: Vec<ArrayRef>) -> Result<ReadOutput> {
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::Invalid(format!("building a system table: {e}")))?;
    Ok(ReadOutput {
        schema,
        batches: vec![batch],
    })
}

fn json_text<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Invalid(format!("serialising: {e}")))
}

/// `$snapshots`: one row per snapshot file that still exists.
pub async fn snapshots(table: &Table) -> Result<ReadOutput> {
    let snapshots = table.snapshots().await?;
    let mut id = Int64Builder::new();
    let mut schema_id = Int64Builder::new();
    let mut commit_user = StringBuilder::new();
    let mut commit_identifier = Int64Builder::new();
    let mut commit_kind = StringBuilder::new();
    let mut commit_time = TimestampMillisecondBuilder::new();
    let mut base = StringBuilder::new();
    let mut delta = StringBuilder::new();
    let mut changelog = StringBuilder::new();
    let mut total = Int64Builder::new();
    let mut delta_count = Int64Builder::new();
    let mut changelog_count = Int64Builder::new();
    let mut watermark = Int64Builder::new();
    for s in &snapshots {
        id.append_value(s.id);
        schema_id.append_value(s.schema_id);
        commit_user.append_value(&s.commit_user);
        commit_identifier.append_value(s.commit_identifier);
        commit_kind.append_value(json_text(&s.commit_kind)?.trim_matches('"'));
        commit_time.append_value(s.time_millis);
        base.append_value(&s.base_manifest_list);
        delta.append_value(&s.delta_manifest_list);
        changelog.append_option(s.changelog_manifest_list.as_deref());
        total.append_option(s.total_record_count);
        delta_count.append_option(s.delta_record_count);
        changelog_count.append_option(s.changelog_record_count);
        watermark.append_option(s.effective_watermark());
    }
    batch(
        vec![
            Field::new("snapshot_id", DataType::Int64, false),
            Field::new("schema_id", DataType::Int64, false),
            Field::new("commit_user", DataType::Utf8, false),
            Field::new("commit_identifier", DataType::Int64, false),
            Field::new("commit_kind", DataType::Utf8, false),
            ts_field("commit_time", false),
            Field::new("base_manifest_list", DataType::Utf8, false),
            Field::new("delta_manifest_list", DataType::Utf8, false),
            Field::new("changelog_manifest_list", DataType::Utf8, true),
            Field::new("total_record_count", DataType::Int64, true),
            Field::new("delta_record_count", DataType::Int64, true),
            Field::new("changelog_record_count", DataType::Int64, true),
            Field::new("watermark", DataType::Int64, true),
        ],
        vec![
            Arc::new(id.finish()),
            Arc::new(schema_id.finish()),
            Arc::new(commit_user.finish()),
            Arc::new(commit_identifier.finish()),
            Arc::new(commit_kind.finish()),
            Arc::new(commit_time.finish()),
            Arc::new(base.finish()),
            Arc::new(delta.finish()),
            Arc::new(changelog.finish()),
            Arc::new(total.finish()),
            Arc::new(delta_count.finish()),
            Arc::new(changelog_count.finish()),
            Arc::new(watermark.finish()),
        ],
    )
}

/// `$schemas`: one row per schema version, fields and options as JSON text.
pub async fn schemas(table: &Table) -> Result<ReadOutput> {
    let schemas = table.schemas().await?;
    let mut id = Int64Builder::new();
    let mut fields = StringBuilder::new();
    let mut partition_keys = StringBuilder::new();
    let mut primary_keys = StringBuilder::new();
    let mut options = StringBuilder::new();
    let mut comment = StringBuilder::new();
    let mut update_time = TimestampMillisecondBuilder::new();
    for s in &schemas {
        id.append_value(s.id);
        fields.append_value(json_text(&s.fields)?);
        partition_keys.append_value(json_text(&s.partition_keys)?);
        primary_keys.append_value(json_text(&s.primary_keys)?);
        options.append_value(json_text(&s.options)?);
        comment.append_option(s.comment.as_deref());
        update_time.append_value(s.time_millis);
    }
    batch(
        vec![
            Field::new("schema_id", DataType::Int64, false),
            Field::new("fields", DataType::Utf8, false),
            Field::new("partition_keys", DataType::Utf8, false),
            Field::new("primary_keys", DataType::Utf8, false),
            Field::new("options", DataType::Utf8, false),
            Field::new("comment", DataType::Utf8, true),
            ts_field("update_time", false),
        ],
        vec![
            Arc::new(id.finish()),
            Arc::new(fields.finish()),
            Arc::new(partition_keys.finish()),
            Arc::new(primary_keys.finish()),
            Arc::new(options.finish()),
            Arc::new(comment.finish()),
            Arc::new(update_time.finish()),
        ],
    )
}

/// `$options`: the latest schema's options as key/value rows.
pub async fn options(table: &Table) -> Result<ReadOutput> {
    let schema = table.latest_schema().await?;
    let mut key = StringBuilder::new();
    let mut value = StringBuilder::new();
    for (k, v) in &schema.options {
        key.append_value(k);
        value.append_value(v);
    }
    batch(
        vec![
            Field::new("key", DataType::Utf8, false),
            Field::new("value", DataType::Utf8, false),
        ],
        vec![Arc::new(key.finish()), Arc::new(value.finish())],
    )
}

/// `$tags`: one row per tag with the tagged snapshot's facts.
pub async fn tags(table: &Table) -> Result<ReadOutput> {
    let tags = table.tags().await?;
    let mut name = StringBuilder::new();
    let mut snapshot_id = Int64Builder::new();
    let mut schema_id = Int64Builder::new();
    let mut commit_time = TimestampMillisecondBuilder::new();
    let mut record_count = Int64Builder::new();
    for (tag_name, tag) in &tags {
        name.append_value(tag_name);
        snapshot_id.append_value(tag.snapshot.id);
        schema_id.append_value(tag.snapshot.schema_id);
        commit_time.append_value(tag.snapshot.time_millis);
        record_count.append_option(tag.snapshot.total_record_count);
    }
    batch(
        vec![
            Field::new("tag_name", DataType::Utf8, false),
            Field::new("snapshot_id", DataType::Int64, false),
            Field::new("schema_id", DataType::Int64, false),
            ts_field("commit_time", false),
            Field::new("record_count", DataType::Int64, true),
        ],
        vec![
            Arc::new(name.finish()),
            Arc::new(snapshot_id.finish()),
            Arc::new(schema_id.finish()),
            Arc::new(commit_time.finish()),
            Arc::new(record_count.finish()),
        ],
    )
}

/// `$branches`: one row per branch other than `main`, as Java Paimon 0.9's `BranchesTable`:
/// `created_from_tag` is the tag on the branch's earliest snapshot when one is there (a branch
/// made from a tag starts with a copy of it), `created_from_snapshot` that earliest snapshot.
/// `create_time` (Java: the folder's modification time) is NULL: object stores list no folder
/// times.
pub async fn branches(table: &Table) -> Result<ReadOutput> {
    let names = table.branches().await?;
    let mut name = StringBuilder::new();
    let mut from_tag = StringBuilder::new();
    let mut from_snapshot = Int64Builder::new();
    let mut create_time = TimestampMillisecondBuilder::new();
    for branch_name in &names {
        let branch = table.branch(branch_name).await?;
        let earliest = branch.earliest_snapshot_id().await?;
        let tags = branch.tags().await?;
        // Java: the tags sorted by snapshot, the first; a tag only when it is on the earliest
        let first = tags.iter().min_by_key(|(n, t)| (t.snapshot.id, n.clone()));
        let (tag, snapshot) = match first {
            Some((n, t)) if Some(t.snapshot.id) == earliest => (Some(n.as_str()), earliest),
            _ => (None, earliest),
        };
        name.append_value(branch_name);
        from_tag.append_option(tag);
        from_snapshot.append_option(snapshot);
        create_time.append_null();
    }
    batch(
        vec![
            Field::new("branch_name", DataType::Utf8, false),
            Field::new("created_from_tag", DataType::Utf8, true),
            Field::new("created_from_snapshot", DataType::Int64, true),
            ts_field("create_time", true),
        ],
        vec![
            Arc::new(name.finish()),
            Arc::new(from_tag.finish()),
            Arc::new(from_snapshot.finish()),
            Arc::new(create_time.finish()),
        ],
    )
}
