//! `$consumers`: the progress of each streaming consumer (`consumer/consumer-<id>`, JSON
//! `{"nextSnapshot": N}`), as Paimon's `ConsumersTable` lists it.

use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};
use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Schema};
use serde::Deserialize;
use std::sync::Arc;

/// One consumer file.
#[derive(Deserialize)]
struct Consumer {
    #[serde(rename = "nextSnapshot")]
    next_snapshot: i64,
}

/// `$consumers`: `consumer_id`, `next_snapshot_id`, by consumer id.
pub async fn consumers(table: &Table) -> Result<ReadOutput> {
    let dir = format!("{}/consumer", table.path().trim_end_matches('/'));
    let listing = match table.store().list_dir(&dir).await {
        Ok(listing) => listing.files,
        Err(e) if e.is_not_found() => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let mut ids: Vec<&str> = listing
        .iter()
        .filter_map(|f| f.path.rsplit('/').next())
        .filter_map(|name| name.strip_prefix("consumer-"))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let dir = &dir;
    let reads = ids.iter().map(|id| async move {
        let key = format!("{dir}/consumer-{id}");
        let bytes = table.store().get(&key).await?;
        let consumer: Consumer =
            serde_json::from_slice(&bytes).map_err(|e| Error::corrupt(&key, e))?;
        Ok::<_, Error>(consumer.next_snapshot)
    });
    let next = futures::future::try_join_all(reads).await?;
    let mut id_column = StringBuilder::new();
    let mut next_column = Int64Builder::new();
    for (id, next) in ids.iter().zip(next) {
        id_column.append_value(id);
        next_column.append_value(next);
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("consumer_id", DataType::Utf8, false),
        Field::new("next_snapshot_id", DataType::Int64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(id_column.finish()), Arc::new(next_column.finish())],
    )
    .map_err(|e| Error::Invalid(format!("building $consumers: {e}")))?;
    Ok(ReadOutput {
        schema,
        batches: vec![batch],
    })
}
