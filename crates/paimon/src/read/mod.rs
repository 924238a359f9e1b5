//! Reading data files (Parquet, ORC, Avro) into Arrow record batches, evolved to a read schema.
