CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INTEGER, c REAL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < 300000)
INSERT INTO t(a, b, c) SELECT printf('name-%d-%s', i, hex(randomblob(8))), i % 1000, i * 0.5 FROM s;
CREATE INDEX t_a ON t(a);
CREATE INDEX t_b ON t(b);
SELECT b, count(*), sum(c), group_concat(substr(a, 1, 4)) FROM t GROUP BY b ORDER BY 2 DESC LIMIT 3;
UPDATE t SET a = a || '-x' WHERE b % 3 = 0;
SELECT count(*) FROM t WHERE a LIKE 'name-1%';
DELETE FROM t WHERE b % 7 = 0;
SELECT count(DISTINCT substr(a, 6, 3)) FROM t;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < 200000)
SELECT sum(length(printf('%d-%s', i, upper(hex(i))))) FROM s;
