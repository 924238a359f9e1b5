CREATE TABLE lf_paimon_catalog.paimon_db.paimon_table (user_id BIGINT, item_id BIGINT, behavior STRING, dt STRING, hh STRING, PRIMARY KEY (dt, hh, user_id) NOT ENFORCED);  -- expect: ok
