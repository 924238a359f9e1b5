//! Tags a Paimon REST catalog keeps, read by name through the engine (what the CLI, the SQL
//! session and the app resolve a `Version` with), against Apache Paimon's mock REST catalog
//! server (../shared/catalogs): the server keeps its tags in the catalog, not as `tag/` files,
//! so they are fetched from its tags endpoints. pypaimon 2.1 creates a tag through the catalog
//! and reads the tagged snapshot; lakescope reads the tag by name to exactly those rows, lists
//! it among the table's versions, creates one through the catalog and reads it back, and an
//! unknown tag is an error naming the tag and the table.

use lakescope_engine::{CatalogAddress, TableRef, Version};
use lakescope_storage::transport::ReqwestTransport;
use lakescope_test_support::catalogs::{
    paimon_rest_warehouse, pypaimon_rest, start_catalog_server, PAIMON_REST_TOKEN,
};
use lakescope_test_support::engine::{canonical_rows, LocalOpener};
use lakescope_test_support::oracles::{oracles, sections};
use std::rc::Rc;

#[tokio::test]
async fn tags_the_catalog_keeps_are_read_by_name_as_pypaimon_reads_them() {
    let Some(o) = oracles() else { return };
    let (_dir, wh) = paimon_rest_warehouse();
    let (_server, url, _) = start_catalog_server("paimon-rest-server.sh", &wh);
    pypaimon_rest(&o.python, &url, &["write"]);
    pypaimon_rest(&o.python, &url, &["create_tag", "d.pk", "t2", "2"]);
    assert!(
        !wh.join("d/pk/tag").exists(),
        "the server keeps its tags in the catalog, not as files"
    );
    let tagged: i64 = pypaimon_rest(&o.python, &url, &["tag", "d.pk", "t2"])
        .trim()
        .parse()
        .unwrap();
    assert_eq!(tagged, 2);
    let read = |id: i64| {
        sections::<i64>(&pypaimon_rest(
            &o.python,
            &url,
            &["read", "d.pk", &id.to_string()],
        ))
        .remove(&id)
        .unwrap()
        .unwrap_or_else(|e| panic!("pypaimon cannot read d.pk at {id}: {e}"))
    };
    let want = read(tagged);

    let address = format!("paimon+rest://{}/wh", url.trim_start_matches("http://"));
    let transport = Rc::new(ReqwestTransport::new(std::time::Duration::from_secs(30)).unwrap());
    let catalog = CatalogAddress::parse(&address)
        .unwrap()
        .open(
            Some(PAIMON_REST_TOKEN.to_string()),
            transport,
            Rc::new(LocalOpener),
        )
        .await
        .unwrap();
    let pk: TableRef = "d.pk".parse().unwrap();
    for at in [
        Version::Tag("t2".into()),
        Version::parse("tag:t2").unwrap(),
        Version::Ref("t2".into()),
    ] {
        let got = canonical_rows(&catalog, &pk, at.clone()).await;
        assert_eq!(got.as_ref(), Ok(&want), "d.pk at {at:?}");
    }
    let versions = catalog.table(&pk).await.unwrap().versions().await.unwrap();
    assert_eq!(versions.tags, vec![("t2".to_string(), 2)]);

    // an unknown tag names the tag and the table
    let e = canonical_rows(&catalog, &pk, Version::Tag("nope".into()))
        .await
        .unwrap_err();
    assert!(
        e.contains("tag 'nope'") && e.contains("d.pk") && e.contains(&url),
        "{e}"
    );

    // a tag created through the catalog at the latest snapshot reads as pypaimon reads it
    catalog.create_tag(&pk, "t3", None, None).await.unwrap();
    let latest: i64 = pypaimon_rest(&o.python, &url, &["tag", "d.pk", "t3"])
        .trim()
        .parse()
        .unwrap();
    assert_eq!(latest, 3);
    assert_eq!(
        canonical_rows(&catalog, &pk, Version::Tag("t3".into())).await,
        Ok(read(latest))
    );
    let versions = catalog.table(&pk).await.unwrap().versions().await.unwrap();
    assert_eq!(
        versions.tags,
        vec![("t2".to_string(), 2), ("t3".to_string(), 3)]
    );
}
