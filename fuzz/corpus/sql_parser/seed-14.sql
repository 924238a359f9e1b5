CREATE TABLE bad_pk_partitioned (word STRING, dt STRING, PRIMARY KEY (word) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '4');  -- expect: error
