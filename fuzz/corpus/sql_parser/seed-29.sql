CREATE CATALOG lf_paimon_catalog WITH ('type' = 'paimon', 'warehouse' = '${WAREHOUSE}/lf');  -- expect: ok
