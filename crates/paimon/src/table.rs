//! A Paimon table handle: schemas, snapshots, tags and time travel.
