-- One account read, the popular accounts far more often (zipfian, s = 1.07), for
-- suites/pg-scripts.toml (docs/pg.md, "Your own scripts").
\set aid random_zipfian(1, 100000 * :scale, 1.07)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
