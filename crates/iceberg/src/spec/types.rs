//! Iceberg schemas and types as written in table metadata JSON (`"decimal(9, 2)"`, nested objects).

use serde::de::Error as _;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A table schema: a struct with a schema id.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Schema {
    /// `schema-id`: the schema's id, which `current-schema-id` and snapshots refer to (v1
    /// metadata may omit it: 0).
    #[serde(default)]
    pub schema_id: i32,
    /// `identifier-field-ids`: the field ids whose values identify a row (the primary key of an
    /// upsert table); empty when the table has none.
    #[serde(default)]
    pub identifier_field_ids: Vec<i32>,
    /// `fields`: the top-level columns, in order.
    pub fields: Vec<NestedField>,
}

impl Schema {
    /// The top-level field with this id.
    pub fn field(&self, id: i32) -> Option<&NestedField> {
        self.fields.iter().find(|f| f.id == id)
    }

    /// A field with this id anywhere in the schema (inside structs, lists and maps too).
    pub fn find_field(&self, id: i32) -> Option<&NestedField> {
        fn walk(fields: &[NestedField], id: i32) -> Option<&NestedField> {
            fields.iter().find_map(|f| {
                if f.id == id {
                    return Some(f);
                }
                match &f.field_type {
                    Type::Struct(children) => walk(children, id),
                    _ => None,
                }
            })
        }
        walk(&self.fields, id)
    }
}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Schema", 4)?;
        st.serialize_field("type", "struct")?;
        st.serialize_field("schema-id", &self.schema_id)?;
        st.serialize_field("identifier-field-ids", &self.identifier_field_ids)?;
        st.serialize_field("fields", &self.fields)?;
        st.end()
    }
}

/// A field of a struct, identified by its id across schema versions.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct NestedField {
    /// `id`: the field id, unique in the table and stable across renames and type promotions;
    /// data files name columns by it.
    pub id: i32,
    /// `name`: the field's current name.
    pub name: String,
    /// `required`: whether the field is non-null (`false`: optional).
    #[serde(default)]
    pub required: bool,
    /// `type`: the field's type.
    #[serde(rename = "type")]
    pub field_type: Type,
    /// `doc`: the field's comment, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// `initial-default` (v3): the value of rows in data files written before the field existed
    /// (JSON single-value serialisation; `None`: null). Decoded by [`crate::defaults`].
    #[serde(
        rename = "initial-default",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub initial_default: Option<Value>,
    /// `write-default` (v3): the value writers use when a write does not supply the field.
    #[serde(
        rename = "write-default",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub write_default: Option<Value>,
}

/// An Iceberg type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    /// `boolean`: true or false.
    Boolean,
    /// `int`: a 32-bit signed integer.
    Int,
    /// `long`: a 64-bit signed integer (an `int` column may be promoted to it).
    Long,
    /// `float`: a 32-bit IEEE 754 floating point number.
    Float,
    /// `double`: a 64-bit IEEE 754 floating point number (a `float` column may be promoted to it).
    Double,
    /// `decimal(P, S)`: a fixed-point decimal number.
    Decimal {
        /// `P`: the number of decimal digits in all, 1 to 38.
        precision: u8,
        /// `S`: how many of those digits follow the decimal point (at most `P`).
        scale: u8,
    },
    /// `date`: a calendar date without time or zone, stored as days since 1970-01-01.
    Date,
    /// `time`: a time of day without date or zone, in microseconds since midnight.
    Time,
    /// `timestamp`: a date and time without zone (local date-time), in microseconds since
    /// 1970-01-01T00:00.
    Timestamp,
    /// `timestamptz`: an instant, stored as microseconds since 1970-01-01T00:00Z (UTC); the zone
    /// it was written in is not kept.
    Timestamptz,
    /// `timestamp_ns` (v3): like `timestamp`, in nanoseconds.
    TimestampNs,
    /// `timestamptz_ns` (v3): like `timestamptz`, in nanoseconds.
    TimestamptzNs,
    /// `string`: UTF-8 text of any length.
    String,
    /// `uuid`: a universally unique identifier, 16 bytes.
    Uuid,
    /// `fixed[L]`: a byte array of exactly `L` bytes (the number).
    Fixed(u32),
    /// `binary`: a byte array of any length.
    Binary,
    /// `struct`: a tuple of named, typed fields, each with its own field id (the `fields` of the
    /// JSON object).
    Struct(Vec<NestedField>),
    /// `list`: a list of values of one type.
    List {
        /// `element-id`: the field id of the list's elements.
        element_id: i32,
        /// `element`: the elements' type.
        element: Box<Type>,
        /// `element-required`: whether elements are non-null.
        element_required: bool,
    },
    /// `map`: key/value pairs; keys are never null.
    Map {
        /// `key-id`: the field id of the keys.
        key_id: i32,
        /// `key`: the keys' type.
        key: Box<Type>,
        /// `value-id`: the field id of the values.
        value_id: i32,
        /// `value`: the values' type.
        value: Box<Type>,
        /// `value-required`: whether values are non-null.
        value_required: bool,
    },
    /// v3 `variant`, `geometry`, `unknown` and other types this reader does not decode.
    Other(std::string::String),
}

impl Eq for NestedField {}

impl Type {
    /// Calls `visit` on every struct field inside this type, at any depth (in structs, list
    /// elements and map keys and values), each field before the fields inside it.
    pub fn visit_fields<'a>(&'a self, visit: &mut impl FnMut(&'a NestedField)) {
        match self {
            Type::Struct(fields) => {
                for f in fields {
                    visit(f);
                    f.field_type.visit_fields(visit);
                }
            }
            Type::List { element, .. } => element.visit_fields(visit),
            Type::Map { key, value, .. } => {
                key.visit_fields(visit);
                value.visit_fields(visit);
            }
            _ => {}
        }
    }

    /// Parses a type from its JSON form (a string for primitives, an object for nested types).
    pub fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::String(s) => Self::parse_primitive(s),
            Value::Object(obj) => {
                let kind = obj.get("type").and_then(Value::as_str).unwrap_or_default();
                let int = |k: &str| -> Result<i32, String> {
                    obj.get(k)
                        .and_then(Value::as_i64)
                        .and_then(|v| i32::try_from(v).ok())
                        .ok_or_else(|| format!("{kind} type without integer '{k}'"))
                };
                let boolean = |k: &str| obj.get(k).and_then(Value::as_bool).unwrap_or(false);
                let sub = |k: &str| -> Result<Box<Type>, String> {
                    let v = obj
                        .get(k)
                        .ok_or_else(|| format!("{kind} type without '{k}'"))?;
                    Ok(Box::new(Type::from_json(v)?))
                };
                match kind {
                    "struct" => {
                        let fields = obj
                            .get("fields")
                            .cloned()
                            .ok_or("struct type without 'fields'")?;
                        let fields: Vec<NestedField> =
                            serde_json::from_value(fields).map_err(|e| e.to_string())?;
                        Ok(Type::Struct(fields))
                    }
                    "list" => Ok(Type::List {
                        element_id: int("element-id")?,
                        element: sub("element")?,
                        element_required: boolean("element-required"),
                    }),
                    "map" => Ok(Type::Map {
                        key_id: int("key-id")?,
                        key: sub("key")?,
                        value_id: int("value-id")?,
                        value: sub("value")?,
                        value_required: boolean("value-required"),
                    }),
                    other => Err(format!("unknown nested type '{other}'")),
                }
            }
            other => Err(format!("not a type: {other}")),
        }
    }

    /// Parses a primitive type name (`long`, `decimal(9,2)`, `fixed[16]`, ...).
    pub fn parse_primitive(text: &str) -> Result<Self, String> {
        let t = text.trim().to_ascii_lowercase();
        Ok(match t.as_str() {
            "boolean" => Type::Boolean,
            "int" => Type::Int,
            "long" => Type::Long,
            "float" => Type::Float,
            "double" => Type::Double,
            "date" => Type::Date,
            "time" => Type::Time,
            "timestamp" => Type::Timestamp,
            "timestamptz" => Type::Timestamptz,
            "timestamp_ns" => Type::TimestampNs,
            "timestamptz_ns" => Type::TimestamptzNs,
            "string" => Type::String,
            "uuid" => Type::Uuid,
            "binary" => Type::Binary,
            _ => {
                if let Some(args) = t.strip_prefix("decimal(").and_then(|r| r.strip_suffix(')')) {
                    let (p, s) = args
                        .split_once(',')
                        .ok_or_else(|| format!("bad decimal type '{text}'"))?;
                    let p: u8 = p
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad precision in '{text}'"))?;
                    let s: u8 = s
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad scale in '{text}'"))?;
                    if p == 0 || p > 38 || s > p {
                        return Err(format!("unsupported decimal '{text}'"));
                    }
                    Type::Decimal {
                        precision: p,
                        scale: s,
                    }
                } else if let Some(n) = t.strip_prefix("fixed[").and_then(|r| r.strip_suffix(']')) {
                    Type::Fixed(
                        n.trim()
                            .parse()
                            .map_err(|_| format!("bad fixed type '{text}'"))?,
                    )
                } else {
                    Type::Other(t)
                }
            }
        })
    }

    /// The JSON form written in table metadata (inverse of [`Type::from_json`]).
    pub fn to_json(&self) -> Value {
        use serde_json::json;
        let text = |t: &str| Value::String(t.to_string());
        match self {
            Type::Boolean => text("boolean"),
            Type::Int => text("int"),
            Type::Long => text("long"),
            Type::Float => text("float"),
            Type::Double => text("double"),
            Type::Decimal { precision, scale } => text(&format!("decimal({precision}, {scale})")),
            Type::Date => text("date"),
            Type::Time => text("time"),
            Type::Timestamp => text("timestamp"),
            Type::Timestamptz => text("timestamptz"),
            Type::TimestampNs => text("timestamp_ns"),
            Type::TimestamptzNs => text("timestamptz_ns"),
            Type::String => text("string"),
            Type::Uuid => text("uuid"),
            Type::Fixed(n) => text(&format!("fixed[{n}]")),
            Type::Binary => text("binary"),
            Type::Struct(fields) => json!({"type": "struct", "fields": fields}),
            Type::List {
                element_id,
                element,
                element_required,
            } => json!({"type": "list", "element-id": element_id, "element": element.to_json(),
                "element-required": element_required}),
            Type::Map {
                key_id,
                key,
                value_id,
                value,
                value_required,
            } => json!({"type": "map", "key-id": key_id, "key": key.to_json(),
                "value-id": value_id, "value": value.to_json(), "value-required": value_required}),
            Type::Other(name) => text(name),
        }
    }

    /// Whether this is a struct, list or map.
    pub fn is_nested(&self) -> bool {
        matches!(self, Type::Struct(_) | Type::List { .. } | Type::Map { .. })
    }
}

impl Serialize for Type {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Type {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Type::from_json(&v).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_primitives_and_nested() {
        assert_eq!(
            Type::parse_primitive("decimal(38, 10)"),
            Ok(Type::Decimal {
                precision: 38,
                scale: 10
            })
        );
        assert_eq!(Type::parse_primitive("fixed[4]"), Ok(Type::Fixed(4)));
        assert!(Type::parse_primitive("decimal(x)").is_err());
        let t = Type::from_json(&json!({"type":"map","key-id":19,"key":"string","value-id":20,"value":"long","value-required":false})).unwrap();
        assert!(matches!(
            t,
            Type::Map {
                key_id: 19,
                value_id: 20,
                ..
            }
        ));
        let s: Schema = serde_json::from_value(json!({"type":"struct","schema-id":3,"fields":[
            {"id":1,"name":"a","required":true,"type":"int"},
            {"id":2,"name":"st","required":false,"type":{"type":"struct","fields":[{"id":3,"name":"x","required":false,"type":"long"}]}}
        ]}))
        .unwrap();
        assert_eq!(s.schema_id, 3);
        assert_eq!(s.find_field(3).map(|f| f.name.as_str()), Some("x"));
        assert!(Type::from_json(&json!({"type":"list"})).is_err());
        // Writing and re-reading gives the same schema.
        let again: Schema = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!(again, s);
        assert_eq!(serde_json::to_value(&s).unwrap()["type"], "struct");
        assert_eq!(Type::from_json(&t.to_json()), Ok(t));
    }
}
