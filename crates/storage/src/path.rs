//! Helpers for `/`-separated object keys.

/// Joins two key parts with exactly one `/` between them.
pub fn join(base: &str, child: &str) -> String {
    let base = base.trim_end_matches('/');
    let child = child.trim_start_matches('/');
    match (base.is_empty(), child.is_empty()) {
        (true, _) => child.to_string(),
        (_, true) => base.to_string(),
        _ => format!("{base}/{child}"),
    }
}

/// The key of the parent "directory" (empty at the root).
pub fn parent(path: &str) -> &str {
    let path = path.trim_end_matches('/');
    path.rfind('/').map(|i| &path[..i]).unwrap_or("")
}

/// Normalises a directory prefix to end with exactly one `/` (or be empty for the root).
pub(crate) fn dir_prefix(prefix: &str) -> String {
    let p = prefix.trim_matches('/');
    if p.is_empty() {
        String::new()
    } else {
        format!("{p}/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_and_parent() {
        assert_eq!(join("a/", "/b"), "a/b");
        assert_eq!(join("", "b"), "b");
        assert_eq!(join("a", ""), "a");
        assert_eq!(parent("a/b/c"), "a/b");
        assert_eq!(parent("c"), "");
        assert_eq!(dir_prefix("/x/y/"), "x/y/");
        assert_eq!(dir_prefix(""), "");
    }
}
