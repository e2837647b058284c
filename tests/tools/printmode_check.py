#!/usr/bin/env python3
"""printmode_check.py - check er_print's printmode output against its text output.

  printmode_check.py json TEXT JSON      functions: text table vs json report
  printmode_check.py delim C TEXT OUT    functions: text table vs C-separated values
  printmode_check.py html TEXT OUT       functions: text table vs html table

TEXT is `er_print -functions` in text mode (default metrics: e.totalcpu, i.totalcpu
with percentages).  Prints "ok: ..." lines, or "FAIL: ..." and exits 1.
"""
import csv
import html.parser
import io
import json
import sys

fails = 0


def ok(cond, what):
    global fails
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        fails += 1


def text_rows(path):
    """The rows of a text function list: (values..., name) after the header."""
    rows, started = [], False
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        parts = line.split()
        if not started:
            started = bool(parts) and parts[-1] == "<Total>"
            if not started:
                continue
        if not parts:
            break
        rows.append(parts[:4] + [line.split(None, 4)[4] if len(parts) > 4 else ""])
    return rows


def secs(ns):
    return "0." if ns == 0 else "%.3f" % (ns / 1e9)


def check_json(text, out):
    objs = [json.loads(l) for l in open(out, encoding="utf-8")]
    ok(all(isinstance(o, dict) and "report" in o for o in objs), "every line is one JSON object with a report name")
    fn = [o for o in objs if o["report"] == "functions"]
    ok(len(fn) == 1 and len(fn[0]["tables"]) == 1, "one functions report with one table")
    t = fn[0]["tables"][0]
    keys = [c["key"] for c in t["columns"]]
    ok(keys == ["e.totalcpu", "i.totalcpu"], "columns e.totalcpu, i.totalcpu (%s)" % keys)
    ok(all(c["unit"] == "ns" for c in t["columns"]), "CPU time in ns")
    ok([c.get("sort", False) for c in t["columns"]] == [True, False], "the sort column is marked")
    rows = t["rows"]
    ok(all(isinstance(r["e.totalcpu"], int) and isinstance(r["i.totalcpu"], int) for r in rows), "values are integers")
    total = t["columns"][0]["total"]
    ok(rows[0]["name"] == "<Total>" and rows[0]["e.totalcpu"] == total and rows[0]["i.totalcpu"] == total,
       "<Total> is the column total %d" % total)
    ok(sum(r["e.totalcpu"] for r in rows[1:]) == total, "exclusive times sum to <Total>")
    tr = text_rows(text)
    ok(len(tr) == len(rows), "as many rows as the text report (%d, %d)" % (len(tr), len(rows)))
    same = all(a[4] == b["name"] and a[0] == secs(b["e.totalcpu"]) and a[2] == secs(b["i.totalcpu"])
               for a, b in zip(tr, rows))
    ok(same, "each row's name and seconds are the text report's")
    pct = all(a[1] == ("0." if b["e.totalcpu"] == 0 else "%.2f" % (100.0 * b["e.totalcpu"] / total))
              for a, b in zip(tr, rows))
    ok(pct, "percentages follow from the values and the column total")


def check_delim(c, text, out):
    lines = open(out, encoding="utf-8").read().split("\n")
    first = next(i for i, l in enumerate(lines) if l.startswith('"'))
    recs = list(csv.reader(io.StringIO("\n".join(l for l in lines[first:] if l.startswith('"'))), delimiter=c))
    ok(len(recs) >= 5, "four header rows and data rows")
    ok(recs[1] == ["Exclusive", "Exclusive", "Inclusive", "Inclusive", "Name"], "flavor row %s" % recs[1])
    ok(recs[2][:4] == ["Total CPU Time"] * 4, "metric name row %s" % recs[2])
    ok(recs[3] == ["V  (sec.)", "V  %%", "   (sec.)", "   %%", "   "], "unit row with V on the sort column %s" % recs[3])
    tr = text_rows(text)
    ok([r for r in recs[4:]] == tr, "data rows equal the text report's cells (%d rows)" % len(tr))


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.rows, self.cell, self.tables, self.bad = [], [], None, 0, 0

    def handle_starttag(self, tag, attrs):
        if tag in ("br",):
            return
        self.stack.append(tag)
        if tag == "table":
            self.tables += 1
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.bad += 1
            return
        self.stack.pop()
        if tag in ("td", "th"):
            self.rows[-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def check_html(text, out):
    p = Tables()
    p.feed(open(out, encoding="utf-8").read())
    ok(p.bad == 0 and not p.stack, "tags nest and close")
    ok(p.tables == 1, "one table")
    ok("\u2207" in p.rows[0][0], "the sort column's header has the nabla mark")
    tr = text_rows(text)
    ok(p.rows[1:] == tr, "rows equal the text report's cells (%d rows)" % len(tr))


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "json":
        check_json(sys.argv[2], sys.argv[3])
    elif mode == "delim":
        check_delim(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        check_html(sys.argv[2], sys.argv[3])
    sys.exit(1 if fails else 0)
