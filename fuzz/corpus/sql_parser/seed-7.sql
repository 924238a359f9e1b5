CREATE DATABASE IF NOT EXISTS test_db;  -- expect: ok
