INSERT INTO paimon_append_sink SELECT id, name, amount, event_time, DATE_FORMAT(event_time, 'yyyy-MM-dd') AS dt FROM kafka_source;  -- expect: error
