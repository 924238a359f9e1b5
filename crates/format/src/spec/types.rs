//! Paimon data types as written in `schema/schema-N` (`"DECIMAL(10, 2) NOT NULL"`, nested JSON objects).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{json, Value};
use std::fmt;

/// A field of a row type or of a table schema, identified by its id across schema versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataField {
    /// Field id: stable across renames and retypes, never reused.
    pub id: i32,
    /// Current name.
    pub name: String,
    /// Type with nullability.
    #[serde(rename = "type")]
    pub data_type: DataType,
    /// Column comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A Paimon type with its nullability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataType {
    /// Whether NULL is allowed.
    pub nullable: bool,
    /// What the values are.
    pub kind: TypeKind,
}

/// The kinds of Paimon types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeKind {
    /// BOOLEAN.
    Boolean,
    /// TINYINT: 8-bit signed integer.
    TinyInt,
    /// SMALLINT: 16-bit signed integer.
    SmallInt,
    /// INT: 32-bit signed integer.
    Int,
    /// BIGINT: 64-bit signed integer.
    BigInt,
    /// FLOAT: 32-bit IEEE 754.
    Float,
    /// DOUBLE: 64-bit IEEE 754.
    Double,
    /// DECIMAL(precision, scale).
    Decimal {
        /// Total number of digits (1 to 38).
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// CHAR(n): fixed-length string of n characters.
    Char(u32),
    /// VARCHAR(n); STRING is VARCHAR(2147483647).
    VarChar(u32),
    /// BINARY(n): fixed-length bytes.
    Binary(u32),
    /// VARBINARY(n); BYTES is VARBINARY(2147483647).
    VarBinary(u32),
    /// DATE: days since 1970-01-01.
    Date,
    /// TIME(p): time of day with p fractional second digits.
    Time(u8),
    /// TIMESTAMP(p) without time zone.
    Timestamp(u8),
    /// TIMESTAMP(p) WITH LOCAL TIME ZONE (TIMESTAMP_LTZ).
    LocalZonedTimestamp(u8),
    /// ARRAY<T>.
    Array(Box<DataType>),
    /// MULTISET<T>: stored as a map from element to its count.
    Multiset(Box<DataType>),
    /// MAP<K, V>.
    Map(Box<DataType>, Box<DataType>),
    /// ROW<...>: named, typed fields.
    Row(Vec<DataField>),
    /// VARIANT: semi-structured values (Parquet's variant encoding, plain or shredded).
    Variant,
    /// VECTOR<T, n>: exactly n elements of a numeric or boolean type, never null elements.
    Vector(Box<DataType>, u32),
    /// BLOB: large binary values Paimon stores in `.blob` files; read as references
    /// (see `read::blob`).
    Blob,
}

/// Length Paimon uses for STRING (VARCHAR) and BYTES (VARBINARY).
pub const MAX_LENGTH: u32 = i32::MAX as u32;

impl DataType {
    /// A nullable type of the given kind.
    pub fn nullable(kind: TypeKind) -> Self {
        Self {
            nullable: true,
            kind,
        }
    }

    /// The same type with another nullability.
    pub fn with_nullable(mut self, nullable: bool) -> Self {
        self.nullable = nullable;
        self
    }

    /// Parses the scalar form, e.g. `"TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL"`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let trimmed = text.trim();
        let upper = trimmed.to_ascii_uppercase();
        let (body, nullable) = if let Some(b) = upper.strip_suffix("NOT NULL") {
            (b.trim_end().to_string(), false)
        } else if let Some(b) = upper.strip_suffix(" NULL") {
            (b.trim_end().to_string(), true)
        } else {
            (upper, true)
        };
        let kind =
            parse_scalar_kind(&body).ok_or_else(|| format!("unknown Paimon type '{trimmed}'"))?;
        Ok(Self { nullable, kind })
    }

    /// Parses the JSON form of a type (a string, or an object for nested types).
    pub fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::String(s) => Self::parse(s),
            Value::Object(map) => {
                let type_name = map
                    .get("type")
                    .and_then(Value::as_str)
                    .ok_or_else(|| format!("nested type without \"type\": {value}"))?;
                let upper = type_name.trim().to_ascii_uppercase();
                let (head, not_null) = match upper.strip_suffix("NOT NULL") {
                    Some(h) => (h.trim().to_string(), true),
                    None => (upper.clone(), false),
                };
                let nullable =
                    !not_null && map.get("nullable").and_then(Value::as_bool).unwrap_or(true);
                let child = |key: &str| -> Result<Box<DataType>, String> {
                    let v = map
                        .get(key)
                        .ok_or_else(|| format!("{head} type without \"{key}\": {value}"))?;
                    Ok(Box::new(DataType::from_json(v)?))
                };
                let kind = match head.as_str() {
                    "ARRAY" => TypeKind::Array(child("element")?),
                    "MULTISET" => TypeKind::Multiset(child("element")?),
                    "MAP" => TypeKind::Map(child("key")?, child("value")?),
                    "VECTOR" => {
                        let length = map
                            .get("length")
                            .and_then(Value::as_u64)
                            .and_then(|n| u32::try_from(n).ok())
                            .ok_or_else(|| format!("VECTOR type without a length: {value}"))?;
                        vector(child("element")?, length)?
                    }
                    "ROW" => {
                        let fields = map
                            .get("fields")
                            .cloned()
                            .ok_or_else(|| format!("ROW type without \"fields\": {value}"))?;
                        TypeKind::Row(
                            serde_json::from_value(fields)
                                .map_err(|e| format!("ROW fields: {e}"))?,
                        )
                    }
                    other => parse_scalar_kind(other)
                        .ok_or_else(|| format!("unknown Paimon type '{type_name}'"))?,
                };
                Ok(Self { nullable, kind })
            }
            other => Err(format!("a type must be a string or an object, got {other}")),
        }
    }

    /// The JSON form Paimon writes (strings for scalar types, objects for nested ones).
    pub fn to_json(&self) -> Value {
        let suffix = if self.nullable { "" } else { " NOT NULL" };
        match &self.kind {
            TypeKind::Array(e) => json!({"type": format!("ARRAY{suffix}"), "element": e.to_json()}),
            TypeKind::Multiset(e) => {
                json!({"type": format!("MULTISET{suffix}"), "element": e.to_json()})
            }
            TypeKind::Map(k, v) => {
                json!({"type": format!("MAP{suffix}"), "key": k.to_json(), "value": v.to_json()})
            }
            TypeKind::Row(fields) => json!({"type": format!("ROW{suffix}"), "fields": fields}),
            TypeKind::Vector(e, n) => {
                json!({"type": format!("VECTOR{suffix}"), "element": e.to_json(),
                "length": n, "nullable": self.nullable})
            }
            _ => Value::String(self.to_string()),
        }
    }

    /// Whether values of this type are nested (array, map, multiset, row).
    pub fn is_nested(&self) -> bool {
        matches!(
            self.kind,
            TypeKind::Array(_) | TypeKind::Multiset(_) | TypeKind::Map(..) | TypeKind::Row(_)
        )
    }
}

/// A VECTOR of `length` elements of `element`, which must be BOOLEAN or a numeric type other
/// than DECIMAL (Paimon's `VectorType.isValidElementType`).
fn vector(element: Box<DataType>, length: u32) -> Result<TypeKind, String> {
    if length == 0 {
        return Err("VECTOR of length 0".into());
    }
    match element.kind {
        TypeKind::Boolean
        | TypeKind::TinyInt
        | TypeKind::SmallInt
        | TypeKind::Int
        | TypeKind::BigInt
        | TypeKind::Float
        | TypeKind::Double => Ok(TypeKind::Vector(element, length)),
        _ => Err(format!("VECTOR of {element}: not a vector element type")),
    }
}

fn parse_len(args: Option<&str>, default: u32) -> Option<u32> {
    match args {
        None => Some(default),
        Some(a) => a.trim().parse().ok(),
    }
}

fn parse_scalar_kind(body: &str) -> Option<TypeKind> {
    let body = body.trim();
    // VECTOR<T, n>, the text form (the JSON form is an object, see `DataType::from_json`).
    if let Some(args) = body
        .strip_prefix("VECTOR")
        .map(str::trim_start)
        .and_then(|b| b.strip_prefix('<'))
        .and_then(|b| b.strip_suffix('>'))
    {
        let (element, length) = args.rsplit_once(',')?;
        let element = DataType::parse(element).ok()?;
        return vector(Box::new(element), length.trim().parse().ok()?).ok();
    }
    // Split "NAME(args) REST" into name, args and the trailing words.
    let (name, args, rest) = match body.find('(') {
        Some(open) => {
            let close = body[open..].find(')')? + open;
            (
                body[..open].trim(),
                Some(&body[open + 1..close]),
                body[close + 1..].trim(),
            )
        }
        None => match body.find(' ') {
            Some(sp) => (&body[..sp], None, body[sp + 1..].trim()),
            None => (body, None, ""),
        },
    };
    let precision = |default: u8| -> Option<u8> {
        match args {
            None => Some(default),
            Some(a) => a.trim().parse().ok(),
        }
    };
    let kind = match (name, rest) {
        ("BOOLEAN", "") => TypeKind::Boolean,
        ("TINYINT", "") => TypeKind::TinyInt,
        ("SMALLINT", "") => TypeKind::SmallInt,
        ("INT" | "INTEGER", "") => TypeKind::Int,
        ("BIGINT", "") => TypeKind::BigInt,
        ("FLOAT", "") => TypeKind::Float,
        ("DOUBLE", "") | ("DOUBLE", "PRECISION") => TypeKind::Double,
        ("DECIMAL" | "DEC" | "NUMERIC", "") => {
            let (p, s) = match args {
                None => (10, 0),
                Some(a) => match a.split_once(',') {
                    Some((p, s)) => (p.trim().parse().ok()?, s.trim().parse().ok()?),
                    None => (a.trim().parse().ok()?, 0),
                },
            };
            TypeKind::Decimal {
                precision: p,
                scale: s,
            }
        }
        ("CHAR", "") => TypeKind::Char(parse_len(args, 1)?),
        ("VARCHAR", "") => TypeKind::VarChar(parse_len(args, 1)?),
        ("STRING", "") => TypeKind::VarChar(MAX_LENGTH),
        ("BINARY", "") => TypeKind::Binary(parse_len(args, 1)?),
        ("VARBINARY", "") => TypeKind::VarBinary(parse_len(args, 1)?),
        ("BYTES", "") => TypeKind::VarBinary(MAX_LENGTH),
        ("DATE", "") => TypeKind::Date,
        ("TIME", "") | ("TIME", "WITHOUT TIME ZONE") => TypeKind::Time(precision(0)?),
        ("TIMESTAMP", "") | ("TIMESTAMP", "WITHOUT TIME ZONE") => {
            TypeKind::Timestamp(precision(6)?)
        }
        ("TIMESTAMP", "WITH LOCAL TIME ZONE") | ("TIMESTAMP_LTZ", "") => {
            TypeKind::LocalZonedTimestamp(precision(6)?)
        }
        ("VARIANT", "") => TypeKind::Variant,
        ("BLOB", "") => TypeKind::Blob,
        _ => return None,
    };
    Some(kind)
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TypeKind::Boolean => write!(f, "BOOLEAN")?,
            TypeKind::TinyInt => write!(f, "TINYINT")?,
            TypeKind::SmallInt => write!(f, "SMALLINT")?,
            TypeKind::Int => write!(f, "INT")?,
            TypeKind::BigInt => write!(f, "BIGINT")?,
            TypeKind::Float => write!(f, "FLOAT")?,
            TypeKind::Double => write!(f, "DOUBLE")?,
            TypeKind::Decimal { precision, scale } => write!(f, "DECIMAL({precision}, {scale})")?,
            TypeKind::Char(n) => write!(f, "CHAR({n})")?,
            TypeKind::VarChar(MAX_LENGTH) => write!(f, "STRING")?,
            TypeKind::VarChar(n) => write!(f, "VARCHAR({n})")?,
            TypeKind::Binary(n) => write!(f, "BINARY({n})")?,
            TypeKind::VarBinary(MAX_LENGTH) => write!(f, "BYTES")?,
            TypeKind::VarBinary(n) => write!(f, "VARBINARY({n})")?,
            TypeKind::Date => write!(f, "DATE")?,
            TypeKind::Time(p) => write!(f, "TIME({p})")?,
            TypeKind::Timestamp(p) => write!(f, "TIMESTAMP({p})")?,
            TypeKind::LocalZonedTimestamp(p) => write!(f, "TIMESTAMP({p}) WITH LOCAL TIME ZONE")?,
            TypeKind::Array(e) => write!(f, "ARRAY<{e}>")?,
            TypeKind::Multiset(e) => write!(f, "MULTISET<{e}>")?,
            TypeKind::Map(k, v) => write!(f, "MAP<{k}, {v}>")?,
            TypeKind::Row(fields) => {
                write!(f, "ROW<")?;
                for (i, field) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "`{}` {}", field.name, field.data_type)?;
                }
                write!(f, ">")?;
            }
            TypeKind::Variant => write!(f, "VARIANT")?,
            TypeKind::Vector(e, n) => write!(f, "VECTOR<{e}, {n}>")?,
            TypeKind::Blob => write!(f, "BLOB")?,
        }
        if !self.nullable {
            write!(f, " NOT NULL")?;
        }
        Ok(())
    }
}

impl Serialize for DataType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for DataType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        DataType::from_json(&value).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_scalar_types() {
        let t = DataType::parse("TIMESTAMP(3) WITH LOCAL TIME ZONE NOT NULL").unwrap();
        assert_eq!(t.kind, TypeKind::LocalZonedTimestamp(3));
        assert!(!t.nullable);
        assert_eq!(
            DataType::parse("DECIMAL(10, 2)").unwrap().kind,
            TypeKind::Decimal {
                precision: 10,
                scale: 2
            }
        );
        assert_eq!(
            DataType::parse("TIMESTAMP_LTZ(6)").unwrap().kind,
            TypeKind::LocalZonedTimestamp(6)
        );
        assert_eq!(
            DataType::parse("STRING").unwrap().kind,
            TypeKind::VarChar(MAX_LENGTH)
        );
        assert_eq!(
            DataType::parse("TIMESTAMP").unwrap().kind,
            TypeKind::Timestamp(6)
        );
        assert!(DataType::parse("INTEGRAL").is_err());
        assert!(DataType::parse("DECIMAL(x, 2)").is_err());
    }

    #[test]
    fn nested_json_round_trips() {
        let v: Value = serde_json::from_str(
            r#"{"type":"MAP","key":"STRING NOT NULL","value":{"type":"ROW NOT NULL","fields":[{"id":3,"name":"a","type":"INT"}]}}"#,
        )
        .unwrap();
        let t = DataType::from_json(&v).unwrap();
        let TypeKind::Map(k, val) = &t.kind else {
            panic!("not a map: {t:?}")
        };
        assert!(!k.nullable);
        assert!(!val.nullable);
        assert_eq!(DataType::from_json(&t.to_json()).unwrap(), t);
        assert_eq!(t.to_string(), "MAP<STRING NOT NULL, ROW<`a` INT> NOT NULL>");
    }

    #[test]
    fn vectors_parse_in_text_and_json_forms() {
        let text = DataType::parse("VECTOR<FLOAT, 3> NOT NULL").unwrap();
        assert_eq!(
            text.kind,
            TypeKind::Vector(Box::new(DataType::nullable(TypeKind::Float)), 3)
        );
        assert!(!text.nullable);
        // pypaimon's JSON form.
        let v: Value = serde_json::from_str(
            r#"{"type":"VECTOR","element":"FLOAT","length":3,"nullable":false}"#,
        )
        .unwrap();
        let json = DataType::from_json(&v).unwrap();
        assert_eq!(json, text);
        assert_eq!(DataType::from_json(&json.to_json()).unwrap(), json);
        assert_eq!(json.to_string(), "VECTOR<FLOAT, 3> NOT NULL");
        assert!(DataType::parse("VECTOR<STRING, 3>").is_err());
        assert!(DataType::parse("VECTOR<INT, 0>").is_err());
        assert_eq!(DataType::parse("BLOB").unwrap().kind, TypeKind::Blob);
    }
}
