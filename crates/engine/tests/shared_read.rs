//! A read shared out by ticket (`shared_read`): readers that plan the same snapshot on their own
//! catalogs hand out the same tickets, the splits read by ticket — in any order, by another
//! reader — are exactly the single-threaded read of that snapshot, and a ticket of another plan
//! is refused, never read as another split. A projected, filtered audit-log read shared that way
//! and put back in plan order is the Data tab's single-reader stream, row for row.

use lakescope_engine::canonical::batches_to_lines_unsorted;
use lakescope_engine::scan::parse_filter;
use lakescope_engine::scan::ScanRequest;
use lakescope_engine::shared_read::{InOrder, ShareRequest, SharedRead, SplitTicket};
use lakescope_engine::table::Table as AnyTable;
use lakescope_engine::{Catalog, TableRef, Version};
use lakescope_storage::{LocalStore, ObjectStore};
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn catalog(warehouse: &Path) -> Catalog {
    Catalog::new(Rc::new(LocalStore::new(warehouse)) as Rc<dyn ObjectStore>)
}

fn corpus_warehouse() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/paimon/warehouse")
}

/// Every Paimon table of the corpus with the snapshot ids it has expected rows for.
fn corpus_snapshots() -> Vec<(TableRef, i64)> {
    let root = corpus_warehouse().join("../../expected/paimon");
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).expect("the corpus is beside the repository") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let table: TableRef = dir.file_name().unwrap().to_str().unwrap().parse().unwrap();
        for file in std::fs::read_dir(&dir).unwrap() {
            let name = file.unwrap().file_name().to_string_lossy().into_owned();
            let id = name
                .strip_prefix("snapshot-")
                .and_then(|n| n.strip_suffix(".jsonl"));
            if let Some(id) = id {
                out.push((table.clone(), id.parse().unwrap()));
            }
        }
    }
    out.sort_by_key(|a| (a.0.to_string(), a.1));
    out
}

#[tokio::test]
async fn splits_read_by_ticket_elsewhere_are_the_single_threaded_read() {
    let warehouse = corpus_warehouse();
    let snapshots = corpus_snapshots();
    assert!(snapshots.len() > 30, "{} snapshots", snapshots.len());
    let mut shared = 0;
    for (table, id) in snapshots {
        let what = format!("{table} at snapshot {id}");
        let expected = catalog(&warehouse)
            .scan(
                &table,
                &ScanRequest {
                    at: Version::SnapshotId(id),
                    ..ScanRequest::default()
                },
            )
            .await;
        let expected = expected.unwrap_or_else(|e| panic!("{what}: {e}"));
        let coordinator = SharedRead::plan(&catalog(&warehouse), &table, Some(id), 3)
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let reader = SharedRead::plan(&catalog(&warehouse), &table, Some(id), 3)
            .await
            .unwrap();
        let tickets = coordinator.tickets();
        assert_eq!(tickets, reader.tickets(), "{what}: two plans differ");
        assert_eq!(coordinator.snapshot_id(), Some(id));
        if tickets.len() > 1 {
            shared += 1;
        }
        // read the tickets last first, then put the splits back in plan order
        let mut by_split = vec![Vec::new(); tickets.len()];
        for ticket in tickets.iter().rev() {
            let mut split = reader.reader(ticket).await.unwrap();
            while let Some(batch) = split.next_batch().await {
                by_split[ticket.index].push(batch.unwrap());
            }
        }
        let batches: Vec<_> = by_split.into_iter().flatten().collect();
        assert_eq!(
            batches_to_lines_unsorted(&batches).unwrap(),
            batches_to_lines_unsorted(&expected.batches).unwrap(),
            "{what}"
        );
    }
    assert!(shared > 10, "only {shared} plans had more than one split");
}

#[tokio::test]
async fn a_ticket_of_another_plan_is_refused() {
    let warehouse = corpus_warehouse();
    let table: TableRef = "corpus.pk_dedup".parse().unwrap();
    let read = SharedRead::plan(&catalog(&warehouse), &table, None, 3)
        .await
        .unwrap();
    let tickets = read.tickets();
    assert!(tickets.len() > 1, "{tickets:?}");
    let other_file = SplitTicket {
        first_file: tickets[1].first_file.clone(),
        ..tickets[0].clone()
    };
    let past_the_end = SplitTicket {
        index: tickets.len(),
        ..tickets[0].clone()
    };
    for ticket in [other_file, past_the_end] {
        let message = match read.reader(&ticket).await {
            Ok(_) => panic!("{ticket:?} was read"),
            Err(e) => e.to_string(),
        };
        assert!(
            message.contains("corpus.pk_dedup")
                && message.contains(&format!("split {}", ticket.index))
                && message.contains("is not in this reader's plan"),
            "{message}"
        );
    }
}

/// Every Paimon table of the corpus at its latest snapshot, read as the app's Data tab reads it
/// (columns reversed, a filter, the audit log): the coordinator reads the even splits with small
/// first batches, a second reader that followed its plan reads the odd ones last first, and
/// [`InOrder`] gives the single reader's stream in its order.
#[tokio::test]
async fn a_shared_projected_filtered_audit_log_read_put_in_order_is_the_single_readers_stream() {
    let warehouse = corpus_warehouse();
    let mut tables: Vec<TableRef> = corpus_snapshots().into_iter().map(|(t, _)| t).collect();
    tables.dedup();
    let mut shared = 0;
    for name in tables {
        let coordinator_catalog = catalog(&warehouse);
        let table = Rc::new(coordinator_catalog.open_table(&name).await.unwrap());
        let Some(snapshot) = table.latest_snapshot().await.unwrap() else {
            continue;
        };
        let fields = &table.current_schema().fields;
        let columns: Vec<String> = fields.iter().rev().map(|f| f.name.clone()).collect();
        let filter = format!("`{}` IS NOT NULL", fields[0].name);
        let what = format!("{name} at snapshot {} with {filter}", snapshot.id);
        let any = AnyTable::Paimon(table.clone());
        let expected = any
            .scan(name.clone())
            .at(Version::SnapshotId(snapshot.id))
            .select(Some(columns.clone()))
            .filter(Some(parse_filter(&filter).unwrap()))
            .audit_log(true)
            .stream()
            .await;
        let request = ShareRequest {
            columns: Some(columns),
            filter: Some(filter.clone()),
            with_row_kind: true,
        };
        let planned =
            SharedRead::of_table(&name, table.clone(), Some(snapshot), request, 2, true).await;
        let (mut expected, coordinator) = match (expected, planned) {
            (Ok(e), Ok(c)) => (e, c),
            (Err(e), Err(c)) => {
                assert_eq!(e.to_string(), c.to_string(), "{what}");
                continue;
            }
            (e, c) => panic!("{what}: single {:?}, shared {:?}", e.err(), c.err()),
        };
        let mut single = Vec::new();
        while let Some(batch) = expected.next_batch().await {
            single.push(batch.unwrap_or_else(|e| panic!("{what}: {e}")));
        }
        let follower = SharedRead::follow(&catalog(&warehouse), &coordinator.share_plan())
            .await
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let tickets = coordinator.tickets();
        assert_eq!(tickets, follower.tickets(), "{what}: two plans differ");
        assert_eq!(*coordinator.schema(), *expected.schema(), "{what}");
        if tickets.len() > 1 {
            shared += 1;
        }
        let mut order = InOrder::new(tickets.len());
        let mut out = Vec::new();
        let odd = tickets.iter().filter(|t| t.index % 2 == 1).rev();
        for ticket in tickets.iter().filter(|t| t.index % 2 == 0).chain(odd) {
            let reader = if ticket.index % 2 == 0 {
                order.stream(ticket.index);
                &coordinator
            } else {
                &follower
            };
            let mut split = reader.reader(ticket).await.unwrap();
            while let Some(batch) = split.next_batch().await {
                order.push(ticket.index, batch.unwrap());
                out.extend(std::iter::from_fn(|| order.pop()));
            }
            order.finish(ticket.index);
            out.extend(std::iter::from_fn(|| order.pop()));
        }
        assert!(order.is_done(), "{what}");
        assert_eq!(
            batches_to_lines_unsorted(&out).unwrap(),
            batches_to_lines_unsorted(&single).unwrap(),
            "{what}"
        );
    }
    assert!(shared > 5, "only {shared} plans had more than one split");
}

#[tokio::test]
async fn a_reader_whose_table_has_another_schema_refuses_the_plan() {
    let warehouse = corpus_warehouse();
    let name: TableRef = "corpus.pk_dedup".parse().unwrap();
    let read = SharedRead::plan(&catalog(&warehouse), &name, None, 2)
        .await
        .unwrap();
    let mut plan = read.share_plan();
    plan.schema_id += 1;
    let message = match SharedRead::follow(&catalog(&warehouse), &plan).await {
        Ok(_) => panic!("a plan of another schema was followed"),
        Err(e) => e.to_string(),
    };
    assert!(
        message.contains("corpus.pk_dedup") && message.contains("the table changed since"),
        "{message}"
    );
}
