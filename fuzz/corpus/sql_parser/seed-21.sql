ALTER TABLE primary_key_partitioned SET ('num-sorted-run.stop-trigger' = '2147483647', 'sort-spill-threshold' = '5', 'changelog-producer.lookup-wait' = 'false');  -- expect: ok
