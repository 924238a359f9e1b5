CREATE TABLE lf_paimon_catalog.paimon_db.with_default (id BIGINT, status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('fields.status.default-value' = 'new');  -- expect: ok
