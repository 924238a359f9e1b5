//! Merge-on-read of primary-key tables: k-way merge of sorted runs and the merge engines.
