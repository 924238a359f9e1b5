//! Avro name checks without regular expressions: apache-avro checks every name of a file's
//! schema with regexes it compiles on first use, a cost paid on the way to a table's first rows.
//!
//! The rules are the Avro specification's, exactly as apache-avro's default validators state
//! them: a name is `[A-Za-z_][A-Za-z0-9_]*`; a namespace is empty or names joined by dots; a
//! full name is an optional namespace and a dot, then a name.

use std::sync::Once;

use apache_avro::error::Details;
use apache_avro::validator::{
    set_enum_symbol_name_validator, set_record_field_name_validator, set_schema_name_validator,
    set_schema_namespace_validator, EnumSymbolNameValidator, RecordFieldNameValidator,
    SchemaNameValidator, SchemaNamespaceValidator,
};
use apache_avro::{AvroResult, Reader};

/// The specification's grammar, quoted in errors.
const NAME_RULE: &str = "[A-Za-z_][A-Za-z0-9_]*";
const NAMESPACE_RULE: &str = "empty, or [A-Za-z_][A-Za-z0-9_]* names joined by dots";
const FULL_NAME_RULE: &str = "an optional namespace and a dot, then [A-Za-z_][A-Za-z0-9_]*";

/// Whether `s` is an Avro name.
fn is_name(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether `s` is an Avro namespace.
fn is_namespace(s: &str) -> bool {
    s.is_empty() || s.split('.').all(is_name)
}

/// Where the name of full name `s` starts, if `s` is one.
fn name_start(s: &str) -> Option<usize> {
    match s.rfind('.') {
        Some(dot) => (is_namespace(&s[..dot]) && is_name(&s[dot + 1..])).then_some(dot + 1),
        None => is_name(s).then_some(0),
    }
}

/// The validators, for apache-avro's hooks.
struct SpecNames;

impl SchemaNameValidator for SpecNames {
    fn validate(&self, schema_name: &str) -> AvroResult<usize> {
        name_start(schema_name)
            .ok_or_else(|| Details::InvalidSchemaName(schema_name.into(), FULL_NAME_RULE).into())
    }
}

impl SchemaNamespaceValidator for SpecNames {
    fn validate(&self, namespace: &str) -> AvroResult<()> {
        if is_namespace(namespace) {
            Ok(())
        } else {
            Err(Details::InvalidNamespace(namespace.into(), NAMESPACE_RULE).into())
        }
    }
}

/// `Ok` if `s` is an Avro name, else the error `refused` makes of it and the rule.
fn check_name(s: &str, refused: fn(String) -> Details) -> AvroResult<()> {
    if is_name(s) {
        Ok(())
    } else {
        Err(refused(format!("{s} (must be {NAME_RULE})")).into())
    }
}

impl EnumSymbolNameValidator for SpecNames {
    fn validate(&self, symbol: &str) -> AvroResult<()> {
        check_name(symbol, Details::EnumSymbolName)
    }
}

impl RecordFieldNameValidator for SpecNames {
    fn validate(&self, field_name: &str) -> AvroResult<()> {
        check_name(field_name, Details::FieldName)
    }
}

/// Installs these checks in apache-avro, once per process. apache-avro takes validators only
/// before it parses its first schema; where one was parsed already, its own (equivalent)
/// validators stay.
fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = set_schema_name_validator(Box::new(SpecNames));
        let _ = set_schema_namespace_validator(Box::new(SpecNames));
        let _ = set_enum_symbol_name_validator(Box::new(SpecNames));
        let _ = set_record_field_name_validator(Box::new(SpecNames));
    });
}

/// An Avro object-container file reader (every reader of this workspace starts here).
pub fn reader<R: std::io::Read>(input: R) -> AvroResult<Reader<'static, R>> {
    install();
    Reader::new(input)
}

/// An Avro schema from its JSON (a container header's `avro.schema`), checked by these rules.
pub fn parse_schema(json: &[u8]) -> AvroResult<apache_avro::Schema> {
    install();
    apache_avro::Schema::parse_str(&String::from_utf8_lossy(json))
}

/// The error for an Avro file that cannot be opened: a compression codec apache-avro does not
/// decode is [`crate::Error::Unsupported`] naming the codec (`xz` and `bzip2` never reach it:
/// `read::avro_container` rewrites them first); anything else is corrupt.
pub fn open_error(file: &str, e: &apache_avro::Error) -> crate::Error {
    match e.details() {
        apache_avro::error::Details::CodecNotSupported(codec) => unknown_codec(file, codec),
        _ => crate::Error::corrupt(file, format!("invalid Avro file: {e}")),
    }
}

/// The error for Avro file `file` compressed with `codec`, which no reader here decodes.
pub fn unknown_codec(file: &str, codec: &str) -> crate::Error {
    crate::Error::unsupported(
        file,
        format!(
            "Avro compression codec '{codec}' (known: null, deflate, snappy, zstandard, xz, bzip2)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_lite::Regex;

    /// Every string over a small alphabet up to length 4: the cases a regex could split on.
    fn strings() -> Vec<String> {
        let alphabet = ['a', 'Z', '_', '0', '9', '.', '-', ' ', 'é'];
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    #[test]
    fn the_checks_accept_and_reject_exactly_what_the_specification_regexes_do() {
        // apache-avro 0.22's default patterns (validator.rs), compared case by case.
        let full = Regex::new(r"^((?P<namespace>([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)?)\.)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)$").unwrap();
        let namespace =
            Regex::new(r"^([A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*)?$").unwrap();
        let name = Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*$").unwrap();
        let cases = strings();
        assert!(cases.len() > 7000);
        for s in &cases {
            let expected = full.captures(s).map(|c| c.name("name").map(|m| m.start()));
            assert_eq!(name_start(s).map(Some), expected, "full name {s:?}");
            assert_eq!(is_namespace(s), namespace.is_match(s), "namespace {s:?}");
            assert_eq!(is_name(s), name.is_match(s), "name {s:?}");
        }
    }

    #[test]
    fn a_schema_with_a_bad_field_name_or_enum_symbol_is_refused_with_the_name() {
        install();
        let bad = r#"{"type": "record", "name": "r", "fields": [{"name": "a-b", "type": "int"}]}"#;
        let err = apache_avro::Schema::parse_str(bad).unwrap_err().to_string();
        assert!(err.contains("a-b"), "{err}");
        let bad_symbol = r#"{"type": "enum", "name": "e", "symbols": ["ok", "b-d"]}"#;
        let err = apache_avro::Schema::parse_str(bad_symbol)
            .unwrap_err()
            .to_string();
        assert!(err.contains("b-d"), "{err}");
        let good =
            r#"{"type": "record", "name": "org.x.r", "fields": [{"name": "_a1", "type": "int"}]}"#;
        assert!(apache_avro::Schema::parse_str(good).is_ok());
    }
}
