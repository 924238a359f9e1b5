//! Fuzzes the BinaryRow decoder (partitions, keys, stats) with every column type: errors, never panics.
#![no_main]

use lakescope_paimon::spec::binary_row::BinaryRow;
use lakescope_paimon::spec::DataType;
use libfuzzer_sys::fuzz_target;

const TYPES: &[&str] = &[
    "INT", "STRING", "BIGINT", "DECIMAL(10, 2)", "DECIMAL(38, 10)", "TIMESTAMP(3)",
    "TIMESTAMP(9)", "BOOLEAN", "DOUBLE", "BYTES", "DATE", "TINYINT", "SMALLINT", "FLOAT",
];

fuzz_target!(|data: &[u8]| {
    // The first byte picks a schema (a rotation of TYPES with 1..=6 columns).
    let Some((&selector, bytes)) = data.split_first() else {
        return;
    };
    let count = 1 + (selector as usize % 6);
    let types: Vec<DataType> = (0..count)
        .filter_map(|i| DataType::parse(TYPES[(selector as usize / 6 + i) % TYPES.len()]).ok())
        .collect();
    let _ = BinaryRow::decode(bytes, &types);
});
