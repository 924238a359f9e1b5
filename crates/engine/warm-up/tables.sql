-- The tiny tables the app reads once at start (crates/engine/src/warm_up.rs), written by
-- scripts/warm-up-tables.sh with `lakescope sql --warehouse`: a primary-key table of two
-- overlapping sorted runs and an append table, Parquet zstd, the column types most tables use,
-- enough rows (300) for zstd to compress their pages as it does real ones.
CREATE DATABASE warm_up;
USE warm_up;
CREATE TABLE merged (
  id BIGINT, n INT, x DOUBLE, s STRING, d DECIMAL(10, 2), ts TIMESTAMP(3), day DATE, b BOOLEAN,
  PRIMARY KEY (id) NOT ENFORCED
) WITH ('bucket' = '1', 'file.format' = 'parquet', 'file.compression' = 'zstd');
INSERT INTO merged SELECT i, CAST(i % 7 AS INT), i / 7.0, CONCAT('row ', CAST(i AS STRING), ' of the first run'),
  CAST(i / 4.0 AS DECIMAL(10, 2)), TIMESTAMP '2024-01-01 00:00:00', DATE '2024-01-01', i % 2 = 0
  FROM (SELECT a.i * 100 + b.i * 10 + c.i AS i FROM (VALUES (0), (1), (2)) AS a(i), (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS b(i),
    (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS c(i)) AS numbers WHERE i < 200;
INSERT INTO merged SELECT i, CAST(i % 5 AS INT), i / 3.0, CONCAT('row ', CAST(i AS STRING), ' of the second run'),
  CAST(i / 8.0 AS DECIMAL(10, 2)), TIMESTAMP '2024-02-01 12:00:00', DATE '2024-02-01', i % 3 = 0
  FROM (SELECT a.i * 100 + b.i * 10 + c.i AS i FROM (VALUES (0), (1), (2)) AS a(i), (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS b(i),
    (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS c(i)) AS numbers WHERE i >= 100;
CREATE TABLE appended (
  id BIGINT, n INT, x DOUBLE, s STRING, d DECIMAL(10, 2), ts TIMESTAMP(3), day DATE, b BOOLEAN
) WITH ('file.format' = 'parquet', 'file.compression' = 'zstd');
INSERT INTO appended SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE CAST(i AS INT) END, i / 7.0,
  CONCAT('city ', CAST(i % 13 AS STRING), ', comment ', CAST(i AS STRING)), CAST(i / 4.0 AS DECIMAL(10, 2)),
  TIMESTAMP '2024-01-01 00:00:00', DATE '2024-01-01', i % 2 = 0
  FROM (SELECT a.i * 100 + b.i * 10 + c.i AS i FROM (VALUES (0), (1), (2)) AS a(i), (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS b(i),
    (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9)) AS c(i)) AS numbers;
