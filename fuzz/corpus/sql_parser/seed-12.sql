CREATE TABLE IF NOT EXISTS primary_key_table (word STRING, cnt BIGINT, PRIMARY KEY (word) NOT ENFORCED) WITH ('bucket' = '4', 'changelog-producer' = 'input');  -- expect: ok
