ALTER TABLE primary_key_table SET ('record-level.expire-time' = '30 d', 'record-level.time-field' = 'cnt');  -- expect: ok
