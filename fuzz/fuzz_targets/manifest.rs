//! Fuzzes the Avro manifest, manifest-list and index-manifest decoders: errors, never panics.
#![no_main]

use lakescope_paimon::spec::manifest::{decode_index_manifest, decode_manifest, decode_manifest_list};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = decode_manifest("fuzz-manifest", data);
    let _ = decode_manifest_list("fuzz-manifest-list", data);
    let _ = decode_index_manifest("fuzz-index-manifest", data);
});
