INSERT INTO lf_paimon_catalog.paimon_db.paimon_table_p SELECT * FROM lf_paimon_catalog.paimon_db.paimon_table;  -- expect: ok
