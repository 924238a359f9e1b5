//! The typed statement AST of the Flink SQL dialect lakescope speaks.

use crate::error::Pos;
use lakescope_format::spec::types::DataType;
use sqlparser::ast as sp;

/// An identifier with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    /// The name (unquoted, case kept).
    pub name: String,
    /// Where it starts.
    pub pos: Pos,
}

/// A possibly qualified name: `t`, `db.t` or `catalog.db.t`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectName {
    /// One to three parts.
    pub parts: Vec<String>,
    /// Where the name starts.
    pub pos: Pos,
}

impl ObjectName {
    /// The last part (the object's own name).
    pub fn name(&self) -> &str {
        self.parts.last().map(String::as_str).unwrap_or("")
    }
}

impl std::fmt::Display for ObjectName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.parts.join("."))
    }
}

/// `'key' = 'value'` in WITH, SET, hints and static partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionEntry {
    /// The key.
    pub key: String,
    /// The value.
    pub value: String,
    /// Where the key is.
    pub key_pos: Pos,
    /// Where the value is.
    pub value_pos: Pos,
}

/// What a column holds.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnKind {
    /// A stored column.
    Physical(DataType),
    /// `name AS expr`.
    Computed {
        /// The expression.
        expr: Box<sp::Expr>,
        /// Its text.
        text: String,
    },
    /// `name type METADATA [FROM 'key'] [VIRTUAL]`.
    Metadata {
        /// The type.
        data_type: DataType,
        /// The metadata key, if not the column name.
        key: Option<String>,
        /// VIRTUAL: read-only.
        is_virtual: bool,
    },
}

/// A column definition.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    /// The column name.
    pub name: Ident,
    /// Physical, computed or metadata.
    pub kind: ColumnKind,
    /// Where the type starts (the name for computed columns).
    pub type_pos: Pos,
    /// COMMENT '...'.
    pub comment: Option<String>,
}

impl ColumnDef {
    /// The type of a physical or metadata column.
    pub fn data_type(&self) -> Option<&DataType> {
        match &self.kind {
            ColumnKind::Physical(t) | ColumnKind::Metadata { data_type: t, .. } => Some(t),
            ColumnKind::Computed { .. } => None,
        }
    }
}

/// `WATERMARK FOR col AS expr`.
#[derive(Debug, Clone, PartialEq)]
pub struct Watermark {
    /// The rowtime column.
    pub column: Ident,
    /// The watermark strategy expression.
    pub expr: sp::Expr,
    /// Its text.
    pub text: String,
    /// Where WATERMARK is.
    pub pos: Pos,
}

/// `[CONSTRAINT name] PRIMARY KEY (cols) NOT ENFORCED`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrimaryKey {
    /// Constraint name.
    pub name: Option<String>,
    /// Key columns.
    pub columns: Vec<Ident>,
    /// Whether NOT ENFORCED was written (Flink requires it).
    pub not_enforced: bool,
    /// Where PRIMARY is.
    pub pos: Pos,
}

/// An Iceberg partition transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// `years(c)`.
    Years,
    /// `months(c)`.
    Months,
    /// `days(c)`.
    Days,
    /// `hours(c)`.
    Hours,
    /// `bucket(n, c)`.
    Bucket(u32),
    /// `truncate(n, c)`.
    Truncate(u32),
}

/// One entry of PARTITIONED BY.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionField {
    /// The source column.
    pub column: Ident,
    /// A transform (Iceberg hidden partitioning), or none (identity).
    pub transform: Option<Transform>,
    /// Where the entry starts.
    pub pos: Pos,
}

/// INCLUDING / EXCLUDING / OVERWRITING in a LIKE clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LikeStrategy {
    /// INCLUDING.
    Including,
    /// EXCLUDING.
    Excluding,
    /// OVERWRITING.
    Overwriting,
}

/// `LIKE source [(INCLUDING|EXCLUDING|OVERWRITING ALL|OPTIONS|... , ...)]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LikeClause {
    /// The source table.
    pub source: ObjectName,
    /// Options as (strategy, feature in upper case: ALL, OPTIONS, PARTITIONS, ...).
    pub options: Vec<(LikeStrategy, String)>,
}

impl LikeClause {
    /// Whether the source's WITH options are excluded.
    pub fn excludes_options(&self) -> bool {
        self.options
            .iter()
            .any(|(s, f)| *s == LikeStrategy::Excluding && (f == "OPTIONS" || f == "ALL"))
    }
}

/// A referenced table in a query, with its hints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRef {
    /// The name as written (a system table keeps its `$suffix` in the last part).
    pub name: ObjectName,
    /// The system table (`snapshots` for `t$snapshots`), if any.
    pub system_table: Option<String>,
    /// `/*+ OPTIONS(...) */` written right after the name.
    pub hints: Vec<OptionEntry>,
    /// `FOR SYSTEM_TIME AS OF <expr>` (temporal table): the expression's text.
    pub as_of: Option<String>,
}

/// A query (SELECT, VALUES, WITH ...) with its text and table references.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryStatement {
    /// The query text.
    pub text: String,
    /// sqlparser's AST of it.
    pub query: Box<sp::Query>,
    /// Every table name the query reads, in order of appearance.
    pub tables: Vec<TableRef>,
}

/// CREATE TABLE.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateTable {
    /// CREATE TEMPORARY TABLE.
    pub temporary: bool,
    /// IF NOT EXISTS.
    pub if_not_exists: bool,
    /// The table name.
    pub name: ObjectName,
    /// Columns in order.
    pub columns: Vec<ColumnDef>,
    /// WATERMARK.
    pub watermark: Option<Watermark>,
    /// PRIMARY KEY (table or column level).
    pub primary_key: Option<PrimaryKey>,
    /// COMMENT '...'.
    pub comment: Option<String>,
    /// PARTITIONED BY.
    pub partitioned_by: Vec<PartitionField>,
    /// WITH (...).
    pub options: Vec<OptionEntry>,
    /// LIKE ...
    pub like: Option<LikeClause>,
    /// AS SELECT ...
    pub as_select: Option<QueryStatement>,
}

/// FIRST / AFTER col.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnPosition {
    /// FIRST.
    First,
    /// AFTER col.
    After(Ident),
}

/// A column in ALTER TABLE ADD / MODIFY, with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnChange {
    /// The column as it should be.
    pub column: ColumnDef,
    /// FIRST / AFTER.
    pub position: Option<ColumnPosition>,
}

/// The schema part of ALTER TABLE ADD / MODIFY.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SchemaChange {
    /// Columns.
    pub columns: Vec<ColumnChange>,
    /// WATERMARK.
    pub watermark: Option<Watermark>,
    /// PRIMARY KEY.
    pub primary_key: Option<PrimaryKey>,
}

/// What ALTER TABLE does.
#[derive(Debug, Clone, PartialEq)]
pub enum AlterAction {
    /// SET ('k' = 'v', ...).
    Set(Vec<OptionEntry>),
    /// RESET ('k', ...).
    Reset(Vec<(String, Pos)>),
    /// RENAME TO new.
    RenameTo(ObjectName),
    /// ADD col / ADD (cols, WATERMARK, PRIMARY KEY).
    Add(SchemaChange),
    /// MODIFY col / MODIFY (cols, WATERMARK, PRIMARY KEY).
    Modify(SchemaChange),
    /// RENAME a TO b.
    RenameColumn {
        /// Old name.
        from: Ident,
        /// New name.
        to: Ident,
    },
    /// DROP col / DROP (cols).
    DropColumns(Vec<Ident>),
    /// DROP WATERMARK.
    DropWatermark(Pos),
    /// DROP PRIMARY KEY.
    DropPrimaryKey(Pos),
    /// ADD PARTITION FIELD term (Spark's syntax for Iceberg partition-spec evolution).
    AddPartitionField(PartitionField),
    /// DROP PARTITION FIELD term: a transform term, or a partition field's name.
    DropPartitionField(PartitionField),
    /// DROP [IF EXISTS] PARTITION (k='v', ...) [, PARTITION (...)].
    DropPartitions {
        /// IF EXISTS.
        if_exists: bool,
        /// Each partition spec.
        partitions: Vec<Vec<OptionEntry>>,
    },
}

/// ALTER TABLE.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterTable {
    /// IF EXISTS.
    pub if_exists: bool,
    /// The table.
    pub name: ObjectName,
    /// The change.
    pub action: AlterAction,
}

/// The rows an INSERT writes.
#[derive(Debug, Clone, PartialEq)]
pub enum InsertSource {
    /// VALUES (...), (...).
    Values {
        /// The rows.
        rows: Vec<Vec<sp::Expr>>,
        /// The text of VALUES ...
        text: String,
    },
    /// A query.
    Select(QueryStatement),
}

/// INSERT INTO / INSERT OVERWRITE.
#[derive(Debug, Clone, PartialEq)]
pub struct Insert {
    /// OVERWRITE.
    pub overwrite: bool,
    /// The target table.
    pub table: ObjectName,
    /// `/*+ OPTIONS(...) */` after the table name.
    pub hints: Vec<OptionEntry>,
    /// PARTITION (k = 'v', ...): static partition values (values as text).
    pub partition: Vec<OptionEntry>,
    /// Column list.
    pub columns: Vec<Ident>,
    /// The rows.
    pub source: InsertSource,
}

/// UPDATE / DELETE, kept as sqlparser's AST.
#[derive(Debug, Clone, PartialEq)]
pub struct RowLevel {
    /// The target table.
    pub table: ObjectName,
    /// sqlparser's AST.
    pub ast: Box<sp::Statement>,
}

/// An argument of CALL.
#[derive(Debug, Clone, PartialEq)]
pub struct CallArg {
    /// `name =>`, for named arguments.
    pub name: Option<Ident>,
    /// The value.
    pub value: sp::Expr,
    /// The value's text.
    pub text: String,
    /// Where the value starts.
    pub pos: Pos,
}

/// CREATE DATABASE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateDatabase {
    /// IF NOT EXISTS.
    pub if_not_exists: bool,
    /// `db` or `catalog.db`.
    pub name: ObjectName,
    /// COMMENT.
    pub comment: Option<String>,
    /// WITH (...).
    pub options: Vec<OptionEntry>,
}

/// A Flink SQL statement.
// Statements are parsed once and moved rarely: variant size does not matter here.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// CREATE CATALOG name WITH (...).
    CreateCatalog {
        /// Catalog name.
        name: Ident,
        /// Options ('type', 'warehouse', ...).
        options: Vec<OptionEntry>,
    },
    /// USE CATALOG name.
    UseCatalog(Ident),
    /// SHOW CATALOGS.
    ShowCatalogs,
    /// SHOW CURRENT CATALOG.
    ShowCurrentCatalog,
    /// SHOW CURRENT DATABASE.
    ShowCurrentDatabase,
    /// CREATE DATABASE.
    CreateDatabase(CreateDatabase),
    /// DROP DATABASE.
    DropDatabase {
        /// IF EXISTS.
        if_exists: bool,
        /// The database.
        name: ObjectName,
        /// CASCADE.
        cascade: bool,
    },
    /// USE db.
    UseDatabase(ObjectName),
    /// SHOW DATABASES.
    ShowDatabases,
    /// SHOW TABLES [FROM|IN db].
    ShowTables(Option<ObjectName>),
    /// SHOW CREATE TABLE t.
    ShowCreateTable(ObjectName),
    /// DESCRIBE / DESC t.
    Describe(ObjectName),
    /// CREATE TABLE.
    CreateTable(Box<CreateTable>),
    /// ALTER TABLE.
    AlterTable(AlterTable),
    /// `DROP [TEMPORARY] TABLE`.
    DropTable {
        /// TEMPORARY.
        temporary: bool,
        /// IF EXISTS.
        if_exists: bool,
        /// The table.
        name: ObjectName,
    },
    /// INSERT.
    Insert(Box<Insert>),
    /// UPDATE.
    Update(RowLevel),
    /// DELETE.
    Delete(RowLevel),
    /// SELECT / VALUES / WITH.
    Query(QueryStatement),
    /// SET ['k' = 'v'] (without a key: show the session options).
    Set(Option<OptionEntry>),
    /// RESET ['k'].
    Reset(Option<(String, Pos)>),
    /// CALL procedure(args).
    Call {
        /// The procedure, e.g. `sys.create_tag`.
        procedure: ObjectName,
        /// Arguments.
        args: Vec<CallArg>,
    },
}

/// A parsed statement with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// Statement number in the script, from 1.
    pub number: usize,
    /// Where the statement starts.
    pub pos: Pos,
    /// Its text.
    pub text: String,
    /// Byte range in the script.
    pub byte_range: std::ops::Range<usize>,
    /// The statement, or why it does not parse.
    pub statement: crate::error::Result<Statement>,
}
