//! What Java Paimon 0.9 commits when `ignore-delete` drops every row of a batch DELETE: no
//! snapshot (its batch commit ignores empty commits), while without `ignore-delete` the same
//! write commits one. lakescope's SQL DELETE matches it (crates/query/tests/ignore_delete.rs).
//! The oracle is `TagsJava delete-rows` (tags_orc_interop.rs), set up by `scripts/oracles.sh`;
//! without it the test fails (set `LAKESCOPE_SKIP_ORACLES=1` to skip it).

use arrow_array::{ArrayRef, Int64Array, StringArray};
use lakescope_engine::write::Definition;
use lakescope_engine::Catalog;
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::TypeKind;
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::LocalStore;
use lakescope_test_support::oracles::{run, Oracles};
use lakescope_test_support::tables::{batch, t};
use lakescope_test_support::temp_dir;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

fn oracles() -> Option<Oracles> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tags_orc_oracle");
    Some(lakescope_test_support::oracles::oracles()?.with_java(
        &here.join("TagsJava.java"),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("ignore-delete-classes"),
    ))
}

#[tokio::test]
async fn java_commits_nothing_when_ignore_delete_drops_every_row() {
    let Some(o) = oracles() else { return };
    let wh = temp_dir("lakescope-ignore-delete", "java");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 39);
    let s = t(TypeKind::VarChar(MAX_LENGTH));
    for (name, ignore, latest) in [("ignored", "true", "1"), ("kept", "false", "2")] {
        let def = Definition {
            columns: vec![
                ("dt".into(), s.clone(), None),
                ("id".into(), t(TypeKind::BigInt), None),
                ("v".into(), s.clone(), None),
            ],
            partition_keys: vec!["dt".into()],
            primary_keys: vec!["dt".into(), "id".into()],
            options: [("bucket", "2"), ("ignore-delete", ignore)]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        };
        let tr = catalog
            .create_table_with(&env, "ls", name, &def)
            .await
            .unwrap();
        let b = batch(vec![
            (
                "dt",
                Arc::new(StringArray::from(vec!["a", "a"])) as ArrayRef,
            ),
            ("id", Arc::new(Int64Array::from(vec![1, 2]))),
            ("v", Arc::new(StringArray::from(vec!["x", "y"]))),
        ]);
        catalog.insert_with(&env, &tr, &[b], None).await.unwrap();
        let mut cmd = o.java("TagsJava");
        cmd.arg("delete-rows")
            .arg(wh.join(tr.path()))
            .args(["a", "1", "2"]);
        let out = run(&mut cmd, "Java Paimon 0.9 delete-rows");
        assert!(
            out.lines().any(|l| l == format!("latest {latest}")),
            "ignore-delete = {ignore}: {out}"
        );
    }
    let _ = std::fs::remove_dir_all(&wh);
}
