//! Fuzzes the deletion-vector decoder (32-bit and 64-bit roaring forms): errors, never panics.
#![no_main]

use lakescope_paimon::read::deletion_vector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(dv) = deletion_vector::decode("fuzz-dv", data) {
        let _ = dv.cardinality();
    }
    let _ = deletion_vector::decode_index_file("fuzz-index", data);
});
