//! Finding the current metadata file of a table folder, and re-rooting absolute URIs onto the store.

use crate::{Error, Result};
use lakescope_storage::{join, ObjectStore};

/// Name of the Hadoop-catalog hint file in `metadata/`.
pub const VERSION_HINT: &str = "version-hint.text";

/// The version number of a metadata file name: `00003-<uuid>.metadata.json` → 3,
/// `v3.metadata.json` → 3; also gzip-compressed: `00003-<uuid>.gz.metadata.json` (as Java and
/// pyiceberg name them) and `v3.metadata.json.gz` (older Java writers).
pub fn metadata_version(name: &str) -> Option<u64> {
    let stem = name
        .strip_suffix(".metadata.json")
        .or_else(|| name.strip_suffix(".metadata.json.gz"))?;
    let stem = stem.strip_prefix('v').unwrap_or(stem);
    let digits: String = stem.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// The key of the current metadata file of the table at `table_key`: the version named by
/// `metadata/version-hint.text` if that file exists and names a listed file (a `v<N>` file
/// advanced past a stale hint to the versions right after it, as Java's
/// `HadoopTableOperations.refresh`), else
/// the highest-numbered metadata file (`*.metadata.json`, gzip-compressed ones too).
pub async fn current_metadata_key(store: &dyn ObjectStore, table_key: &str) -> Result<String> {
    let dir = join(table_key, "metadata");
    let listing = store.list_dir(&dir).await?;
    let names: Vec<String> = listing
        .files
        .iter()
        .filter_map(|f| f.path.rsplit('/').next().map(str::to_string))
        .collect();
    let candidates: Vec<(u64, &String)> = names
        .iter()
        .filter_map(|n| metadata_version(n).map(|v| (v, n)))
        .collect();
    if names.iter().any(|n| n == VERSION_HINT) {
        let hint_key = join(&dir, VERSION_HINT);
        let hint = store.get(&hint_key).await?;
        let text = String::from_utf8_lossy(&hint).trim().to_string();
        if let Ok(mut v) = text.parse::<u64>() {
            let named = |v: u64| candidates.iter().find(|(cv, _)| *cv == v).map(|(_, n)| n);
            if let Some(mut name) = named(v) {
                // Hadoop-layout versions (`v<N>…`) are written before their hint
                while let Some(next) = named(v + 1).filter(|_| name.starts_with('v')) {
                    (v, name) = (v + 1, next);
                }
                return Ok(join(&dir, name));
            }
        } else if let Some(name) = names.iter().find(|n| **n == text) {
            return Ok(join(&dir, name));
        }
    }
    candidates
        .iter()
        .max_by_key(|(v, n)| (*v, (*n).clone()))
        .map(|(_, n)| join(&dir, n))
        .ok_or_else(|| {
            Error::not_found(
                format!("Iceberg metadata in {dir}"),
                Some("no *.metadata.json file".into()),
            )
        })
}

/// Maps the absolute URIs written in metadata onto keys of the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relocator {
    /// The table location as written (`s3://bucket/wh/db/t`), without trailing `/`.
    pub from: String,
    /// The key of the table folder in the store.
    pub to: String,
}

/// Scheme-less form of a URI: `s3://b/p` → `b/p`, `file:///x` → `x`, `/x` → `x`.
fn strip_scheme(uri: &str) -> &str {
    let rest = match uri.find("://") {
        Some(i) => &uri[i + 3..],
        None => uri.strip_prefix("file:").unwrap_or(uri),
    };
    rest.trim_start_matches('/')
}

impl Relocator {
    /// Re-roots URIs under `location` (the metadata's `location`, or an override) onto `table_key`.
    pub fn new(location: &str, table_key: &str) -> Self {
        Self {
            from: location.trim_end_matches('/').to_string(),
            to: table_key.trim_end_matches('/').to_string(),
        }
    }

    /// The store key of `uri`. URIs under the table location are re-rooted; relative paths
    /// are taken relative to the table folder; anything else is an error naming `context`.
    pub fn resolve(&self, uri: &str, context: &str) -> Result<String> {
        let (from, path) = (strip_scheme(&self.from), strip_scheme(uri));
        if !uri.contains("://") && !uri.starts_with('/') && !uri.starts_with("file:") {
            return Ok(join(&self.to, uri));
        }
        if let Some(rest) = path.strip_prefix(from) {
            if rest.is_empty() || rest.starts_with('/') {
                return Ok(join(&self.to, rest));
            }
        }
        Err(Error::corrupt(
            context,
            format!(
                "path {uri} is outside the table location {} (set a location override)",
                self.from
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_storage::MemoryStore;

    #[test]
    fn versions_and_reroot() {
        assert_eq!(metadata_version("00012-abc.metadata.json"), Some(12));
        assert_eq!(metadata_version("v3.metadata.json"), Some(3));
        assert_eq!(metadata_version("snap-1.avro"), None);
        assert_eq!(metadata_version("00004-abc.gz.metadata.json"), Some(4));
        assert_eq!(metadata_version("v5.metadata.json.gz"), Some(5));
        assert_eq!(metadata_version("v5.gz.metadata.json"), Some(5));
        assert_eq!(metadata_version("v5.metadata.json.gz.tmp"), None);
        let r = Relocator::new("s3://lake/wh/db/t/", "db/t");
        assert_eq!(
            r.resolve("s3://lake/wh/db/t/data/a.parquet", "m").unwrap(),
            "db/t/data/a.parquet"
        );
        assert_eq!(
            r.resolve("data/b.parquet", "m").unwrap(),
            "db/t/data/b.parquet"
        );
        assert!(r.resolve("s3://lake/wh/db/t2/data/a.parquet", "m").is_err());
        let f = Relocator::new("file:///tmp/wh/t", "t");
        assert_eq!(
            f.resolve("file:/tmp/wh/t/metadata/x.avro", "m").unwrap(),
            "t/metadata/x.avro"
        );
    }

    #[tokio::test]
    async fn finds_current_metadata() {
        let s = MemoryStore::new();
        for k in [
            "t/metadata/00001-a.metadata.json",
            "t/metadata/00002-b.metadata.json",
            "t/metadata/snap-1.avro",
        ] {
            s.put(k, b"{}".to_vec().into()).await.unwrap();
        }
        assert_eq!(
            current_metadata_key(&s, "t").await.unwrap(),
            "t/metadata/00002-b.metadata.json"
        );
        s.put("t/metadata/version-hint.text", b"1\n".to_vec().into())
            .await
            .unwrap();
        assert_eq!(
            current_metadata_key(&s, "t").await.unwrap(),
            "t/metadata/00001-a.metadata.json"
        );
        assert!(current_metadata_key(&s, "u").await.is_err());
        // a Hadoop hint left behind by a commit that could not update it
        for k in [
            "h/metadata/v1.metadata.json",
            "h/metadata/v2.metadata.json",
            "h/metadata/v4.metadata.json",
        ] {
            s.put(k, b"{}".to_vec().into()).await.unwrap();
        }
        s.put("h/metadata/version-hint.text", b"1".to_vec().into())
            .await
            .unwrap();
        assert_eq!(
            current_metadata_key(&s, "h").await.unwrap(),
            "h/metadata/v2.metadata.json"
        );
    }

    #[tokio::test]
    async fn finds_gzip_metadata() {
        let s = MemoryStore::new();
        for k in [
            "g/metadata/00000-a.gz.metadata.json",
            "g/metadata/00001-b.gz.metadata.json",
            "h/metadata/v1.metadata.json",
            "h/metadata/v2.metadata.json.gz",
        ] {
            s.put(k, b"{}".to_vec().into()).await.unwrap();
        }
        assert_eq!(
            current_metadata_key(&s, "g").await.unwrap(),
            "g/metadata/00001-b.gz.metadata.json"
        );
        assert_eq!(
            current_metadata_key(&s, "h").await.unwrap(),
            "h/metadata/v2.metadata.json.gz"
        );
        for (hint, want) in [
            ("0", "g/metadata/00000-a.gz.metadata.json"),
            (
                "00000-a.gz.metadata.json",
                "g/metadata/00000-a.gz.metadata.json",
            ),
        ] {
            s.put(
                "g/metadata/version-hint.text",
                hint.as_bytes().to_vec().into(),
            )
            .await
            .unwrap();
            assert_eq!(current_metadata_key(&s, "g").await.unwrap(), want);
        }
        assert!(crate::is_iceberg_table(&s, "g").await);
        assert!(crate::is_iceberg_table(&s, "h").await);
    }
}
