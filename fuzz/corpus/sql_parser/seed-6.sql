SHOW CURRENT CATALOG;  -- expect: ok
