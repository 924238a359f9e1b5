USE CATALOG paimon_catalog;  -- expect: ok
