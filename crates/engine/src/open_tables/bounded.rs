//! A map from table paths to what [`super::OpenTables`] keeps per table, holding at most a fixed
//! number of entries: the least recently asked for is dropped first.

use std::collections::HashMap;

/// At most `capacity` entries by table path; [`Bounded::get`] and [`Bounded::insert`] make an
/// entry the most recently used, and an insert beyond the capacity drops the least recently
/// used one.
pub(super) struct Bounded<V> {
    capacity: usize,
    /// Each entry with the tick of its last use.
    entries: HashMap<String, (u64, V)>,
    /// Counts uses (the clock of `entries`).
    tick: u64,
}

impl<V> Bounded<V> {
    /// An empty map that keeps at most `capacity` entries.
    pub(super) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: HashMap::new(),
            tick: 0,
        }
    }

    /// The entry of `path`, now the most recently used.
    pub(super) fn get(&mut self, path: &str) -> Option<&V> {
        self.tick += 1;
        let tick = self.tick;
        self.entries.get_mut(path).map(|(used, value)| {
            *used = tick;
            &*value
        })
    }

    /// The entry of `path`, without counting it as a use.
    pub(super) fn peek(&self, path: &str) -> Option<&V> {
        self.entries.get(path).map(|(_, value)| value)
    }

    /// Sets the entry of `path` (the most recently used), dropping the least recently used
    /// entry when there are more than the capacity.
    pub(super) fn insert(&mut self, path: &str, value: V) {
        self.tick += 1;
        self.entries.insert(path.to_string(), (self.tick, value));
        while self.entries.len() > self.capacity {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, (used, _))| *used)
                .map(|(key, _)| key.clone());
            let Some(oldest) = oldest else {
                break;
            };
            self.entries.remove(&oldest);
        }
    }

    /// Drops the entry of `path`.
    pub(super) fn remove(&mut self, path: &str) {
        self.entries.remove(path);
    }

    /// Drops every entry.
    pub(super) fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many entries are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::Bounded;

    #[test]
    fn keeps_the_most_recently_used_entries() {
        let mut map = Bounded::new(2);
        map.insert("a", 1);
        map.insert("b", 2);
        assert_eq!(map.get("a"), Some(&1));
        map.insert("c", 3);
        assert_eq!(map.len(), 2);
        assert_eq!(map.peek("b"), None, "b was used least recently");
        assert_eq!((map.peek("a"), map.peek("c")), (Some(&1), Some(&3)));
        map.insert("a", 4);
        map.insert("d", 5);
        assert_eq!((map.peek("a"), map.peek("c")), (Some(&4), None));
        map.remove("a");
        assert_eq!((map.len(), map.peek("d")), (1, Some(&5)));
        map.clear();
        assert_eq!(map.len(), 0);
    }
}
