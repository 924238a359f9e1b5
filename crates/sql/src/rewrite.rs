//! Query text for the query engine: table names replaced, and UPDATE/DELETE as the SELECTs they imply.

use crate::ast::{QueryStatement, RowLevel};
use crate::error::{Pos, Result, SqlError};
use crate::show::quote_ident;
use sqlparser::ast as sp;

/// Calls `f` on the name of every table a query reads, in the order of
/// [`QueryStatement::tables`] (CTE bodies first, then FROM clauses and joins, left to right).
pub(crate) fn for_each_table(q: &mut sp::Query, f: &mut dyn FnMut(&mut sp::ObjectName)) {
    if let Some(with) = &mut q.with {
        for cte in &mut with.cte_tables {
            for_each_table(&mut cte.query, f);
        }
    }
    set_expr(&mut q.body, f);
}

fn set_expr(e: &mut sp::SetExpr, f: &mut dyn FnMut(&mut sp::ObjectName)) {
    match e {
        sp::SetExpr::Select(s) => {
            for twj in &mut s.from {
                factor(&mut twj.relation, f);
                for j in &mut twj.joins {
                    factor(&mut j.relation, f);
                }
            }
        }
        sp::SetExpr::Query(q) => for_each_table(q, f),
        sp::SetExpr::SetOperation { left, right, .. } => {
            set_expr(left, f);
            set_expr(right, f);
        }
        _ => {}
    }
}

fn factor(t: &mut sp::TableFactor, f: &mut dyn FnMut(&mut sp::ObjectName)) {
    match t {
        sp::TableFactor::Table { name, .. } => f(name),
        sp::TableFactor::Derived { subquery, .. } => for_each_table(subquery, f),
        sp::TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            factor(&mut table_with_joins.relation, f);
            for j in &mut table_with_joins.joins {
                factor(&mut j.relation, f);
            }
        }
        _ => {}
    }
}

/// The query's text with the i-th table of [`QueryStatement::tables`] renamed to `names[i]`
/// (`None` keeps the name, e.g. for a CTE). Hints and comments are dropped.
pub fn query_with_tables(q: &QueryStatement, names: &[Option<String>]) -> String {
    let mut query = (*q.query).clone();
    let mut i = 0;
    for_each_table(&mut query, &mut |name| {
        // names that are not plain identifiers are not in `tables` either
        if name.0.is_empty() || name.0.iter().any(|p| p.as_ident().is_none()) {
            return;
        }
        if let Some(Some(new)) = names.get(i) {
            *name = sp::ObjectName::from(vec![sp::Ident::with_quote('"', new.as_str())]);
        }
        i += 1;
    });
    query.to_string()
}

/// The names of the query's common table expressions (`WITH x AS (...)`), at any depth.
pub fn cte_names(q: &QueryStatement) -> Vec<String> {
    fn walk(q: &sp::Query, out: &mut Vec<String>) {
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                out.push(cte.alias.name.value.clone());
                walk(&cte.query, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(&q.query, &mut out);
    out
}

/// What an UPDATE or DELETE changes: the rows matching `filter`, with `assignments` applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowLevelChange {
    /// The WHERE condition's text (`None`: every row).
    pub filter: Option<String>,
    /// `SET column = expression` pairs (expression text); empty for DELETE.
    pub assignments: Vec<(String, String)>,
}

impl RowLevelChange {
    /// The select list that applies the assignments to `columns` (the others pass through),
    /// each output named as its column.
    pub fn updated_columns<'a>(&self, columns: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        columns
            .into_iter()
            .map(
                |name| match self.assignments.iter().find(|(c, _)| c == name) {
                    Some((_, expr)) => format!("({expr}) AS {}", quote_ident(name)),
                    None => quote_ident(name),
                },
            )
            .collect()
    }
}

/// The change an UPDATE / DELETE statement describes; `pos` is where it starts.
pub fn row_level_change(stmt: &RowLevel, pos: Pos) -> Result<RowLevelChange> {
    match stmt.ast.as_ref() {
        sp::Statement::Update(u) => {
            if u.from.is_some() || !u.table.joins.is_empty() {
                return Err(SqlError::unsupported(
                    pos,
                    "UPDATE ... FROM / with joins is not supported; update one table",
                ));
            }
            let mut assignments = Vec::new();
            for a in &u.assignments {
                let sp::AssignmentTarget::ColumnName(name) = &a.target else {
                    return Err(SqlError::unsupported(
                        pos,
                        "UPDATE SET (a, b) = ... is not supported; assign columns one by one",
                    ));
                };
                let column = name
                    .0
                    .last()
                    .and_then(|p| p.as_ident())
                    .map(|i| i.value.clone())
                    .unwrap_or_default();
                assignments.push((column, a.value.to_string()));
            }
            Ok(RowLevelChange {
                filter: u.selection.as_ref().map(ToString::to_string),
                assignments,
            })
        }
        sp::Statement::Delete(d) => {
            if d.using.is_some() || d.tables.len() > 1 {
                return Err(SqlError::unsupported(
                    pos,
                    "DELETE ... USING / of several tables is not supported; delete from one table",
                ));
            }
            Ok(RowLevelChange {
                filter: d.selection.as_ref().map(ToString::to_string),
                assignments: Vec::new(),
            })
        }
        _ => Err(SqlError::unsupported(
            pos,
            "expected UPDATE or DELETE".to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_statement, Statement};

    fn query(sql: &str) -> QueryStatement {
        match parse_statement(sql).unwrap() {
            Statement::Query(q) => q,
            other => panic!("not a query: {other:?}"),
        }
    }

    #[test]
    fn renames_tables_in_collection_order() {
        let q = query(
            "WITH c AS (SELECT * FROM db.a) SELECT * FROM c JOIN `b$snapshots` /*+ OPTIONS('scan.snapshot-id'='1') */ ON true",
        );
        let names: Vec<String> = q.tables.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, vec!["db.a", "c", "b$snapshots"]);
        let sql = query_with_tables(&q, &[Some("t0".into()), None, Some("t2".into())]);
        assert_eq!(
            sql,
            "WITH c AS (SELECT * FROM \"t0\") SELECT * FROM c JOIN \"t2\" ON true"
        );
        assert_eq!(cte_names(&q), vec!["c"]);
    }

    #[test]
    fn update_and_delete_as_changes() {
        let Statement::Update(u) =
            parse_statement("UPDATE t SET item_id = 4, behavior = 'pv' WHERE user_id = 3").unwrap()
        else {
            panic!("not an update")
        };
        let change = row_level_change(&u, Pos::new(1, 1)).unwrap();
        assert_eq!(change.filter.as_deref(), Some("user_id = 3"));
        assert_eq!(
            change.assignments,
            vec![
                ("item_id".to_string(), "4".to_string()),
                ("behavior".to_string(), "'pv'".to_string())
            ]
        );
        assert_eq!(
            change.updated_columns(["user_id", "item_id", "behavior"]),
            vec!["`user_id`", "(4) AS `item_id`", "('pv') AS `behavior`"]
        );
        let Statement::Delete(d) = parse_statement("DELETE FROM t").unwrap() else {
            panic!("not a delete")
        };
        let change = row_level_change(&d, Pos::new(1, 1)).unwrap();
        assert_eq!(change.filter, None);
        assert!(change.assignments.is_empty());
    }
}
