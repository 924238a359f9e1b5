//! CALL sys.* procedures: tags, rollback, full compaction and snapshot expiration (Paimon's
//! `create_tag`, `delete_tag`, `rollback_to`, `compact`, `expire_snapshots`).

use super::catalogs::Resolved;
use super::convert::literal_datum;
use super::{at, Outcome, Session, StatementError, StatementResult};
use lakescope_paimon::commit::expire::{expire_snapshots, ExpireConfig};
use lakescope_paimon::commit::tags::{
    create_tag, delete_tag, parse_duration, rollback_to, RollbackTarget,
};
use lakescope_paimon::commit::CommitOptions;
use lakescope_paimon::compact::compact;
use lakescope_paimon::scan::PartitionFilter;
use lakescope_paimon::table::Table;
use lakescope_sql::ast::{CallArg, ObjectName};
use lakescope_sql::Pos;
use sqlparser::ast as sp;

/// The arguments of a call, looked up by name or position as Paimon's procedures take them.
struct Args<'a> {
    args: &'a [CallArg],
    /// Parameter names in positional order.
    params: &'a [&'a str],
}

impl Args<'_> {
    fn get(&self, name: &str) -> Option<&CallArg> {
        if let Some(a) = self.args.iter().find(|a| {
            a.name
                .as_ref()
                .is_some_and(|n| n.name.eq_ignore_ascii_case(name))
        }) {
            return Some(a);
        }
        let index = self.params.iter().position(|p| *p == name)?;
        self.args.iter().filter(|a| a.name.is_none()).nth(index)
    }

    /// A string or number argument as text; empty strings count as absent (Paimon's convention).
    fn text(&self, name: &str) -> Option<(String, Pos)> {
        let a = self.get(name)?;
        let text = match &a.value {
            sp::Expr::Value(v) => match &v.value {
                sp::Value::SingleQuotedString(s) | sp::Value::DoubleQuotedString(s) => s.clone(),
                sp::Value::Number(n, _) => n.clone(),
                _ => a.text.clone(),
            },
            _ => a.text.clone(),
        };
        (!text.is_empty()).then_some((text, a.pos))
    }

    fn required(&self, name: &str, procedure: &ObjectName) -> StatementResult<(String, Pos)> {
        self.text(name).ok_or_else(|| {
            StatementError::new(
                procedure.pos,
                format!(
                    "{procedure}: argument '{name}' is required (parameters: {})",
                    self.params.join(", ")
                ),
            )
        })
    }
}

/// Paimon's `partitions` argument: partitions separated by `;`, each `key=value` pairs
/// separated by `,` (`dt=2024-01-01,hh=10;dt=2024-01-02,hh=11`).
fn partition_filters(table: &Table, spec: &str, pos: Pos) -> StatementResult<Vec<PartitionFilter>> {
    let schema = table.current_schema();
    let mut filters = Vec::new();
    for partition in spec.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let mut values = Vec::new();
        for pair in partition.split(',') {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(StatementError::new(
                    pos,
                    format!("partitions: '{pair}' is not key=value"),
                ));
            };
            let key = key.trim();
            if !schema.partition_keys.iter().any(|k| k == key) {
                return Err(StatementError::new(
                    pos,
                    format!(
                        "partitions: '{key}' is not a partition column (partition keys: {})",
                        schema.partition_keys.join(", ")
                    ),
                ));
            }
            let field = schema
                .fields
                .iter()
                .find(|f| f.name == key)
                .ok_or_else(|| {
                    StatementError::new(pos, format!("partitions: no column '{key}'"))
                })?;
            let datum = literal_datum(value.trim(), &field.data_type, key, pos)?;
            values.push((key.to_string(), datum));
        }
        filters.push(PartitionFilter::Eq(values));
    }
    Ok(filters)
}

impl Session {
    /// `CALL sys.create_tag` on a REST catalog's table: through the service's tags endpoint,
    /// at the snapshot named or the table's latest.
    async fn create_service_tag(
        &self,
        target: &Resolved,
        table: &Table,
        args: &Args<'_>,
        procedure: &ObjectName,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let (tag, _) = args.required("tag", procedure)?;
        let snapshot = match args.text("snapshot_id") {
            Some((t, p)) => number(&t, "snapshot_id", p)?,
            None => table
                .latest_snapshot_id()
                .await
                .map_err(|e| at(pos, e))?
                .ok_or_else(|| {
                    StatementError::new(
                        pos,
                        format!(
                            "{}: the table has no snapshot to tag (nothing was created)",
                            target.qualified()
                        ),
                    )
                })?,
        };
        let retained = match args.text("time_retained") {
            Some((t, p)) => {
                parse_duration(&t).map_err(|e| at(p, e))?;
                Some(t)
            }
            None => None,
        };
        let (service, table_ref) = self.service_table(target, pos)?;
        service
            .create_tag(&table_ref, &tag, Some(snapshot), retained.as_deref())
            .await
            .map_err(|e| at(pos, e))?;
        Ok(Outcome::Done(format!(
            "[INFO] tag '{tag}' of {} at snapshot {snapshot}, through REST catalog {}",
            target.qualified(),
            target.catalog
        )))
    }

    /// `CALL sys.delete_tag` on a REST catalog's table: each tag of the comma-separated list
    /// through the service's tag endpoint; a tag the service does not have is passed over, as
    /// Paimon's `deleteTags` passes over a missing tag.
    async fn delete_service_tags(
        &self,
        target: &Resolved,
        args: &Args<'_>,
        procedure: &ObjectName,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let (tags, _) = args.required("tag", procedure)?;
        let (service, table_ref) = self.service_table(target, pos)?;
        let mut deleted = Vec::new();
        for tag in tags.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            match service.delete_tag(&table_ref, tag).await {
                Ok(()) => deleted.push(tag.to_string()),
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(at(pos, e)),
            }
        }
        Ok(Outcome::Done(format!(
            "[INFO] deleted tags of {}: [{}], through REST catalog {}",
            target.qualified(),
            deleted.join(", "),
            target.catalog
        )))
    }
}

fn number(text: &str, name: &str, pos: Pos) -> StatementResult<i64> {
    text.trim()
        .parse()
        .map_err(|_| StatementError::new(pos, format!("'{name}' must be a number, not '{text}'")))
}

impl Session {
    /// CALL sys.procedure(...).
    pub(super) async fn call(
        &mut self,
        procedure: &ObjectName,
        args: &[CallArg],
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let name = procedure.name().to_ascii_lowercase();
        let params: &[&str] = match name.as_str() {
            "create_tag" => &["table", "tag", "snapshot_id", "time_retained"],
            "delete_tag" => &["table", "tag"],
            "rollback_to" => &["table", "tag", "snapshot_id"],
            "expire_snapshots" => &[
                "table",
                "retain_max",
                "retain_min",
                "older_than",
                "max_deletes",
                "options",
            ],
            "compact" => &[
                "table",
                "partitions",
                "order_strategy",
                "order_by",
                "options",
                "where",
            ],
            _ => {
                return Err(StatementError::new(
                    procedure.pos,
                    format!("CALL {procedure} is not supported yet: lakescope runs sys.create_tag, sys.delete_tag, sys.rollback_to, sys.compact and sys.expire_snapshots"),
                ))
            }
        };
        let args = Args { args, params };
        let (table_text, table_pos) = args.required("table", procedure)?;
        let table_name = ObjectName {
            parts: table_text.split('.').map(str::to_string).collect(),
            pos: table_pos,
        };
        let target = self.resolve(&table_name).await?;
        target.refuse_non_main(&[], table_pos, &format!("CALL {procedure} on"))?;
        let table = self.paimon_table(&target, table_pos, "CALL on").await?;
        if target.service && name == "create_tag" {
            return self
                .create_service_tag(&target, &table, &args, procedure, pos)
                .await;
        }
        if target.service && name == "delete_tag" {
            return self
                .delete_service_tags(&target, &args, procedure, pos)
                .await;
        }
        target.refuse_service(table_pos, &format!("CALL {procedure} on"))?;
        let message = match name.as_str() {
            "create_tag" => {
                let (tag, _) = args.required("tag", procedure)?;
                let snapshot = match args.text("snapshot_id") {
                    Some((t, p)) => Some(number(&t, "snapshot_id", p)?),
                    None => None,
                };
                let retained = match args.text("time_retained") {
                    Some((t, p)) => Some(parse_duration(&t).map_err(|e| at(p, e))?),
                    None => None,
                };
                let created = create_tag(&table, &tag, snapshot, retained, self.env.as_ref())
                    .await
                    .map_err(|e| at(pos, e))?;
                format!(
                    "tag '{tag}' of {} at snapshot {}",
                    target.qualified(),
                    created.snapshot.id
                )
            }
            "delete_tag" => {
                let (tags, _) = args.required("tag", procedure)?;
                let mut deleted = Vec::new();
                for tag in tags.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                    if delete_tag(&table, tag)
                        .await
                        .map_err(|e| at(pos, e))?
                        .is_some()
                    {
                        deleted.push(tag.to_string());
                    }
                }
                format!(
                    "deleted tags of {}: [{}]",
                    target.qualified(),
                    deleted.join(", ")
                )
            }
            "compact" => {
                for unsupported in ["order_strategy", "order_by", "options", "where"] {
                    if let Some((_, p)) = args.text(unsupported) {
                        return Err(StatementError::new(
                            p,
                            format!("{procedure}: '{unsupported}' is not supported: lakescope runs full compactions of whole partitions (give 'partitions')"),
                        ));
                    }
                }
                let filters = match args.text("partitions") {
                    Some((spec, p)) => partition_filters(&table, &spec, p)?,
                    None => Vec::new(),
                };
                let options =
                    CommitOptions::for_table(&table, self.env.uuid()).map_err(|e| at(pos, e))?;
                match compact(&table, self.env.as_ref(), options, &filters)
                    .await
                    .map_err(|e| at(pos, e))?
                {
                    Some(done) => format!(
                        "compacted {}: snapshot {} (COMPACT)",
                        target.qualified(),
                        done.snapshot.id
                    ),
                    None => format!("{}: nothing to compact", target.qualified()),
                }
            }
            "expire_snapshots" => {
                if let Some((_, p)) = args.text("options") {
                    return Err(StatementError::new(
                        p,
                        format!("{procedure}: 'options' is not supported: set the table's snapshot.* options with ALTER TABLE, or give retain_max, retain_min, older_than, max_deletes"),
                    ));
                }
                let now = self.env.now_millis();
                let mut config = ExpireConfig::for_table(&table, now).map_err(|e| at(pos, e))?;
                for (name, field) in [
                    ("retain_max", &mut config.retain_max),
                    ("retain_min", &mut config.retain_min),
                    ("max_deletes", &mut config.max_deletes),
                ] {
                    if let Some((t, p)) = args.text(name) {
                        *field = number(&t, name, p)?;
                    }
                }
                if let Some((t, p)) = args.text("older_than") {
                    let zone = self.options.get(super::as_of::TIME_ZONE_OPTION);
                    config.older_than_millis =
                        super::as_of::local_millis(&t, zone.map(String::as_str))
                            .map_err(|e| StatementError::new(p, format!("older_than: {e}")))?;
                }
                let done = expire_snapshots(&table, &config)
                    .await
                    .map_err(|e| at(pos, e))?;
                format!(
                    "{}: expired {} snapshot(s) {:?}, deleted {} file(s)",
                    target.qualified(),
                    done.snapshots.len(),
                    done.snapshots,
                    done.files.len()
                )
            }
            _ => {
                let to = match (args.text("tag"), args.text("snapshot_id")) {
                    (Some((tag, _)), _) => RollbackTarget::Tag(tag),
                    (None, Some((id, p))) => {
                        RollbackTarget::Snapshot(number(&id, "snapshot_id", p)?)
                    }
                    (None, None) => {
                        return Err(StatementError::new(
                            procedure.pos,
                            format!("{procedure}: give 'tag' or 'snapshot_id'"),
                        ))
                    }
                };
                let done = rollback_to(&table, to).await.map_err(|e| at(pos, e))?;
                format!(
                    "{} rolled back to snapshot {} (removed snapshots {:?}, tags {:?})",
                    target.qualified(),
                    done.snapshot.id,
                    done.removed_snapshots,
                    done.removed_tags
                )
            }
        };
        Ok(Outcome::Done(format!("[INFO] {message}")))
    }
}
