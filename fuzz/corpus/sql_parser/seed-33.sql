CREATE TABLE lf_paimon_catalog.paimon_db.stats_full (id BIGINT, payload STRING, note STRING) WITH ('metadata.stats-mode' = 'full', 'fields.note.stats-mode' = 'none');  -- expect: ok
