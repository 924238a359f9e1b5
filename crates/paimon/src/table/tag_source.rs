//! Where a table's tags live when a catalog keeps them ([`TagSource`]): a REST catalog's tags
//! endpoints, consulted before the table's own `tag/` folder.

use crate::error::Result;
use crate::spec::snapshot::Tag;
use async_trait::async_trait;

/// A catalog that keeps a table's tags (a Paimon REST catalog's `…/tables/{table}/tags`).
#[async_trait(?Send)]
pub trait TagSource {
    /// Tag `name`, or `None` when the catalog has no tag of that name.
    async fn tag(&self, name: &str) -> Result<Option<Tag>>;
    /// The names of the catalog's tags of the table.
    async fn tag_names(&self) -> Result<Vec<String>>;
    /// The table and the catalog, for errors (`table d.t of the REST catalog at …`).
    fn describe(&self) -> String;
}
