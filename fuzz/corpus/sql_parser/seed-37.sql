INSERT INTO lf_paimon_catalog.paimon_db.paimon_table VALUES (1, 10, 'pv', '2024-01-01', '00'), (2, 20, 'buy', '2024-01-01', '01');  -- expect: ok
