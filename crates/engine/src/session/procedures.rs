//! CALL sys.* procedures: tags and rollback (Paimon's `create_tag`, `delete_tag`, `rollback_to`).

use super::{at, Outcome, Session, StatementError, StatementResult};
use lakescope_paimon::commit::tags::{
    create_tag, delete_tag, parse_duration, rollback_to, RollbackTarget,
};
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
            _ => {
                return Err(StatementError::new(
                    procedure.pos,
                    format!("CALL {procedure} is not supported yet: lakescope runs sys.create_tag, sys.delete_tag and sys.rollback_to"),
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
        let table = self.paimon_table(&target, table_pos, "CALL on").await?;
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
