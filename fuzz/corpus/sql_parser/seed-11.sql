CREATE TABLE IF NOT EXISTS append_table (id BIGINT, name STRING, amount DECIMAL(10, 2), event_time TIMESTAMP(3), dt STRING) PARTITIONED BY (dt) WITH ('changelog-producer' = 'none');  -- expect: ok
