//! The DDL tab's dry run of ALTER TABLE (`Session::preview_alter`): the next schema as a commit
//! would write it, errors at their position, and nothing written to the table.

use lakescope_engine::session::{PreviewOutcome, Session};
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_test_support::engine::local_session;
use std::path::Path;

async fn session_with_table(dir: &Path) -> Session {
    let mut session = local_session(1_790_000_000_000, 1);
    session
        .open_warehouse("lake", &dir.display().to_string())
        .await
        .expect("open the warehouse");
    let failed = session
        .run_script(
            "CREATE TABLE t (id INT NOT NULL, name STRING, PRIMARY KEY (id) NOT ENFORCED) \
             WITH ('bucket' = '2');",
            false,
            &mut |_, r| assert!(r.is_ok(), "{r:?}"),
        )
        .await;
    assert_eq!(failed, 0);
    session
}

fn schema_files(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("default.db/t/schema"))
        .expect("schema folder")
        .count()
}

#[tokio::test(flavor = "current_thread")]
async fn preview_applies_the_alter_without_committing() {
    let dir = lakescope_test_support::temp_dir("alter-preview", "ok");
    let session = session_with_table(&dir).await;
    let outcome = session
        .preview_alter("ALTER TABLE t ADD (score DOUBLE COMMENT 'pts');\n")
        .await;
    let PreviewOutcome::Schemas {
        table,
        current,
        next,
    } = outcome
    else {
        panic!("expected schemas, got {outcome:?}");
    };
    let current = TableSchema::from_json(current.as_bytes()).expect("current schema JSON");
    let next = TableSchema::from_json(next.as_bytes()).expect("next schema JSON");
    assert_eq!(table, "lake.default.t");
    assert_eq!((current.id, next.id), (0, 1));
    let added = next.fields.last().expect("a field");
    assert_eq!(
        (added.name.as_str(), added.id, added.description.as_deref()),
        ("score", 2, Some("pts"))
    );
    assert_eq!(next.fields.len(), current.fields.len() + 1);
    assert_eq!(schema_files(&dir), 1, "a preview commits nothing");

    let set = session
        .preview_alter("ALTER TABLE t SET ('snapshot.num-retained.max' = '5')")
        .await;
    let PreviewOutcome::Schemas { next, .. } = set else {
        panic!("expected schemas, got {set:?}");
    };
    let next = TableSchema::from_json(next.as_bytes()).expect("next schema JSON");
    assert_eq!(
        next.options
            .get("snapshot.num-retained.max")
            .map(String::as_str),
        Some("5")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "current_thread")]
async fn preview_errors_point_at_the_offending_token() {
    let dir = lakescope_test_support::temp_dir("alter-preview", "errors");
    let session = session_with_table(&dir).await;
    let error = |o: PreviewOutcome| match o {
        PreviewOutcome::Error {
            line,
            column,
            message,
        } => (line, column, message),
        other => panic!("expected an error, got {other:?}"),
    };
    // a syntax error on the second line, at the stray token
    let (line, column, message) = error(
        session
            .preview_alter("ALTER TABLE t\n  ADD score DOUBLE )")
            .await,
    );
    assert_eq!((line, column), (2, 20), "{message}");
    // a rule: the primary key cannot be dropped
    let (line, _, message) = error(session.preview_alter("ALTER TABLE t DROP id").await);
    assert_eq!(line, 1);
    assert!(message.contains("id"), "{message}");
    // not an ALTER, two statements, a missing table
    let (_, _, message) = error(session.preview_alter("SELECT 1").await);
    assert!(message.contains("ALTER TABLE"), "{message}");
    let (line, _, _) = error(
        session
            .preview_alter("ALTER TABLE t ADD a INT;\nALTER TABLE t ADD b INT")
            .await,
    );
    assert_eq!(line, 2);
    let (_, _, message) = error(session.preview_alter("ALTER TABLE nope ADD a INT").await);
    assert!(message.contains("nope"), "{message}");
    assert_eq!(schema_files(&dir), 1, "no preview commits");
    let _ = std::fs::remove_dir_all(&dir);
}
