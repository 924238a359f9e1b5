//! Fuzzes the Iceberg manifest-list and manifest decoders (Avro, v1/v2), and the rewrite of a
//! decoded manifest a copy-on-write commit does: errors, never panics.
#![no_main]

use lakescope_iceberg::spec::manifest::{read_manifest, read_manifest_list};
use lakescope_iceberg::spec::{DataContentType, ManifestFile};
use lakescope_iceberg::write::manifest::rewrite_manifest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = read_manifest_list("fuzz-snap.avro", data);
    // The manifest as a list would name it: its nulls are inherited from these numbers.
    let listed = ManifestFile {
        manifest_path: "fuzz-m0.avro".into(),
        manifest_length: data.len() as i64,
        partition_spec_id: 0,
        content: DataContentType::Data,
        sequence_number: 1,
        min_sequence_number: 1,
        added_snapshot_id: 1,
        added_files_count: None,
        existing_files_count: None,
        deleted_files_count: None,
        added_rows_count: None,
        existing_rows_count: None,
        deleted_rows_count: None,
        first_row_id: None,
    };
    if let Ok(entries) = read_manifest("fuzz-m0.avro", data, &listed) {
        let removed: Vec<bool> = (0..entries.len()).map(|i| i % 2 == 0).collect();
        let _ = rewrite_manifest("fuzz-r0.avro", data, &entries, &removed, 2);
    }
});
