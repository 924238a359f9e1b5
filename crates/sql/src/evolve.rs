//! Applies a validated ALTER TABLE to a Paimon `TableSchema` (the next schema version), as Flink's Paimon catalog and `SchemaManager` do.
//!
//! Flink sees one column list: the physical columns (Paimon fields) interleaved with computed and
//! metadata columns, which Paimon's Flink catalog keeps as table options `schema.N.name`,
//! `schema.N.expr`, `schema.N.data-type` (computed), `schema.N.metadata`, `schema.N.virtual`
//! (metadata) and `schema.N.comment`, where `N` is the position in that full list. The watermark
//! is `schema.watermark.0.rowtime`, `schema.watermark.0.strategy.expr` and
//! `schema.watermark.0.strategy.data-type`. [`apply_alter`] rebuilds the full list from the
//! options, applies the change to it, then writes the fields and re-serializes those options,
//! like `FlinkCatalog.alterTable` (`FlinkCatalogPropertiesUtil`).

mod flink_expr;

use crate::ast::{
    AlterAction, AlterTable, ColumnChange, ColumnDef, ColumnKind, ColumnPosition, Watermark,
};
use lakescope_format::spec::schema::TableSchema;
use lakescope_format::spec::types::{DataField, DataType, TypeKind};
use std::collections::BTreeMap;

const SCHEMA: &str = "schema";
const WATERMARK_ROWTIME: &str = "schema.watermark.0.rowtime";
const WATERMARK_EXPR: &str = "schema.watermark.0.strategy.expr";
const WATERMARK_DATA_TYPE: &str = "schema.watermark.0.strategy.data-type";
/// Suffixes of `schema.N.*` keys Flink treats as non-physical column keys (and re-writes).
const COLUMN_KEYS: &[&str] = &[
    "name",
    "data-type",
    "expr",
    "metadata",
    "virtual",
    "comment",
];
/// Option keys whose value names columns (renamed with them, as `applyRenameColumnsToOptions`).
const COLUMN_LIST_OPTIONS: &[&str] = &["bucket-key", "sequence.field"];
/// `fields.<col>.<suffix>` option suffixes renamed with their column.
const FIELD_OPTION_SUFFIXES: &[&str] = &[
    "aggregate-function",
    "ignore-retract",
    "distinct",
    "list-agg-delimiter",
];

/// A computed or metadata column: its `schema.N.*` option values by suffix (without `name`).
#[derive(Debug, Clone)]
struct NonPhysical {
    name: String,
    values: BTreeMap<&'static str, String>,
}

/// One entry of Flink's full column list.
#[derive(Debug, Clone)]
enum Column {
    Physical(DataField),
    NonPhysical(NonPhysical),
}

impl Column {
    fn name(&self) -> &str {
        match self {
            Column::Physical(f) => &f.name,
            Column::NonPhysical(c) => &c.name,
        }
    }
}

/// `schema.<digits>.<suffix>` → (index, suffix).
fn column_key(key: &str) -> Option<(usize, &'static str)> {
    let rest = key.strip_prefix(SCHEMA)?.strip_prefix('.')?;
    let (index, suffix) = rest.split_once('.')?;
    let index = index.parse().ok()?;
    let suffix = COLUMN_KEYS.iter().find(|s| **s == suffix)?;
    Some((index, *suffix))
}

/// Flink's column list of a schema (`FlinkCatalog.toCatalogTable`): position `i` is the
/// non-physical column `schema.i.name` when that names no physical column, else the next field.
fn full_columns(s: &TableSchema) -> Vec<Column> {
    let physical: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
    let mut non_physical: BTreeMap<usize, NonPhysical> = BTreeMap::new();
    for (key, value) in &s.options {
        if let Some((i, "name")) = column_key(key) {
            if !physical.contains(&value.as_str()) {
                non_physical.insert(
                    i,
                    NonPhysical {
                        name: value.clone(),
                        values: BTreeMap::new(),
                    },
                );
            }
        }
    }
    for (key, value) in &s.options {
        if let Some((i, suffix)) = column_key(key).filter(|(_, s)| *s != "name") {
            if let Some(c) = non_physical.get_mut(&i) {
                c.values.insert(suffix, value.clone());
            }
        }
    }
    let mut fields = s.fields.iter();
    let mut out = Vec::with_capacity(s.fields.len() + non_physical.len());
    for i in 0..s.fields.len() + non_physical.len() {
        match non_physical.remove(&i) {
            Some(c) => out.push(Column::NonPhysical(c)),
            None => out.extend(fields.next().cloned().map(Column::Physical)),
        }
    }
    // Indexes past the end (inconsistent options) keep their order after the fields.
    out.extend(fields.cloned().map(Column::Physical));
    out.extend(non_physical.into_values().map(Column::NonPhysical));
    out
}

/// Writes the fields and the non-physical column options of `columns` into `s`.
fn store_columns(s: &mut TableSchema, columns: Vec<Column>) {
    s.options.retain(|k, _| column_key(k).is_none());
    s.fields.clear();
    for (i, c) in columns.into_iter().enumerate() {
        match c {
            Column::Physical(f) => s.fields.push(f),
            Column::NonPhysical(c) => {
                s.options.insert(format!("{SCHEMA}.{i}.name"), c.name);
                for (suffix, value) in c.values {
                    s.options.insert(format!("{SCHEMA}.{i}.{suffix}"), value);
                }
            }
        }
    }
}

/// The type of a column of the full list (physical type, or the stored `data-type`).
fn column_type(columns: &[Column], name: &str) -> Option<DataType> {
    match columns.iter().find(|c| c.name() == name)? {
        Column::Physical(f) => Some(f.data_type.clone()),
        Column::NonPhysical(c) => crate::types::parse_data_type(c.values.get("data-type")?).ok(),
    }
}

fn column_names(columns: &[Column]) -> Vec<&str> {
    columns.iter().map(Column::name).collect()
}

/// The options of a computed or metadata column (`serializeNonPhysicalNewColumns`). A computed
/// column's `data-type` is left out when its type cannot be inferred (Flink re-derives it from
/// `expr` when reading, so only the expression is required).
fn non_physical(def: &ColumnDef, columns: &[Column]) -> Option<NonPhysical> {
    let mut values = BTreeMap::new();
    match &def.kind {
        ColumnKind::Physical(_) => return None,
        ColumnKind::Computed { expr, .. } => {
            values.insert("expr", flink_expr::serialize(expr, &column_names(columns)));
            let ty = flink_expr::infer(expr, &|n| column_type(columns, n));
            if let Some(t) = ty {
                values.insert("data-type", flink_expr::serializable_type(&t));
            }
        }
        ColumnKind::Metadata {
            data_type,
            key,
            is_virtual,
        } => {
            values.insert("data-type", flink_expr::serializable_type(data_type));
            values.insert(
                "metadata",
                key.clone().unwrap_or_else(|| def.name.name.clone()),
            );
            values.insert("virtual", is_virtual.to_string());
        }
    }
    if let Some(c) = &def.comment {
        values.insert("comment", c.clone());
    }
    Some(NonPhysical {
        name: def.name.name.clone(),
        values,
    })
}

fn set_watermark(s: &mut TableSchema, w: &Watermark, columns: &[Column]) {
    s.options
        .insert(WATERMARK_ROWTIME.into(), w.column.name.clone());
    s.options.insert(
        WATERMARK_EXPR.into(),
        flink_expr::serialize(&w.expr, &column_names(columns)),
    );
    match flink_expr::infer(&w.expr, &|n| column_type(columns, n)) {
        Some(t) => s.options.insert(
            WATERMARK_DATA_TYPE.into(),
            flink_expr::serializable_type(&t),
        ),
        None => s.options.remove(WATERMARK_DATA_TYPE),
    };
}

/// Inserts `c` at `pos` (Paimon's `Move`): FIRST, AFTER a column, or by default at the end —
/// before the first partition column when `add-column-before-partition` is true.
fn place(
    columns: &mut Vec<Column>,
    c: Column,
    pos: &Option<ColumnPosition>,
    before: Option<usize>,
) {
    let idx = match pos {
        Some(ColumnPosition::First) => 0,
        Some(ColumnPosition::After(a)) => columns
            .iter()
            .position(|x| x.name() == a.name)
            .map_or(columns.len(), |i| i + 1),
        None => before.unwrap_or(columns.len()),
    };
    columns.insert(idx, c);
}

/// Gives nested ROW fields of a new type fresh ids after `highest` (Paimon's `ReassignFieldId`).
fn reassign_ids(t: &mut DataType, highest: &mut i32) {
    match &mut t.kind {
        TypeKind::Row(fields) => {
            for f in fields {
                *highest += 1;
                f.id = *highest;
                reassign_ids(&mut f.data_type, highest);
            }
        }
        TypeKind::Array(e) | TypeKind::Multiset(e) => reassign_ids(e, highest),
        TypeKind::Map(k, v) => {
            reassign_ids(k, highest);
            reassign_ids(v, highest);
        }
        _ => {}
    }
}

/// The new type of a modified column: nested ROW fields that keep their name keep their id
/// (Paimon updates nested columns by name); new nested fields get fresh ids.
fn evolve_type(old: &DataType, new: &DataType, highest: &mut i32) -> DataType {
    let mut t = new.clone();
    let nested = match (&old.kind, &mut t.kind) {
        (TypeKind::Row(old_fields), TypeKind::Row(new_fields)) => {
            for f in new_fields.iter_mut() {
                match old_fields.iter().find(|o| o.name == f.name) {
                    Some(o) => {
                        f.id = o.id;
                        f.data_type = evolve_type(&o.data_type, &f.data_type, highest);
                    }
                    None => {
                        *highest += 1;
                        f.id = *highest;
                        reassign_ids(&mut f.data_type, highest);
                    }
                }
            }
            true
        }
        (TypeKind::Array(o), TypeKind::Array(n))
        | (TypeKind::Multiset(o), TypeKind::Multiset(n)) => {
            let evolved = evolve_type(o, n, highest);
            **n = evolved;
            true
        }
        (TypeKind::Map(ok, ov), TypeKind::Map(nk, nv)) => {
            let (k, v) = (evolve_type(ok, nk, highest), evolve_type(ov, nv, highest));
            (**nk, **nv) = (k, v);
            true
        }
        _ => false,
    };
    if !nested {
        reassign_ids(&mut t, highest);
    }
    t
}

fn add_columns(s: &mut TableSchema, columns: &mut Vec<Column>, changes: &[ColumnChange]) {
    let before_partition = s
        .options
        .get("add-column-before-partition")
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    for cc in changes {
        let before = if before_partition {
            columns
                .iter()
                .position(|c| s.partition_keys.iter().any(|k| k == c.name()))
        } else {
            None
        };
        let column = match &cc.column.kind {
            ColumnKind::Physical(t) => {
                s.highest_field_id += 1;
                let id = s.highest_field_id;
                let mut t = t.clone();
                reassign_ids(&mut t, &mut s.highest_field_id);
                Column::Physical(DataField {
                    id,
                    name: cc.column.name.name.clone(),
                    data_type: t,
                    description: cc.column.comment.clone(),
                })
            }
            _ => match non_physical(&cc.column, columns) {
                Some(c) => Column::NonPhysical(c),
                None => continue,
            },
        };
        place(columns, column, &cc.position, before);
    }
}

/// MODIFY replaces the column definition, as Flink does: type (keeping the field id; primary-key
/// columns stay NOT NULL), comment (dropped when the new definition has none) and position.
fn modify_columns(s: &mut TableSchema, columns: &mut Vec<Column>, changes: &[ColumnChange]) {
    for cc in changes {
        let Some(i) = columns.iter().position(|c| c.name() == cc.column.name.name) else {
            continue;
        };
        let column = match (columns.remove(i), &cc.column.kind) {
            (Column::Physical(mut f), ColumnKind::Physical(t)) => {
                let pk = s.primary_keys.contains(&f.name);
                let t = t.clone().with_nullable(t.nullable && !pk);
                f.data_type = evolve_type(&f.data_type, &t, &mut s.highest_field_id);
                f.description = cc.column.comment.clone();
                Column::Physical(f)
            }
            (Column::NonPhysical(old), kind) if !matches!(kind, ColumnKind::Physical(_)) => {
                match non_physical(&cc.column, columns) {
                    Some(c) => Column::NonPhysical(c),
                    None => Column::NonPhysical(old),
                }
            }
            // Physical <-> non-physical is rejected by Flink; keep the column as it was.
            (old, _) => old,
        };
        match &cc.position {
            None => columns.insert(i, column),
            p => place(columns, column, p, None),
        }
    }
}

/// Renames a column in the options that name it (bucket key, sequence field, `fields.<col>.*`).
fn rename_in_options(options: &mut BTreeMap<String, String>, from: &str, to: &str) {
    let rename_list = |v: &str| {
        v.split(',')
            .map(|c| if c == from { to } else { c })
            .collect::<Vec<_>>()
            .join(",")
    };
    for key in COLUMN_LIST_OPTIONS {
        if let Some(v) = options.get_mut(*key) {
            *v = rename_list(v);
        }
    }
    for suffix in FIELD_OPTION_SUFFIXES {
        if let Some(v) = options.remove(&format!("fields.{from}.{suffix}")) {
            options.insert(format!("fields.{to}.{suffix}"), v);
        }
    }
    // `fields.<cols>.sequence-group` and `fields.<cols>.nested-key` name columns in key and value.
    let mut renamed = Vec::new();
    for (key, value) in options.iter() {
        let Some(rest) = key.strip_prefix("fields.") else {
            continue;
        };
        for suffix in ["sequence-group", "nested-key"] {
            if let Some(cols) = rest.strip_suffix(suffix).and_then(|r| r.strip_suffix('.')) {
                let new_key = format!("fields.{}.{suffix}", rename_list(cols));
                renamed.push((key.clone(), new_key, rename_list(value)));
            }
        }
    }
    for (old_key, new_key, value) in renamed {
        options.remove(&old_key);
        options.insert(new_key, value);
    }
}

/// The schema after `alter` (call [`crate::validate()`] with the old schema first): `id` + 1 and
/// the change applied as Flink's Paimon catalog does. RENAME TO and DROP PARTITION do not change
/// the schema: for them the old schema is returned unchanged (same id), so nothing is committed.
/// `time_millis` is left for the committer to set.
pub fn apply_alter(old: &TableSchema, alter: &AlterTable) -> TableSchema {
    if matches!(
        alter.action,
        AlterAction::RenameTo(_)
            | AlterAction::DropPartitions { .. }
            | AlterAction::AddPartitionField(_)
            | AlterAction::DropPartitionField(_)
    ) {
        return old.clone();
    }
    let mut s = old.clone();
    s.id += 1;
    let mut columns = full_columns(&s);
    match &alter.action {
        AlterAction::Set(opts) => {
            for o in opts {
                if o.key == "comment" {
                    s.comment = Some(o.value.clone());
                } else {
                    s.options.insert(o.key.clone(), o.value.clone());
                }
            }
        }
        AlterAction::Reset(keys) => {
            for (k, _) in keys {
                if k == "comment" {
                    s.comment = None;
                } else {
                    s.options.remove(k);
                }
            }
        }
        AlterAction::RenameColumn { from, to } => {
            let physical = old.field(&from.name).is_some();
            for c in columns.iter_mut().filter(|c| c.name() == from.name) {
                match c {
                    Column::Physical(f) => f.name = to.name.clone(),
                    Column::NonPhysical(n) => n.name = to.name.clone(),
                }
            }
            if physical {
                for k in s.primary_keys.iter_mut().filter(|k| **k == from.name) {
                    *k = to.name.clone();
                }
                rename_in_options(&mut s.options, &from.name, &to.name);
            }
        }
        AlterAction::DropColumns(cols) => {
            columns.retain(|c| !cols.iter().any(|d| d.name == c.name()));
        }
        AlterAction::Add(ch) => {
            add_columns(&mut s, &mut columns, &ch.columns);
            if let Some(w) = &ch.watermark {
                set_watermark(&mut s, w, &columns);
            }
        }
        AlterAction::Modify(ch) => {
            modify_columns(&mut s, &mut columns, &ch.columns);
            if let Some(w) = &ch.watermark {
                set_watermark(&mut s, w, &columns);
            }
        }
        AlterAction::DropWatermark(_) => {
            for k in [WATERMARK_ROWTIME, WATERMARK_EXPR, WATERMARK_DATA_TYPE] {
                s.options.remove(k);
            }
        }
        AlterAction::DropPrimaryKey(_) => s.primary_keys.clear(),
        AlterAction::RenameTo(_)
        | AlterAction::DropPartitions { .. }
        | AlterAction::AddPartitionField(_)
        | AlterAction::DropPartitionField(_) => {}
    }
    store_columns(&mut s, columns);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{create_table_schema, parse_statement, Statement};

    fn create(sql: &str) -> TableSchema {
        match parse_statement(sql) {
            Ok(Statement::CreateTable(c)) => create_table_schema(&c).expect(sql),
            other => panic!("{sql}: {other:?}"),
        }
    }

    fn alter(s: &TableSchema, sql: &str) -> TableSchema {
        match parse_statement(sql) {
            Ok(Statement::AlterTable(a)) => {
                crate::validate(
                    &Statement::AlterTable(a.clone()),
                    &crate::ValidationContext {
                        existing: Some(s),
                        ..Default::default()
                    },
                )
                .expect(sql);
                apply_alter(s, &a)
            }
            other => panic!("{sql}: {other:?}"),
        }
    }

    /// `id:name:type` of every field.
    fn fields(s: &TableSchema) -> Vec<String> {
        s.fields
            .iter()
            .map(|f| format!("{}:{}:{}", f.id, f.name, f.data_type))
            .collect()
    }

    fn opts(s: &TableSchema) -> Vec<String> {
        s.options.iter().map(|(k, v)| format!("{k}={v}")).collect()
    }

    const TEST: &str = "CREATE TABLE test (user_id BIGINT, item_id BIGINT, behavior STRING, dt STRING, hh STRING, PRIMARY KEY (dt, hh, user_id) NOT ENFORCED)";

    #[test]
    fn seed_column_changes_follow_paimon() {
        let s0 = create(TEST);
        let s = alter(&s0, "ALTER TABLE test SET ('write-buffer-size' = '256 MB')");
        assert_eq!(
            (s.id, opts(&s)),
            (1, vec!["write-buffer-size=256 MB".into()])
        );
        let s = alter(&s, "ALTER TABLE test RESET ('write-buffer-size')");
        assert!(s.options.is_empty());
        let s = alter(&s, "ALTER TABLE test ADD (c1 INT, c2 STRING)");
        assert_eq!(s.highest_field_id, 6);
        assert_eq!(fields(&s)[5..], ["5:c1:INT", "6:c2:STRING"]);
        let s = alter(&s, "ALTER TABLE test RENAME c1 TO c0");
        assert_eq!(fields(&s)[5], "5:c0:INT");
        let s = alter(&s, "ALTER TABLE test DROP (c0, c2)");
        assert_eq!(s.fields.len(), 5);
        assert_eq!(s.highest_field_id, 6, "ids are never reused");
        let s = alter(
            &s,
            "ALTER TABLE test MODIFY user_id BIGINT COMMENT 'user id'",
        );
        let u = s.field("user_id").unwrap();
        assert_eq!(u.description.as_deref(), Some("user id"));
        assert!(!u.data_type.nullable, "primary-key columns stay NOT NULL");
        let s = alter(&s, "ALTER TABLE test ADD a INT FIRST");
        let s = alter(&s, "ALTER TABLE test ADD b INT AFTER a");
        assert_eq!(
            fields(&s)[..3],
            ["7:a:INT", "8:b:INT", "0:user_id:BIGINT NOT NULL"]
        );
        let s = alter(&s, "ALTER TABLE test MODIFY b INT FIRST");
        assert_eq!(fields(&s)[..2], ["8:b:INT", "7:a:INT"]);
        let s = alter(&s, "ALTER TABLE test MODIFY a INT AFTER user_id");
        let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["b", "user_id", "a", "item_id", "behavior", "dt", "hh"]
        );
        let s = alter(&s, "ALTER TABLE test MODIFY a DOUBLE");
        assert_eq!(fields(&s)[2], "7:a:DOUBLE");
        assert_eq!(s.id, 11);
        assert_eq!(s.primary_keys, ["dt", "hh", "user_id"]);
        assert!(s.options.is_empty());
    }

    #[test]
    fn nullability_and_casts() {
        let s = create(
            "CREATE TABLE test_null (id INT PRIMARY KEY NOT ENFORCED, coupon_info FLOAT NOT NULL)",
        );
        let s = alter(&s, "ALTER TABLE test_null MODIFY coupon_info FLOAT");
        assert_eq!(fields(&s), ["0:id:INT NOT NULL", "1:coupon_info:FLOAT"]);
        let c = create("CREATE TABLE test_cast (id BIGINT, behavior STRING)");
        let c = alter(&c, "ALTER TABLE test_cast MODIFY behavior INT");
        assert_eq!(fields(&c), ["0:id:BIGINT", "1:behavior:INT"]);
    }

    #[test]
    fn rename_carries_keys_and_options() {
        let s = create("CREATE TABLE r (k INT, v INT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('sequence.field' = 's', 'merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum')");
        let s = alter(&s, "ALTER TABLE r RENAME s TO seq");
        let s = alter(&s, "ALTER TABLE r RENAME v TO total");
        assert_eq!(
            s.options.get("sequence.field").map(String::as_str),
            Some("seq")
        );
        assert_eq!(
            s.options
                .get("fields.total.aggregate-function")
                .map(String::as_str),
            Some("sum")
        );
        assert!(!s.options.contains_key("fields.v.aggregate-function"));
        let s = alter(&s, "ALTER TABLE r RENAME k TO key");
        assert_eq!(s.primary_keys, ["key"]);
        let g = create("CREATE TABLE g (k INT, a INT, b INT, t1 BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('merge-engine' = 'partial-update', 'fields.t1.sequence-group' = 'a,b')");
        let g = alter(&g, "ALTER TABLE g RENAME t1 TO ts");
        let g = alter(&g, "ALTER TABLE g RENAME b TO bb");
        assert_eq!(
            opts(&g),
            [
                "fields.ts.sequence-group=a,bb",
                "merge-engine=partial-update"
            ]
        );
    }

    #[test]
    fn computed_columns_and_watermarks_are_options() {
        let s = create("CREATE TABLE test_wm (id INT, name STRING, ts BIGINT)");
        let s = alter(&s, "ALTER TABLE test_wm ADD (et AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR et AS et - INTERVAL '1' SECOND)");
        assert_eq!(s.fields.len(), 3, "computed columns are not fields");
        assert_eq!(s.highest_field_id, 2);
        assert_eq!(
            opts(&s),
            [
                "schema.3.data-type=TIMESTAMP(3) WITH LOCAL TIME ZONE",
                "schema.3.expr=TO_TIMESTAMP_LTZ(`ts`, 3)",
                "schema.3.name=et",
                "schema.watermark.0.rowtime=et",
                "schema.watermark.0.strategy.data-type=TIMESTAMP(3) WITH LOCAL TIME ZONE",
                "schema.watermark.0.strategy.expr=`et` - INTERVAL '1' SECOND",
            ]
        );
        let s = alter(
            &s,
            "ALTER TABLE test_wm MODIFY WATERMARK FOR et AS et - INTERVAL '2' SECOND",
        );
        assert_eq!(
            s.options.get(WATERMARK_EXPR).map(String::as_str),
            Some("`et` - INTERVAL '2' SECOND")
        );
        // A physical column added FIRST shifts the computed column's index.
        let s = alter(&s, "ALTER TABLE test_wm ADD x STRING FIRST");
        assert_eq!(
            s.options.get("schema.4.name").map(String::as_str),
            Some("et")
        );
        assert!(!s.options.contains_key("schema.3.name"));
        let names: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["x", "id", "name", "ts"]);
        let s = alter(&s, "ALTER TABLE test_wm DROP WATERMARK");
        assert!(s.options.keys().all(|k| !k.starts_with("schema.watermark")));
        let s = alter(&s, "ALTER TABLE test_wm ADD y INT");
        assert_eq!(
            s.options.get("schema.4.name").map(String::as_str),
            Some("et")
        );
        assert_eq!(s.fields.last().map(|f| f.name.as_str()), Some("y"));
        let s = apply_alter(
            &s,
            &match parse_statement("ALTER TABLE test_wm DROP (et)") {
                Ok(Statement::AlterTable(a)) => a,
                other => panic!("{other:?}"),
            },
        );
        assert!(s.options.is_empty(), "{:?}", s.options);
        assert_eq!(s.fields.len(), 5);
    }

    #[test]
    fn rename_to_is_not_a_schema_change() {
        let s = create(TEST);
        assert_eq!(alter(&s, "ALTER TABLE test RENAME TO test_new"), s);
    }
}
