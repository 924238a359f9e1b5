SHOW CATALOGS;  -- expect: ok
