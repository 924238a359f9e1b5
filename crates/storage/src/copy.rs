//! Copies a list of objects from one store to another with bounded concurrency (e.g. the demo lake into OPFS).

use crate::{ObjectMeta, ObjectStore, Result};
use futures::stream::{self, StreamExt, TryStreamExt};

/// Copies every object of `files` from `from` to `to` (same keys), at most `concurrency` at a
/// time; `on_progress(done, total)` is called after each object. Returns the bytes copied.
/// Stops at the first failure (objects copied so far stay).
pub async fn copy_objects(
    from: &dyn ObjectStore,
    to: &dyn ObjectStore,
    files: &[ObjectMeta],
    concurrency: usize,
    on_progress: &dyn Fn(usize, usize),
) -> Result<u64> {
    let total = files.len();
    let mut done = 0;
    let mut bytes = 0;
    let mut copies = stream::iter(files)
        .map(|meta| async move {
            let data = from.get(&meta.path).await?;
            let len = data.len() as u64;
            to.put(&meta.path, data).await?;
            Ok::<u64, crate::Error>(len)
        })
        .buffer_unordered(concurrency.max(1));
    while let Some(len) = copies.try_next().await? {
        done += 1;
        bytes += len;
        on_progress(done, total);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;
    use bytes::Bytes;
    use futures::executor::block_on;
    use std::cell::Cell;

    #[test]
    fn copies_every_listed_object_and_reports_progress() {
        block_on(async {
            let from = MemoryStore::new();
            let mut files = Vec::new();
            for i in 0..7u8 {
                let path = format!("d.db/t/f{i}");
                from.put(&path, Bytes::from(vec![i; i as usize]))
                    .await
                    .unwrap();
                files.push(ObjectMeta {
                    path,
                    size: u64::from(i),
                });
            }
            from.put("not-listed", Bytes::from_static(b"x"))
                .await
                .unwrap();
            let to = MemoryStore::new();
            let calls = Cell::new(0);
            let bytes = copy_objects(&from, &to, &files, 3, &|done, total| {
                assert_eq!(total, 7);
                calls.set(calls.get() + 1);
                assert_eq!(done, calls.get());
            })
            .await
            .unwrap();
            assert_eq!(bytes, (0..7).sum::<u64>());
            assert_eq!(calls.get(), 7);
            for f in &files {
                assert_eq!(
                    to.get(&f.path).await.unwrap(),
                    from.get(&f.path).await.unwrap()
                );
            }
            assert!(to.get("not-listed").await.unwrap_err().is_not_found());

            files.push(ObjectMeta {
                path: "missing".into(),
                size: 1,
            });
            let err = copy_objects(&from, &MemoryStore::new(), &files, 2, &|_, _| {})
                .await
                .unwrap_err();
            assert!(err.is_not_found(), "{err}");
        });
    }
}
