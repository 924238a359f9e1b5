ALTER TABLE primary_key_table SET ('ignore-delete' = 'true');  -- expect: ok
