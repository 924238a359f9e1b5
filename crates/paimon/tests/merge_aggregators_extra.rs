//! The bitmap / sketch aggregators of the aggregation merge engine: `rbm32`, `hll_sketch`,
//! `theta_sketch` (unions of serialized values in BYTES fields), and the unsupported ones.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, BinaryArray, Int32Array, Int64Array, Int8Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use datasketches::hll::{HllSketch, HllType};
use datasketches::theta::{CompactThetaSketch, ThetaSketchBuilder};
use lakescope_paimon::merge::merge_runs;
use lakescope_paimon::spec::types::{DataField, DataType, TypeKind};
use lakescope_paimon::Error;
use roaring::RoaringBitmap;

fn field(id: i32, name: &str, kind: TypeKind) -> DataField {
    DataField {
        id,
        name: name.into(),
        data_type: DataType {
            nullable: id != 0,
            kind,
        },
        description: None,
    }
}

fn fields() -> Vec<DataField> {
    vec![
        field(0, "k", TypeKind::Int),
        field(1, "b", TypeKind::VarBinary(i32::MAX as u32)),
    ]
}

fn pk() -> Vec<String> {
    vec!["k".into()]
}

fn opts(func: &str, extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut o: BTreeMap<String, String> = extra
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    o.insert("merge-engine".into(), "aggregation".into());
    o.insert("fields.b.aggregate-function".into(), func.into());
    o
}

/// One run holding a single row of key 1 with `b`, sequence `seq` and row kind `kind`.
fn run(b: Option<&[u8]>, seq: i64, kind: i8) -> Vec<RecordBatch> {
    let schema = Schema::new(vec![
        Field::new("k", ArrowType::Int32, false),
        Field::new("b", ArrowType::Binary, true),
        Field::new("_SEQUENCE_NUMBER", ArrowType::Int64, false),
        Field::new("_VALUE_KIND", ArrowType::Int8, false),
    ]);
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from(vec![1])),
        Arc::new(BinaryArray::from(vec![b])),
        Arc::new(Int64Array::from(vec![seq])),
        Arc::new(Int8Array::from(vec![kind])),
    ];
    vec![RecordBatch::try_new(Arc::new(schema), cols).unwrap()]
}

/// Merges the runs and returns the single output value of `b`.
fn merged(func: &str, runs: Vec<Vec<RecordBatch>>) -> Option<Vec<u8>> {
    let out = merge_runs(runs, &fields(), &pk(), &opts(func, &[])).unwrap();
    let rows: usize = out.batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1);
    let b = out.batches.iter().find(|b| b.num_rows() == 1).unwrap();
    let col = b.column_by_name("b").unwrap();
    if col.is_null(0) {
        return None;
    }
    Some(col.as_binary::<i32>().value(0).to_vec())
}

fn rbm(values: impl IntoIterator<Item = u32>) -> Vec<u8> {
    let bm: RoaringBitmap = values.into_iter().collect();
    let mut out = Vec::new();
    bm.serialize_into(&mut out).unwrap();
    out
}

#[test]
fn rbm32_unions_serialized_bitmaps() {
    let a = rbm([1, 5, 100_000]);
    let b = rbm([5, 7, 4_000_000_000]);
    let c = rbm(10_000..20_000);
    let out = merged(
        "rbm32",
        vec![
            run(Some(&a), 1, 0),
            run(None, 2, 0),
            run(Some(&b), 3, 0),
            run(Some(&c), 4, 0),
        ],
    )
    .unwrap();
    let got = RoaringBitmap::deserialize_from(&out[..]).unwrap();
    let want: RoaringBitmap = [1, 5, 7, 100_000, 4_000_000_000]
        .into_iter()
        .chain(10_000..20_000)
        .collect();
    assert_eq!(got, want);
    // Serialized like Paimon: the run-optimized portable format.
    let mut optimized = want.clone();
    optimized.optimize();
    let mut expected = Vec::new();
    optimized.serialize_into(&mut expected).unwrap();
    assert_eq!(out, expected);
    assert!(out.len() < rbm(want.iter()).len());
}

#[test]
fn rbm32_null_and_single_values_pass_through() {
    let a = rbm([3, 4]);
    assert_eq!(merged("rbm32", vec![run(Some(&a), 1, 0)]), Some(a.clone()));
    assert_eq!(
        merged("rbm32", vec![run(None, 1, 0), run(Some(&a), 2, 0)]),
        Some(a)
    );
    assert_eq!(
        merged("rbm32", vec![run(None, 1, 0), run(None, 2, 0)]),
        None
    );
}

#[test]
fn rbm32_rejects_corrupt_bytes() {
    let a = rbm([1]);
    let err = merge_runs(
        vec![run(Some(&a), 1, 0), run(Some(b"garbage"), 2, 0)],
        &fields(),
        &pk(),
        &opts("rbm32", &[]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("rbm32"), "{err}");
}

#[test]
fn bitmap_and_sketch_functions_need_binary_fields() {
    let int_fields = vec![field(0, "k", TypeKind::Int), field(1, "b", TypeKind::Int)];
    for func in ["rbm32", "hll_sketch", "theta_sketch"] {
        let err =
            merge_runs(vec![run(None, 1, 0)], &int_fields, &pk(), &opts(func, &[])).unwrap_err();
        assert!(err.to_string().contains("VARBINARY"), "{func}: {err}");
    }
}

#[test]
fn retraction_is_unsupported_unless_ignored() {
    let a = rbm([1, 2]);
    let b = rbm([2, 3]);
    let runs = || vec![run(Some(&a), 1, 0), run(Some(&b), 2, 3)];
    for func in ["rbm32", "hll_sketch", "theta_sketch"] {
        let err = merge_runs(runs(), &fields(), &pk(), &opts(func, &[])).unwrap_err();
        assert!(
            err.to_string().contains("does not support retraction")
                && err.to_string().contains(func),
            "{func}: {err}"
        );
    }
    let out = merge_runs(
        runs(),
        &fields(),
        &pk(),
        &opts("rbm32", &[("fields.b.ignore-retract", "true")]),
    )
    .unwrap();
    let col = out.batches.iter().find(|b| b.num_rows() == 1).unwrap();
    let col = col.column_by_name("b").unwrap().as_binary::<i32>();
    assert_eq!(col.value(0), &a[..]);
}

#[test]
fn rbm64_is_unsupported() {
    let err = merge_runs(vec![run(None, 1, 0)], &fields(), &pk(), &opts("rbm64", &[])).unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("rbm64"), "{err}");
}

#[test]
fn keytime_and_nested_partial_update_are_unsupported() {
    for func in ["merge_map_with_keytime", "nested_partial_update"] {
        let err =
            merge_runs(vec![run(None, 1, 0)], &fields(), &pk(), &opts(func, &[])).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{func}: {err}");
        assert!(err.to_string().contains(func), "{err}");
    }
}

fn hll(range: std::ops::Range<i64>, lg_k: u8) -> Vec<u8> {
    let mut s = HllSketch::new(lg_k, HllType::Hll4).unwrap();
    for v in range {
        s.update(v);
    }
    s.serialize()
}

#[test]
fn hll_sketch_unions_serialized_sketches() {
    // Small cardinalities stay in the exact (list/set) mode; large ones go to the HLL array.
    let out = merged(
        "hll_sketch",
        vec![
            run(Some(&hll(0..10, 12)), 1, 0),
            run(Some(&hll(5..20, 12)), 2, 0),
        ],
    )
    .unwrap();
    let s = HllSketch::deserialize(&out).unwrap();
    assert_eq!(s.target_type(), HllType::Hll4);
    assert!((s.estimate() - 20.0).abs() < 0.5, "{}", s.estimate());

    let out = merged(
        "hll_sketch",
        vec![
            run(Some(&hll(0..60_000, 12)), 1, 0),
            run(Some(&hll(40_000..100_000, 11)), 2, 0),
        ],
    )
    .unwrap();
    let s = HllSketch::deserialize(&out).unwrap();
    // lg_max_k comes from the input (second) sketch, as in Paimon's HllSketchUtil.union.
    assert_eq!(s.lg_config_k(), 11);
    let rel = (s.estimate() - 100_000.0).abs() / 100_000.0;
    assert!(rel < 0.1, "{}", s.estimate());
}

fn theta(range: std::ops::Range<i64>) -> Vec<u8> {
    let mut s = ThetaSketchBuilder::default().build().unwrap();
    for v in range {
        s.update(v);
    }
    s.compact(true).serialize()
}

#[test]
fn theta_sketch_unions_serialized_sketches() {
    let out = merged(
        "theta_sketch",
        vec![
            run(Some(&theta(0..100)), 1, 0),
            run(Some(&theta(50..300)), 2, 0),
            run(Some(&theta(250..400)), 3, 0),
        ],
    )
    .unwrap();
    let s = CompactThetaSketch::deserialize(&out).unwrap();
    assert!(!s.is_estimation_mode());
    assert_eq!(s.estimate(), 400.0);
    assert!(s.is_ordered());

    let out = merged(
        "theta_sketch",
        vec![
            run(Some(&theta(0..50_000)), 1, 0),
            run(Some(&theta(30_000..80_000)), 2, 0),
        ],
    )
    .unwrap();
    let s = CompactThetaSketch::deserialize(&out).unwrap();
    assert!(s.is_estimation_mode());
    let rel = (s.estimate() - 80_000.0).abs() / 80_000.0;
    assert!(rel < 0.1, "{}", s.estimate());
}

#[test]
fn sketch_functions_reject_corrupt_bytes() {
    for func in ["hll_sketch", "theta_sketch"] {
        let err = merge_runs(
            vec![run(Some(b"\x01\x02"), 1, 0), run(Some(b"\x03"), 2, 0)],
            &fields(),
            &pk(),
            &opts(func, &[]),
        )
        .unwrap_err();
        assert!(err.to_string().contains(func), "{func}: {err}");
    }
}
