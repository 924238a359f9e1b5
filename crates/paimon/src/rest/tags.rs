//! Tags kept by a Paimon REST catalog (`GET …/tables/{table}/tags` and `…/tags/{tag}`): the
//! service owns them, so a REST catalog's table reads its tags there ([`RestTagSource`]), not
//! (only) from its `tag/` folder.

use super::{encode, RestCatalog};
use crate::error::{Error, Result};
use crate::spec::snapshot::{Snapshot, Tag};
use crate::table::TagSource;
use async_trait::async_trait;
use serde::Deserialize;

/// `GetTagResponse`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GetTag {
    snapshot: Option<Snapshot>,
    #[serde(default)]
    tag_create_time: Option<serde_json::Value>,
    #[serde(default)]
    tag_time_retained: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListTags {
    #[serde(default)]
    tags: Vec<String>,
    next_page_token: Option<String>,
}

impl RestCatalog {
    /// Tag `tag` of a table (`GET …/tables/{table}/tags/{tag}`); `None` when the service has no
    /// such tag (`404`).
    pub async fn tag(&self, database: &str, table: &str, tag: &str) -> Result<Option<Tag>> {
        let path = format!("{}/tags/{}", self.table_path(database, table), encode(tag));
        let answer: GetTag = match self.get(&path).await {
            Ok(answer) => answer,
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let snapshot = answer.snapshot.ok_or_else(|| Error::Catalog {
            endpoint: format!("GET {}/{path}", self.uri),
            status: Some(200),
            message: format!("tag '{tag}' of {database}.{table} comes without its snapshot"),
        })?;
        Ok(Some(Tag {
            snapshot,
            tag_create_time: answer.tag_create_time,
            tag_time_retained: answer.tag_time_retained,
        }))
    }

    /// The names of a table's tags (`GET …/tables/{table}/tags`, all pages), sorted.
    pub async fn tag_names(&self, database: &str, table: &str) -> Result<Vec<String>> {
        let path = format!("{}/tags", self.table_path(database, table));
        let mut out = self
            .paged(&path, |page: ListTags| (page.tags, page.next_page_token))
            .await?;
        out.sort();
        Ok(out)
    }
}

/// A REST catalog's table's tags, read through the catalog.
#[derive(Debug, Clone)]
pub struct RestTagSource {
    catalog: RestCatalog,
    database: String,
    table: String,
}

impl RestTagSource {
    /// The tags of `database.table` in `catalog`.
    pub fn new(catalog: RestCatalog, database: &str, table: &str) -> Self {
        Self {
            catalog,
            database: database.to_string(),
            table: table.to_string(),
        }
    }
}

#[async_trait(?Send)]
impl TagSource for RestTagSource {
    async fn tag(&self, name: &str) -> Result<Option<Tag>> {
        self.catalog.tag(&self.database, &self.table, name).await
    }

    async fn tag_names(&self) -> Result<Vec<String>> {
        self.catalog.tag_names(&self.database, &self.table).await
    }

    fn describe(&self) -> String {
        format!(
            "table {}.{} of the REST catalog at {} (neither its tags endpoint nor the table's tag/ folder has it)",
            self.database, self.table, self.catalog.uri
        )
    }
}
