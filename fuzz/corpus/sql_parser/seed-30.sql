CREATE DATABASE IF NOT EXISTS lf_paimon_catalog.paimon_db;  -- expect: ok
