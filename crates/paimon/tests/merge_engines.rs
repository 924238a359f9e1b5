//! Behaviour tests of the primary-key merge engines over hand-built Arrow batches.

use std::collections::BTreeMap;
use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, MapBuilder, StringBuilder};
use arrow_array::{
    ArrayRef, BooleanArray, Decimal128Array, Int32Array, Int64Array, Int8Array, RecordBatch,
    StringArray,
};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use lakescope_paimon::merge::{merge_runs, MergeReader, MergeSettings};
use lakescope_paimon::spec::types::{DataField, DataType, TypeKind};

fn field(id: i32, name: &str, kind: TypeKind, nullable: bool) -> DataField {
    DataField {
        id,
        name: name.into(),
        data_type: DataType { nullable, kind },
        description: None,
    }
}

fn opts(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
    kv.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A batch with the given value columns plus _SEQUENCE_NUMBER and _VALUE_KIND.
fn batch(cols: Vec<(&str, ArrayRef)>, seqs: &[i64], kinds: &[i8]) -> RecordBatch {
    let mut fields: Vec<Field> = cols
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
        .collect();
    fields.push(Field::new("_SEQUENCE_NUMBER", ArrowType::Int64, false));
    fields.push(Field::new("_VALUE_KIND", ArrowType::Int8, false));
    let mut arrays: Vec<ArrayRef> = cols.into_iter().map(|(_, a)| a).collect();
    arrays.push(Arc::new(Int64Array::from(seqs.to_vec())));
    arrays.push(Arc::new(Int8Array::from(kinds.to_vec())));
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
}

fn ints(v: &[Option<i32>]) -> ArrayRef {
    Arc::new(Int32Array::from(v.to_vec()))
}
fn strs(v: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

/// Formats every output row as "v1|v2|...|kind".
fn rows(out: &[RecordBatch]) -> Vec<String> {
    let mut res = Vec::new();
    let fo = FormatOptions::default().with_null("null");
    for b in out {
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &fo).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            let parts: Vec<String> = fmts.iter().map(|f| f.value(r).to_string()).collect();
            res.push(parts.join("|"));
        }
    }
    res
}

fn kv_fields() -> Vec<DataField> {
    vec![
        field(0, "k", TypeKind::Int, false),
        field(1, "v", TypeKind::VarChar(u32::MAX >> 1), true),
    ]
}

fn kv_batch(keys: &[i32], vals: &[Option<&str>], seqs: &[i64], kinds: &[i8]) -> RecordBatch {
    let keys: Vec<Option<i32>> = keys.iter().map(|k| Some(*k)).collect();
    batch(vec![("k", ints(&keys)), ("v", strs(vals))], seqs, kinds)
}

fn pk() -> Vec<String> {
    vec!["k".to_string()]
}

#[test]
fn dedup_interleaved_runs_and_deletes() {
    let run1 = vec![
        kv_batch(&[1, 2], &[Some("a1"), Some("b1")], &[0, 1], &[0, 0]),
        kv_batch(&[4, 6], &[Some("d1"), Some("f1")], &[2, 3], &[0, 0]),
    ];
    let run2 = vec![kv_batch(
        &[2, 3, 4, 6],
        &[Some("b2"), Some("c2"), None, Some("f2")],
        &[10, 11, 12, 13],
        &[2, 0, 3, 1],
    )];
    let run3 = vec![kv_batch(
        &[5, 6],
        &[Some("e3"), Some("f3")],
        &[20, 5],
        &[0, 0],
    )];
    let out = merge_runs(vec![run1, run2, run3], &kv_fields(), &pk(), &opts(&[])).unwrap();
    // 4 deleted (-D wins), 6: -U at seq 13 is the latest -> removed.
    assert_eq!(
        rows(&out.batches),
        vec!["1|a1|0", "2|b2|2", "3|c2|0", "5|e3|0"]
    );
}

#[test]
fn dedup_same_key_twice_in_one_run_higher_seq_wins() {
    let run = vec![kv_batch(
        &[1, 1, 2],
        &[Some("old"), Some("new"), Some("x")],
        &[3, 7, 4],
        &[0, 0, 0],
    )];
    let out = merge_runs(vec![run], &kv_fields(), &pk(), &opts(&[])).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|new|0", "2|x|0"]);
}

#[test]
fn dedup_equal_sequence_retract_before_add() {
    // Same sequence number: Paimon orders -D before +I, so the insert wins.
    let r1 = vec![kv_batch(&[1], &[Some("ins")], &[5], &[0])];
    let r2 = vec![kv_batch(&[1], &[Some("del")], &[5], &[3])];
    let out = merge_runs(vec![r1, r2], &kv_fields(), &pk(), &opts(&[])).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|ins|0"]);
}

#[test]
fn dedup_ignore_delete_and_keep_deletes() {
    let r1 = vec![kv_batch(&[1, 2], &[Some("a"), Some("b")], &[1, 2], &[0, 0])];
    let r2 = vec![kv_batch(&[1, 3], &[Some("a"), Some("c")], &[3, 4], &[3, 3])];
    let out = merge_runs(
        vec![r1.clone(), r2.clone()],
        &kv_fields(),
        &pk(),
        &opts(&[("deduplicate.ignore-delete", "true")]),
    )
    .unwrap();
    // Key 3 has only a -D row: it passes through the reducer and is dropped as a delete.
    assert_eq!(rows(&out.batches), vec!["1|a|0", "2|b|0"]);

    let reader = MergeReader::new(
        vec![r1, r2],
        &kv_fields(),
        &pk(),
        &opts(&[]),
        MergeSettings {
            batch_size: 2,
            first_batch_size: None,
            keep_deletes: true,
        },
    )
    .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    assert_eq!(batches.len(), 2);
    assert!(batches.iter().all(|b| b.num_rows() <= 2));
    assert_eq!(rows(&batches), vec!["1|a|3", "2|b|0", "3|c|3"]);
}

#[test]
fn dedup_sequence_field_orders_before_sequence_number() {
    let fields = vec![
        field(0, "k", TypeKind::Int, false),
        field(1, "ts", TypeKind::BigInt, true),
        field(2, "v", TypeKind::VarChar(100), true),
    ];
    let mk = |ts: &[Option<i64>], v: &[Option<&str>], seqs: &[i64]| {
        batch(
            vec![
                ("k", ints(&vec![Some(1); ts.len()])),
                ("ts", Arc::new(Int64Array::from(ts.to_vec())) as ArrayRef),
                ("v", strs(v)),
            ],
            seqs,
            &vec![0; ts.len()],
        )
    };
    let r1 = vec![mk(&[Some(100)], &[Some("ts100")], &[1])];
    let r2 = vec![mk(&[Some(50)], &[Some("ts50")], &[2])];
    let r3 = vec![mk(&[None], &[Some("tsnull")], &[3])];
    let out = merge_runs(
        vec![r1.clone(), r2.clone(), r3.clone()],
        &fields,
        &pk(),
        &opts(&[("sequence.field", "ts")]),
    )
    .unwrap();
    assert_eq!(rows(&out.batches), vec!["1|100|ts100|0"]);
    // Descending: the smallest non-null ts wins; nulls still sort first.
    let out = merge_runs(
        vec![r1, r2, r3],
        &fields,
        &pk(),
        &opts(&[
            ("sequence.field", "ts"),
            ("sequence.field.sort-order", "descending"),
        ]),
    )
    .unwrap();
    assert_eq!(rows(&out.batches), vec!["1|50|ts50|0"]);
}

#[test]
fn first_row_keeps_first_and_rejects_deletes() {
    let r1 = vec![kv_batch(
        &[1, 2],
        &[Some("a1"), Some("b1")],
        &[1, 2],
        &[0, 0],
    )];
    let r2 = vec![kv_batch(
        &[1, 3],
        &[Some("a2"), Some("c2")],
        &[3, 4],
        &[0, 0],
    )];
    let o = opts(&[("merge-engine", "first-row")]);
    let out = merge_runs(vec![r1.clone(), r2], &kv_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|a1|0", "2|b1|0", "3|c2|0"]);

    let r3 = vec![kv_batch(&[1], &[Some("x")], &[9], &[3])];
    assert!(merge_runs(vec![r1.clone(), r3.clone()], &kv_fields(), &pk(), &o).is_err());
    let o = opts(&[
        ("merge-engine", "first-row"),
        ("first-row.ignore-delete", "true"),
    ]);
    let out = merge_runs(vec![r1, r3], &kv_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|a1|0", "2|b1|0"]);
}

fn abc_fields() -> Vec<DataField> {
    vec![
        field(0, "k", TypeKind::Int, false),
        field(1, "a", TypeKind::Int, true),
        field(2, "b", TypeKind::Int, true),
        field(3, "c", TypeKind::Int, true),
    ]
}

fn abc(
    k: &[i32],
    a: &[Option<i32>],
    b: &[Option<i32>],
    c: &[Option<i32>],
    seqs: &[i64],
    kinds: &[i8],
) -> RecordBatch {
    let k: Vec<Option<i32>> = k.iter().map(|x| Some(*x)).collect();
    batch(
        vec![
            ("k", ints(&k)),
            ("a", ints(a)),
            ("b", ints(b)),
            ("c", ints(c)),
        ],
        seqs,
        kinds,
    )
}

#[test]
fn partial_update_last_non_null_per_column() {
    let r1 = vec![abc(
        &[1, 2],
        &[Some(1), Some(2)],
        &[None, None],
        &[None, None],
        &[1, 2],
        &[0, 0],
    )];
    let r2 = vec![abc(
        &[1, 2],
        &[None, Some(20)],
        &[Some(10), None],
        &[None, Some(30)],
        &[3, 4],
        &[0, 0],
    )];
    let r3 = vec![abc(&[1], &[Some(100)], &[None], &[Some(300)], &[5], &[0])];
    let o = opts(&[("merge-engine", "partial-update")]);
    let out = merge_runs(vec![r1, r2, r3], &abc_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|100|10|300|0", "2|20|null|30|0"]);
}

#[test]
fn partial_update_deletes() {
    let r1 = vec![abc(&[1], &[Some(1)], &[Some(2)], &[None], &[1], &[0])];
    let r2 = vec![abc(&[1], &[Some(9)], &[None], &[None], &[2], &[3])];
    let r3 = vec![abc(&[1], &[None], &[None], &[Some(7)], &[3], &[0])];
    let o = opts(&[("merge-engine", "partial-update")]);
    // Default: delete records are rejected.
    assert!(merge_runs(vec![r1.clone(), r2.clone()], &abc_fields(), &pk(), &o).is_err());
    // ignore-delete: the -D is skipped.
    let o = opts(&[
        ("merge-engine", "partial-update"),
        ("ignore-delete", "true"),
    ]);
    let out = merge_runs(
        vec![r1.clone(), r2.clone(), r3.clone()],
        &abc_fields(),
        &pk(),
        &o,
    )
    .unwrap();
    assert_eq!(rows(&out.batches), vec!["1|1|2|7|0"]);
    // remove-record-on-delete: -D removes the row; a later insert starts from the -D row.
    let o = opts(&[
        ("merge-engine", "partial-update"),
        ("partial-update.remove-record-on-delete", "true"),
    ]);
    let out = merge_runs(vec![r1.clone(), r2.clone()], &abc_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), Vec::<String>::new());
    let out = merge_runs(vec![r1, r2, r3], &abc_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|9|null|7|0"]);
}

#[test]
fn partial_update_ignore_delete_first_row_initialises() {
    // A leading -D with ignore-delete still initialises the row (Paimon initRow).
    let r1 = vec![abc(&[1], &[Some(5)], &[Some(6)], &[None], &[1], &[3])];
    let r2 = vec![abc(&[1], &[None], &[Some(60)], &[None], &[2], &[0])];
    let o = opts(&[
        ("merge-engine", "partial-update"),
        ("ignore-delete", "true"),
    ]);
    let out = merge_runs(vec![r1, r2], &abc_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|5|60|null|0"]);
}

#[test]
fn partial_update_sequence_groups_with_aggregator() {
    // a is the sequence field of group {b}; c has sum under group a too.
    let o = opts(&[
        ("merge-engine", "partial-update"),
        ("fields.a.sequence-group", "b,c"),
        ("fields.c.aggregate-function", "sum"),
    ]);
    let r1 = vec![abc(&[1], &[Some(5)], &[Some(50)], &[Some(1)], &[1], &[0])];
    // older sequence (a=3): b not updated, c still summed (aggReversed)
    let r2 = vec![abc(&[1], &[Some(3)], &[Some(30)], &[Some(10)], &[2], &[0])];
    // newer sequence (a=7): b updated (even to null), c summed
    let r3 = vec![abc(&[1], &[Some(7)], &[None], &[Some(100)], &[3], &[0])];
    // null sequence group: ignored entirely
    let r4 = vec![abc(&[1], &[None], &[Some(999)], &[Some(999)], &[4], &[0])];
    let out = merge_runs(vec![r1, r2, r3, r4], &abc_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|7|null|111|0"]);
}

#[test]
fn partial_update_sequence_group_retract() {
    let o = opts(&[
        ("merge-engine", "partial-update"),
        ("fields.a.sequence-group", "b,c"),
        ("fields.c.aggregate-function", "sum"),
    ]);
    let r1 = vec![abc(&[1], &[Some(5)], &[Some(50)], &[Some(10)], &[1], &[0])];
    // -U with newer sequence: b cleared, c retracted
    let r2 = vec![abc(&[1], &[Some(6)], &[Some(50)], &[Some(4)], &[2], &[1])];
    let out = merge_runs(vec![r1.clone(), r2.clone()], &abc_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|6|null|6|0"]);
    // remove-record-on-sequence-group: a -D of group a removes the row.
    let o = opts(&[
        ("merge-engine", "partial-update"),
        ("fields.a.sequence-group", "b,c"),
        ("fields.c.aggregate-function", "sum"),
        ("partial-update.remove-record-on-sequence-group", "a"),
    ]);
    let r3 = vec![abc(&[1], &[Some(8)], &[None], &[None], &[3], &[3])];
    let out = merge_runs(vec![r1, r2, r3], &abc_fields(), &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), Vec::<String>::new());
}

#[test]
fn partial_update_rejects_aggregator_without_group() {
    let o = opts(&[
        ("merge-engine", "partial-update"),
        ("fields.c.aggregate-function", "sum"),
    ]);
    let r1 = vec![abc(&[1], &[Some(5)], &[Some(50)], &[Some(1)], &[1], &[0])];
    assert!(merge_runs(vec![r1], &abc_fields(), &pk(), &o).is_err());
}

#[test]
fn aggregation_functions() {
    let fields = vec![
        field(0, "k", TypeKind::Int, false),
        field(1, "s", TypeKind::Int, true),
        field(2, "p", TypeKind::Int, true),
        field(3, "mx", TypeKind::VarChar(10), true),
        field(4, "mn", TypeKind::Int, true),
        field(5, "lv", TypeKind::Int, true),
        field(6, "lnn", TypeKind::Int, true),
        field(7, "fv", TypeKind::Int, true),
        field(8, "fnn", TypeKind::Int, true),
        field(9, "la", TypeKind::VarChar(100), true),
        field(10, "band", TypeKind::Boolean, true),
        field(11, "bor", TypeKind::Boolean, true),
        field(12, "dflt", TypeKind::Int, true),
        field(
            13,
            "dec",
            TypeKind::Decimal {
                precision: 10,
                scale: 2,
            },
            true,
        ),
    ];
    let o = opts(&[
        ("merge-engine", "aggregation"),
        ("fields.s.aggregate-function", "sum"),
        ("fields.p.aggregate-function", "product"),
        ("fields.mx.aggregate-function", "max"),
        ("fields.mn.aggregate-function", "min"),
        ("fields.lv.aggregate-function", "last_value"),
        ("fields.lnn.aggregate-function", "last_non_null_value"),
        ("fields.fv.aggregate-function", "first_value"),
        ("fields.fnn.aggregate-function", "first_non_null_value"),
        ("fields.la.aggregate-function", "listagg"),
        ("fields.la.list-agg-delimiter", ";"),
        ("fields.band.aggregate-function", "bool_and"),
        ("fields.bor.aggregate-function", "bool_or"),
        ("fields.dec.aggregate-function", "sum"),
        ("fields.default-aggregate-function", "sum"),
    ]);
    #[allow(clippy::type_complexity)]
    let mk = |s: Option<i32>,
              p: Option<i32>,
              mx: Option<&str>,
              mn: Option<i32>,
              lv: Option<i32>,
              fv: Option<i32>,
              la: Option<&str>,
              b: Option<bool>,
              dec: Option<i128>,
              seq: i64| {
        batch(
            vec![
                ("k", ints(&[Some(1)])),
                ("s", ints(&[s])),
                ("p", ints(&[p])),
                ("mx", strs(&[mx])),
                ("mn", ints(&[mn])),
                ("lv", ints(&[lv])),
                ("lnn", ints(&[lv])),
                ("fv", ints(&[fv])),
                ("fnn", ints(&[fv])),
                ("la", strs(&[la])),
                ("band", Arc::new(BooleanArray::from(vec![b])) as ArrayRef),
                ("bor", Arc::new(BooleanArray::from(vec![b])) as ArrayRef),
                ("dflt", ints(&[s])),
                (
                    "dec",
                    Arc::new(
                        Decimal128Array::from(vec![dec])
                            .with_precision_and_scale(10, 2)
                            .unwrap(),
                    ) as ArrayRef,
                ),
            ],
            &[seq],
            &[0],
        )
    };
    let runs = vec![
        vec![mk(
            Some(1),
            Some(2),
            Some("b"),
            Some(5),
            Some(1),
            None,
            Some("x"),
            Some(true),
            Some(150),
            1,
        )],
        vec![mk(
            None,
            Some(3),
            Some("c"),
            None,
            Some(2),
            Some(7),
            Some(" "),
            None,
            Some(25),
            2,
        )],
        vec![mk(
            Some(10),
            None,
            Some("a"),
            Some(3),
            None,
            Some(8),
            Some("y"),
            Some(false),
            None,
            3,
        )],
    ];
    let out = merge_runs(runs, &fields, &pk(), &o).unwrap();
    assert_eq!(
        rows(&out.batches),
        vec!["1|11|6|c|3|null|2|null|7|x;y|false|true|11|1.75|0"]
    );
}

#[test]
fn aggregation_retract_and_ignore_retract() {
    let fields = vec![
        field(0, "k", TypeKind::Int, false),
        field(1, "s", TypeKind::Int, true),
        field(2, "m", TypeKind::Int, true),
    ];
    let mk = |s: Option<i32>, m: Option<i32>, seq: i64, kind: i8| {
        batch(
            vec![
                ("k", ints(&[Some(1)])),
                ("s", ints(&[s])),
                ("m", ints(&[m])),
            ],
            &[seq],
            &[kind],
        )
    };
    let runs = || {
        vec![
            vec![mk(Some(10), Some(4), 1, 0)],
            vec![mk(Some(3), Some(9), 2, 1)],
            vec![mk(Some(5), Some(2), 3, 2)],
        ]
    };
    // max does not support retraction.
    let o = opts(&[
        ("merge-engine", "aggregation"),
        ("fields.s.aggregate-function", "sum"),
        ("fields.m.aggregate-function", "max"),
    ]);
    assert!(merge_runs(runs(), &fields, &pk(), &o).is_err());
    let o = opts(&[
        ("merge-engine", "aggregation"),
        ("fields.s.aggregate-function", "sum"),
        ("fields.m.aggregate-function", "max"),
        ("fields.m.ignore-retract", "true"),
    ]);
    let out = merge_runs(runs(), &fields, &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|12|4|0"]);
    // A lone retraction passes through unchanged and is dropped; sum retract of null acc negates.
    let runs2 = vec![vec![mk(Some(3), None, 1, 1)], vec![mk(None, Some(1), 2, 0)]];
    let out = merge_runs(runs2, &fields, &pk(), &o).unwrap();
    assert_eq!(rows(&out.batches), vec!["1|-3|1|0"]);
    // aggregation.remove-record-on-delete
    let o = opts(&[
        ("merge-engine", "aggregation"),
        ("fields.s.aggregate-function", "sum"),
        ("aggregation.remove-record-on-delete", "true"),
    ]);
    let runs3 = vec![
        vec![mk(Some(3), None, 1, 0)],
        vec![mk(Some(1), Some(1), 2, 3)],
    ];
    let out = merge_runs(runs3, &fields, &pk(), &o).unwrap();
    assert!(rows(&out.batches).is_empty());
}

#[test]
fn aggregation_unknown_function_is_invalid() {
    let o = opts(&[
        ("merge-engine", "aggregation"),
        ("fields.v.aggregate-function", "count"),
    ]);
    let r = vec![kv_batch(&[1], &[Some("a")], &[1], &[0])];
    let err = merge_runs(vec![r], &kv_fields(), &pk(), &o).unwrap_err();
    assert!(
        err.to_string().contains("fields.v.aggregate-function"),
        "{err}"
    );
}

#[test]
fn aggregation_collect_and_merge_map() {
    let list_t = TypeKind::Array(Box::new(DataType::nullable(TypeKind::Int)));
    let map_t = TypeKind::Map(
        Box::new(DataType::nullable(TypeKind::VarChar(10)).with_nullable(false)),
        Box::new(DataType::nullable(TypeKind::Int)),
    );
    let fields = vec![
        field(0, "k", TypeKind::Int, false),
        field(1, "c", list_t.clone(), true),
        field(2, "cd", list_t, true),
        field(3, "m", map_t, true),
    ];
    let mk = |c: &[i32], m: &[(&str, i32)], seq: i64, kind: i8| {
        let mut lb = ListBuilder::new(Int32Builder::new());
        lb.values().append_slice(c);
        lb.append(true);
        let l: ArrayRef = Arc::new(lb.finish());
        let mut mb = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
        for (k, v) in m {
            mb.keys().append_value(k);
            mb.values().append_value(*v);
        }
        mb.append(true).unwrap();
        let m: ArrayRef = Arc::new(mb.finish());
        batch(
            vec![
                ("k", ints(&[Some(1)])),
                ("c", l.clone()),
                ("cd", l),
                ("m", m),
            ],
            &[seq],
            &[kind],
        )
    };
    let o = opts(&[
        ("merge-engine", "aggregation"),
        ("fields.c.aggregate-function", "collect"),
        ("fields.cd.aggregate-function", "collect"),
        ("fields.cd.distinct", "true"),
        ("fields.m.aggregate-function", "merge_map"),
    ]);
    let runs = vec![
        vec![mk(&[1, 2], &[("a", 1), ("b", 2)], 1, 0)],
        vec![mk(&[2, 3], &[("b", 20), ("c", 3)], 2, 0)],
        vec![mk(&[1], &[("a", 0)], 3, 1)],
    ];
    let out = merge_runs(runs, &fields, &pk(), &o).unwrap();
    assert_eq!(
        rows(&out.batches),
        vec!["1|[2, 2, 3]|[2, 3]|{b: 20, c: 3}|0"]
    );
}

// ---------------------------------------------------------------------------------------------
// Corpus replay: merge the level-0 files of real tables and compare with the expected rows.

mod corpus {
    use super::*;
    use arrow_array::Array;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use std::path::{Path, PathBuf};

    const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");

    fn parquet_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                parquet_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p);
            }
        }
    }

    /// Reads a data file as value columns + _SEQUENCE_NUMBER + _VALUE_KIND.
    fn read_run(path: &Path, names: &[String]) -> Vec<RecordBatch> {
        let f = std::fs::File::open(path).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(f)
            .unwrap()
            .build()
            .unwrap();
        reader
            .map(|b| {
                let b = b.unwrap();
                let mut idx: Vec<usize> = names
                    .iter()
                    .map(|n| b.schema().index_of(n).unwrap())
                    .collect();
                idx.push(b.schema().index_of("_SEQUENCE_NUMBER").unwrap());
                idx.push(b.schema().index_of("_VALUE_KIND").unwrap());
                b.project(&idx).unwrap()
            })
            .collect()
    }

    fn py_float(v: f64) -> String {
        if v.is_nan() {
            "\"NaN\"".into()
        } else if v.is_infinite() {
            if v > 0.0 {
                "\"Infinity\"".into()
            } else {
                "\"-Infinity\"".into()
            }
        } else if v.fract() == 0.0 && v.abs() < 1e16 {
            format!("{v:.1}")
        } else {
            format!("{v}")
        }
    }

    fn canonical(batches: &[RecordBatch], names: &[String]) -> Vec<String> {
        let fo = FormatOptions::default().with_timestamp_format(Some("%Y-%m-%dT%H:%M:%S%.6f"));
        let mut lines = Vec::new();
        for b in batches {
            for r in 0..b.num_rows() {
                let mut parts = Vec::new();
                for (c, name) in names.iter().enumerate() {
                    let col = b.column(c);
                    let v = if col.is_null(r) {
                        "null".to_string()
                    } else {
                        match col.data_type() {
                            ArrowType::Utf8
                            | ArrowType::LargeUtf8
                            | ArrowType::Utf8View
                            | ArrowType::Decimal128(_, _)
                            | ArrowType::Timestamp(_, _)
                            | ArrowType::Date32 => {
                                let s = ArrayFormatter::try_new(col.as_ref(), &fo)
                                    .unwrap()
                                    .value(r)
                                    .to_string();
                                serde_json::to_string(&s).unwrap()
                            }
                            ArrowType::Float64 => py_float(
                                col.as_any()
                                    .downcast_ref::<arrow_array::Float64Array>()
                                    .unwrap()
                                    .value(r),
                            ),
                            _ => ArrayFormatter::try_new(col.as_ref(), &fo)
                                .unwrap()
                                .value(r)
                                .to_string(),
                        }
                    };
                    parts.push(format!("{}:{}", serde_json::to_string(name).unwrap(), v));
                }
                lines.push(format!("{{{}}}", parts.join(",")));
            }
        }
        lines.sort();
        lines
    }

    /// Merges every (partition, bucket) directory of an append-only-history table and compares
    /// with the expected rows of its latest snapshot.
    fn replay(table: &str, snapshot: u32) {
        let dir = Path::new(ROOT)
            .join("paimon/warehouse/corpus.db")
            .join(table);
        if !dir.exists() {
            eprintln!("corpus not available, skipping {table}");
            return;
        }
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("schema/schema-0")).unwrap())
                .unwrap();
        let fields: Vec<DataField> = serde_json::from_value(schema["fields"].clone()).unwrap();
        let pks: Vec<String> = serde_json::from_value(schema["primaryKeys"].clone()).unwrap();
        let options: BTreeMap<String, String> =
            serde_json::from_value(schema["options"].clone()).unwrap();
        let names: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
        let mut files = Vec::new();
        parquet_files(&dir, &mut files);
        files.sort();
        let mut by_bucket: BTreeMap<PathBuf, Vec<Vec<RecordBatch>>> = BTreeMap::new();
        for f in files {
            let run = read_run(&f, &names);
            by_bucket
                .entry(f.parent().unwrap().to_path_buf())
                .or_default()
                .push(run);
        }
        let mut got = Vec::new();
        for (_, runs) in by_bucket {
            let out = merge_runs(runs, &fields, &pks, &options).unwrap();
            got.extend(canonical(&out.batches, &names));
        }
        got.sort();
        let expected_path = Path::new(ROOT)
            .join("expected/paimon")
            .join(format!("corpus.{table}"))
            .join(format!("snapshot-{snapshot}.jsonl"));
        let mut expected: Vec<String> = std::fs::read_to_string(expected_path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        expected.sort();
        assert_eq!(got, expected, "table {table}");
    }

    #[test]
    fn corpus_pk_aggregation() {
        replay("pk_aggregation", 3);
    }

    #[test]
    fn corpus_pk_dedup_rowkind_field() {
        replay("pk_dedup", 5);
    }

    #[test]
    fn corpus_pk_partial_update() {
        replay("pk_partial_update", 3);
    }
}
