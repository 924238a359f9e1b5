CREATE CATALOG paimon_catalog WITH ('type' = 'paimon', 'warehouse' = '${WAREHOUSE}/paimon');  -- expect: ok
