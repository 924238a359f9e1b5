CREATE TABLE lf_paimon_catalog.paimon_db.paimon_table_as AS SELECT * FROM lf_paimon_catalog.paimon_db.paimon_table;  -- expect: ok
