INSERT INTO lf_paimon_catalog.paimon_db.with_default (id) VALUES (7);  -- expect: ok
