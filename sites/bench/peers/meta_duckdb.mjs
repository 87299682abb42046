// The DuckDB query a researcher would run instead of evalbook for the
// 1 GB benchmark study (sites/bench/metagen): per dataset and metric, the
// paired differences treat − ctrl over the units and their mean, standard
// deviation and count, with each arm's mean and standard deviation (what
// the meta-analyses' effect sizes are computed from), printed as CSV.
//
// It is the peer `make bench-1g` times evalbook against on the same file
// (units.parquet or units.csv). DuckDB comes from npm (@duckdb/node-api),
// installed outside the repository; DUCKDB_NODE_DIR names the folder
// holding its node_modules.
//
// Usage: DUCKDB_NODE_DIR=DIR node meta_duckdb.mjs FILE
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.DUCKDB_NODE_DIR || '.', 'node_modules') + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

const file = process.argv[2];
if (!file) {
  console.error('usage: DUCKDB_NODE_DIR=DIR node meta_duckdb.mjs FILE');
  process.exit(2);
}
const src = file.endsWith('.parquet') ? `read_parquet('${file}')` : `read_csv('${file}')`;
const sql = `
WITH pairs AS (
  SELECT dataset, metric, unit,
         max(value) FILTER (WHERE method = 'treat') AS t,
         max(value) FILTER (WHERE method = 'ctrl')  AS c
  FROM ${src}
  GROUP BY dataset, metric, unit
)
SELECT dataset, metric, count(t - c) AS n,
       avg(t - c) AS mean_diff, stddev_samp(t - c) AS sd_diff,
       avg(t) AS mean_t, stddev_samp(t) AS sd_t, avg(c) AS mean_c, stddev_samp(c) AS sd_c
FROM pairs
GROUP BY dataset, metric
ORDER BY dataset, metric`;

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
const reader = await conn.runAndReadAll(sql);
console.log('dataset,metric,n,mean_diff,sd_diff,mean_t,sd_t,mean_c,sd_c');
for (const r of reader.getRows()) {
  console.log(r.map(String).join(','));
}
