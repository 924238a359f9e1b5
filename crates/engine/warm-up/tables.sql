-- The tiny tables the app reads once at start (crates/engine/src/warm_up.rs), written by
-- scripts/warm-up-tables.sh with `lakescope sql --warehouse`: a primary-key table of two
-- overlapping sorted runs and an append table, Parquet zstd, the column types most tables use.
CREATE DATABASE warm_up;
USE warm_up;
CREATE TABLE merged (
  id BIGINT, n INT, x DOUBLE, s STRING, d DECIMAL(10, 2), ts TIMESTAMP(3), day DATE, b BOOLEAN,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('bucket' = '1', 'file.format' = 'parquet', 'file.compression' = 'zstd');
INSERT INTO merged VALUES
  (1, 1, 0.5, 'a', 1.25, TIMESTAMP '2024-01-01 00:00:00', DATE '2024-01-01', true),
  (2, 2, 1.5, 'b', 2.50, TIMESTAMP '2024-01-02 00:00:00', DATE '2024-01-02', false),
  (3, 3, 2.5, 'c', 3.75, TIMESTAMP '2024-01-03 00:00:00', DATE '2024-01-03', true);
INSERT INTO merged VALUES
  (2, 20, 10.5, 'bb', 20.50, TIMESTAMP '2024-02-02 00:00:00', DATE '2024-02-02', true),
  (4, 4, 3.5, 'd', 4.00, TIMESTAMP '2024-01-04 00:00:00', DATE '2024-01-04', false);
CREATE TABLE appended (
  id BIGINT, n INT, x DOUBLE, s STRING, d DECIMAL(10, 2), ts TIMESTAMP(3), day DATE, b BOOLEAN
) WITH ('file.format' = 'parquet', 'file.compression' = 'zstd');
INSERT INTO appended VALUES
  (1, 1, 0.5, 'a', 1.25, TIMESTAMP '2024-01-01 00:00:00', DATE '2024-01-01', true),
  (2, NULL, 1.5, 'b', NULL, TIMESTAMP '2024-01-02 00:00:00', DATE '2024-01-02', false);
