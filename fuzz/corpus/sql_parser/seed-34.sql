CREATE TABLE lf_paimon_catalog.paimon_db.stats_none (id BIGINT, payload STRING) WITH ('metadata.stats-mode' = 'none');  -- expect: ok
