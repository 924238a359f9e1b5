//! Flink functions in SELECTs run by the DataFusion engine: DATE_FORMAT, CAST, COALESCE, and
//! Flink's case-sensitive identifiers and exact decimal literals.

mod common;

use common::{rows, session, LocalOpener};
use std::rc::Rc;

#[tokio::test]
async fn flink_functions_in_queries() {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().to_str().unwrap();
    let mut s = session(Rc::new(LocalOpener));
    let setup = format!(
        "CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = '{wh}');
         USE CATALOG c;
         CREATE TABLE t (id INT, ts TIMESTAMP(3), note STRING, Amount DECIMAL(10, 2));
         INSERT INTO t VALUES (1, TIMESTAMP '2024-05-01 10:20:30.123', NULL, 12.50),
                              (2, TIMESTAMP '2024-12-31 23:59:59', 'x', 0.10);"
    );
    assert_eq!(
        s.run_script(&setup, false, &mut |p, r| {
            if let Err(e) = r {
                panic!("statement {}: {e}", p.number)
            }
        })
        .await,
        0
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS') AS f, DATE_FORMAT('2024-01-02 03:04:05', 'yyyyMMdd') AS g FROM t"
        )
        .await,
        vec![
            r#"{"id":1,"f":"2024-05-01 10:20:30.123","g":"20240102"}"#,
            r#"{"id":2,"f":"2024-12-31 23:59:59.000","g":"20240102"}"#,
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT id, COALESCE(note, 'none') AS n, CAST(id AS STRING) AS s, Amount * 2 AS a2 FROM t"
        )
        .await,
        vec![
            r#"{"id":1,"n":"none","s":"1","a2":"25.00"}"#,
            r#"{"id":2,"n":"x","s":"2","a2":"0.20"}"#,
        ]
    );
}
