//! Scan planning: replaying manifests into splits per (partition, bucket).
