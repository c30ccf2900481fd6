-- pgbench's built-in select-only script (pgbench -S) as a file, for comparing a custom
-- script with pgbench -f (scripts/pgbench-peer.sh --script=suites/pg/select-only.sql).
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
