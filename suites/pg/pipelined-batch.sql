-- A pipelined batch for suites/pg-scripts.toml (docs/pg.md, "Examples"): ten account
-- reads sent in one pipeline and answered together, as an application batching its
-- queries would. Pipelines need query_mode = "extended" or "prepared".
\set aid random(1, 100000 * :scale - 9)
\startpipeline
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 1;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 2;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 3;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 4;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 5;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 6;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 7;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 8;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 9;
\endpipeline
