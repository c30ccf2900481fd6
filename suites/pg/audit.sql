-- The check beside suites/pg/transfer.sql: under REPEATABLE READ the transfers' accounts
-- must sum to what they held before (0 after pgbench -i), or the script divides by zero
-- and fails its cell.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT sum(abalance) AS total FROM pgbench_accounts WHERE aid <= :accounts \gset
END;
\if :total <> 0
\set inconsistent 1 / 0
\endif
