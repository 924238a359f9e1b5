//! Fuzz target: splitting, parsing and validating arbitrary UTF-8 as a Flink SQL script never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for p in lakescope_sql::parse_script(text) {
            if let Ok(stmt) = &p.statement {
                let _ = lakescope_sql::validate(stmt, &lakescope_sql::ValidationContext::default());
                if let lakescope_sql::Statement::CreateTable(t) = stmt {
                    if let Ok(schema) = lakescope_sql::create_table_schema(t) {
                        let ddl = lakescope_sql::show_create_table(&["t"], &schema);
                        let _ = lakescope_sql::parse_statement(&ddl);
                    }
                }
            }
        }
        let _ = lakescope_sql::parse_data_type(text);
    }
});
