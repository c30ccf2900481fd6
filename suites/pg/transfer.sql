-- Transfers between a few accounts under REPEATABLE READ, for suites/pg-scripts.toml
-- (docs/pg.md, "Retries"): with several clients two transfers often touch one account
-- at once, and the later one fails with a serialization failure (40001) or a deadlock
-- (40P01), which `max_tries` retries with the same draws. :accounts is a `vars` entry.
\set from random(1, :accounts)
\set to random(1, :accounts)
\set amount random(1, 100)
BEGIN ISOLATION LEVEL REPEATABLE READ;
UPDATE pgbench_accounts SET abalance = abalance - :amount WHERE aid = :from;
\sleep 1 ms
UPDATE pgbench_accounts SET abalance = abalance + :amount WHERE aid = :to;
END;
