USE test_db;  -- expect: ok
