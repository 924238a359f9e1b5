ALTER TABLE append_table SET ('snapshot.time-retained' = '3 d', 'snapshot.expire.execution-mode' = 'async');  -- expect: ok
