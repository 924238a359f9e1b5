ALTER TABLE primary_key_table SET ('bucket' = 'not-a-number');  -- expect: error
