ALTER TABLE primary_key_table SET ('merge-engine' = 'no-such-engine');  -- expect: error
