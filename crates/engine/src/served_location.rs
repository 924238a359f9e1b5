//! Table files a catalog places at one location (`file:///srv/lake/`) reached at another (an HTTP
//! URL or an S3 bucket serving the same folder): the mapping the app's catalog form sets.

use serde::{Deserialize, Serialize};

/// Table locations under `location` are reached under `url` instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServedLocation {
    /// The catalog's location prefix, ending with `/`.
    location: String,
    /// Where that prefix is served, ending with `/`.
    url: String,
}

/// `location` as a URI: a bare absolute path becomes a `file://` URI, anything else is kept (how
/// Iceberg metadata and catalogs record local locations).
pub(crate) fn file_uri(location: &str) -> String {
    if location.starts_with('/') {
        format!("file://{location}")
    } else {
        location.to_string()
    }
}

impl ServedLocation {
    /// The mapping of `location` to `url` (each given with or without its final `/`).
    pub fn new(location: &str, url: &str) -> Self {
        let slash = |s: &str| format!("{}/", s.trim().trim_end_matches('/'));
        Self {
            location: slash(location),
            url: slash(url),
        }
    }

    /// `location` as it is reached: a bare path is a `file://` location, and one under the served
    /// location is read from the URL serving it (anything else is kept).
    pub fn reachable(served: Option<&Self>, location: &str) -> String {
        let location = file_uri(location);
        if let Some(Self {
            location: prefix,
            url,
        }) = served
        {
            if location == prefix.trim_end_matches('/') {
                return url.clone();
            }
            if let Some(rest) = location.strip_prefix(prefix.as_str()) {
                return format!("{url}{rest}");
            }
        }
        location
    }
}

#[cfg(test)]
mod tests {
    use super::ServedLocation;

    #[test]
    fn locations_under_the_served_prefix_are_reached_at_its_url() {
        let served = ServedLocation::new("file:///srv/lake", "http://files.test/lake/");
        let at = |l: &str| ServedLocation::reachable(Some(&served), l);
        assert_eq!(at("file:///srv/lake/d/t"), "http://files.test/lake/d/t");
        assert_eq!(at("/srv/lake/d/t"), "http://files.test/lake/d/t");
        assert_eq!(at("file:///srv/lake"), "http://files.test/lake/");
        // a sibling folder that only shares the name's start is not under the prefix
        assert_eq!(at("file:///srv/lakeside/t"), "file:///srv/lakeside/t");
        assert_eq!(at("s3://b/t"), "s3://b/t");
        assert_eq!(ServedLocation::reachable(None, "/srv/x"), "file:///srv/x");
    }
}
