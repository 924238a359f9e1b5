//! Maps the absolute locations of files Paimon wrote outside the table folder (`_EXTERNAL_PATH`,
//! option `data-file.external-paths`) onto keys of the table's store, or refuses them by name.

use super::Table;
use crate::error::{Error, Result};
use lakescope_storage::join;

/// A URI's file system and path: `s3a://b/p` → (`s3`, `b/p`); `file:/x`, `file:///x` and `/x`
/// → (`file`, `x`); `https://h/p` → (`https`, `h/p`). The S3 schemes Hadoop and Paimon accept
/// (`s3`, `s3a`, `s3n`) name one file system.
fn file_system_and_path(uri: &str) -> (String, &str) {
    let (scheme, rest) = match uri.split_once(':') {
        Some((scheme, rest))
            if !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            (scheme.to_ascii_lowercase(), rest)
        }
        _ => ("file".to_string(), uri),
    };
    let scheme = match scheme.as_str() {
        "s3a" | "s3n" => "s3".to_string(),
        _ => scheme,
    };
    (scheme, rest.trim_start_matches('/'))
}

/// The key, below the store rooted at `root` (a URI), of the file at the absolute `location`;
/// `None` when the location is on another file system, outside the root, or leaves it (`..`).
pub(crate) fn key_below_root(root: &str, location: &str) -> Option<String> {
    let (root_fs, root_path) = file_system_and_path(root);
    let (fs, path) = file_system_and_path(location);
    if root_fs != fs {
        return None;
    }
    let root_path = root_path.trim_end_matches('/');
    let rest = if root_path.is_empty() {
        path
    } else {
        path.strip_prefix(root_path)?.strip_prefix('/')?
    };
    let inside = !rest.is_empty()
        && rest
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..");
    inside.then(|| rest.to_string())
}

impl Table {
    /// Store key of `file_name` (a data or index file of this table), which Paimon wrote at the
    /// absolute `location` (its `_EXTERNAL_PATH`). The location must lie below the root of the
    /// store the table is read from ([`lakescope_storage::ObjectStore::root_uri`]); anything
    /// else is refused naming the file and the location.
    pub fn external_file_key(&self, file_name: &str, location: &str) -> Result<String> {
        let root = self.store.root_uri();
        root.as_deref()
            .and_then(|root| key_below_root(root, location))
            .ok_or_else(|| {
                Error::unsupported(
                    join(&self.path, file_name),
                    format!(
                        "external data path {location} (option 'data-file.external-paths') is \
                         outside the store the table is read from ({}); lakescope reads a table's \
                         files through that one store",
                        root.unwrap_or_else(|| self.store.describe())
                    ),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::key_below_root;

    #[test]
    fn external_locations_below_the_root_become_keys() {
        let below = |root, location| key_below_root(root, location);
        assert_eq!(
            below(
                "file:///tmp/wh",
                "file:/tmp/wh/external/a/bucket-0/f.parquet"
            )
            .as_deref(),
            Some("external/a/bucket-0/f.parquet")
        );
        assert_eq!(
            below("file:///tmp/wh/", "/tmp/wh/x/f.orc").as_deref(),
            Some("x/f.orc")
        );
        assert_eq!(
            below("s3://lake/wh", "s3a://lake/wh/ext/f.parquet").as_deref(),
            Some("ext/f.parquet")
        );
        assert_eq!(
            below("s3://lake/", "s3://lake/ext/f.parquet").as_deref(),
            Some("ext/f.parquet")
        );
        // another file system, bucket or folder, a sibling with the root as prefix, `..`
        assert_eq!(below("file:///tmp/wh", "s3://tmp/wh/f.parquet"), None);
        assert_eq!(below("s3://lake/wh", "s3://other/wh/f.parquet"), None);
        assert_eq!(below("file:///tmp/wh", "file:/tmp/wh2/f.parquet"), None);
        assert_eq!(below("file:///tmp/wh", "file:/tmp/wh/../etc/f"), None);
        assert_eq!(below("https://host/wh/", "s3://host/wh/f.parquet"), None);
        assert_eq!(below("file:///tmp/wh", "file:/tmp/wh"), None);
    }
}
