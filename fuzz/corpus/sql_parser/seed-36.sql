CREATE TABLE lf_paimon_catalog.paimon_db.bad_default (id BIGINT, status STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('fields.id.default-value' = '0');  -- expect: error
