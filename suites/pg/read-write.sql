-- A read-write mix for suites/pg-scripts.toml (docs/pg.md, "Examples"): read a popular
-- account's balance into :abalance with \gset, then move up to 100 of it (or add up to
-- 100 to an empty one) through its teller and branch, recorded in the history as
-- pgbench's TPC-B-like script records it, so the balances stay consistent.
\set aid random_zipfian(1, 100000 * :scale, 1.07)
\set tid random(1, 10 * :scale)
\set bid random(1, 1 * :scale)
BEGIN;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid \gset
\set delta CASE WHEN :abalance > 0 THEN -least(:abalance, 100) ELSE random(1, 100) END
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
