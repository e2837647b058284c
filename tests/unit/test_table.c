/*
 * test_table.c - er_print's table renderer (er_print/table.h, linked from
 * liberprint.a), on tables built here: the function list of
 * tests/component/expected/functions.txt (gprofng's `display text` layout:
 * wrapped titles, the units line, "0." aligned on the point, two blanks
 * between metric columns and three before the name), a marked row, a
 * literal line, an annotated listing's prefixes and blank cells, compare
 * mode's delta and ratio cells, a ratio column (no percentage), and the
 * value, percent and summary formats.
 */
#include "er_print/table.h"

#include <stdlib.h>

#include "tests/unit/check.h"

#define SEC 1000000000ull

static char *render(const struct table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	table_print(t, m);
	fclose(m);
	return buf;
}

static void test_function_list(void)
{
	const struct table_col cols[] = {
		{.kind = TABLE_METRIC,
		 .title = "Excl. Total CPU",
		 .unit = METRIC_UNIT_TIME,
		 .show_value = 1,
		 .show_percent = 1,
		 .percent_base = 2 * SEC},
		{.kind = TABLE_METRIC,
		 .title = "Incl. Total CPU",
		 .unit = METRIC_UNIT_TIME,
		 .show_value = 1,
		 .show_percent = 1,
		 .percent_base = 2 * SEC},
	};
	struct table *t = table_new(cols, 2);
	CHECK(t != NULL);
	const struct {
		const char *name;
		uint64_t e, i;
	} rows[] = {
		{"<Total>", 2 * SEC, 2 * SEC}, {"work", 2 * SEC, 2 * SEC}, {"both", 0, 1100000000},
		{"fast", 0, 200000000},        {"main", 0, 2 * SEC},       {"slow", 0, 1800000000},
	};
	for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
		CHECK_EQ_U64(table_add_row(t, (uint64_t[]){rows[k].e, rows[k].i}, NULL, rows[k].name, 0), 0);
	char *s = render(t);
	/* tests/component/expected/functions.txt, below its title */
	CHECK_EQ_STR(s, "Excl. Total   Incl. Total    Name\n"
			"CPU           CPU\n"
			" sec.      %   sec.      %\n"
			"2.000 100.00  2.000 100.00   <Total>\n"
			"2.000 100.00  2.000 100.00   work\n"
			"0.      0.    1.100  55.00   both\n"
			"0.      0.    0.200  10.00   fast\n"
			"0.      0.    2.000 100.00   main\n"
			"0.      0.    1.800  90.00   slow\n");
	free(s);
	table_free(t);
}

static void test_marker_lines_counts(void)
{
	const struct table_col cols[] = {
		{.kind = TABLE_METRIC, .title = "Calls", .unit = METRIC_UNIT_COUNT, .show_value = 1},
		{.kind = TABLE_TEXT, .title = "PC Addr."},
	};
	struct table *t = table_new(cols, 2);
	CHECK_EQ_U64(table_add_line(t, "============== Callers"), 0);
	CHECK_EQ_U64(table_add_row(t, (uint64_t[]){7, 0}, (const char *[]){NULL, "0x401000"}, "caller", 0),
		     0);
	CHECK_EQ_U64(
		table_add_row(t, (uint64_t[]){12345, 0}, (const char *[]){NULL, "0x401abc"}, "self", '*'), 0);
	char *s = render(t);
	/*
	 * "Calls" is wider than every value: the values are right-aligned in it;
	 * a count has no units; the marker takes the name's last leading blank.
	 */
	CHECK_EQ_STR(s, "Calls  PC Addr.   Name\n"
			"\n"
			"============== Callers\n"
			"    7  0x401000   caller\n"
			"12345  0x401abc  *self\n");
	free(s);
	table_free(t);
}

static void test_annotated(void)
{
	const struct table_col cols[] = {
		{.kind = TABLE_METRIC, .title = "Excl. Total CPU", .unit = METRIC_UNIT_TIME, .show_value = 1},
	};
	struct table *t = table_new(cols, 1);
	table_set_indent(t);
	CHECK_EQ_U64(table_add_annotated(t, (uint64_t[]){1500000000}, "   10.   x++;", "## ", 0), 0);
	CHECK_EQ_U64(table_add_annotated(t, (uint64_t[]){0}, "   11.   y++;", NULL, 0), 0);
	CHECK_EQ_U64(table_add_annotated(t, NULL, "    1. #include <x.h>", NULL, 1), 0);
	char *s = render(t);
	/* the prefix, the value column (5: "1.500"), three blanks, the name */
	CHECK_EQ_STR(s, "   Excl.   Name\n"
			"   Total\n"
			"   CPU\n"
			"    sec.\n"
			"## 1.500      10.   x++;\n"
			"   0.         11.   y++;\n"
			"               1. #include <x.h>\n");
	free(s);
	table_free(t);
}

static void test_compare(void)
{
	const struct table_col cols[] = {
		{.kind = TABLE_METRIC,
		 .title = "Excl. Total CPU",
		 .unit = METRIC_UNIT_TIME,
		 .show_value = 1,
		 .group = "a.er",
		 .side = 1},
		{.kind = TABLE_METRIC,
		 .title = "Excl. Total CPU",
		 .unit = METRIC_UNIT_TIME,
		 .show_value = 1,
		 .group = "b.er",
		 .side = 2,
		 .compare = 'd',
		 .compare_base = 0},
		{.kind = TABLE_METRIC,
		 .title = "Excl. Total CPU",
		 .unit = METRIC_UNIT_TIME,
		 .show_value = 1,
		 .group = "b.er",
		 .side = 2,
		 .compare = 'r',
		 .compare_base = 0},
	};
	struct table *t = table_new(cols, 3);
	CHECK_EQ_U64(table_add_row(t, (uint64_t[]){50000000, 80000000, 80000000}, NULL, "f", 0), 0);
	CHECK_EQ_U64(table_add_row(t, (uint64_t[]){80000000, 50000000, 0}, NULL, "g", 0), 0);
	CHECK_EQ_U64(table_add_row(t, (uint64_t[]){0, 0, 0}, NULL, "h", 0), 0);
	CHECK_EQ_U64(table_add_row(t, (uint64_t[]){0, 100, 1}, NULL, "k", 0), 0);
	char *s = render(t);
	/*
	 * The ratio column is as wide as "x >99.999", so its title wraps in two
	 * lines; each cell right-aligned in its column after the "x ".
	 */
	CHECK_EQ_STR(s, "a.er   b.er    b.er\n"
			"Excl.  Excl.   Excl.       Name\n"
			"Total  Total   Total CPU\n"
			"CPU    CPU\n"
			" sec.   delta      ratio\n"
			"0.050  +0.030  x   1.600   f\n"
			"0.080  -0.030  x   0.      g\n"
			"0.     +0.     x   1.000   h\n"
			"0.     +0.     x >99.999   k\n");
	free(s);
	table_free(t);
}

static void test_formats(void)
{
	char b[64];
	table_format_value(METRIC_UNIT_TIME, 2 * SEC, b, sizeof b);
	CHECK_EQ_STR(b, "2.000");
	table_format_value(METRIC_UNIT_TIME, 0, b, sizeof b);
	CHECK_EQ_STR(b, "0.   ");
	table_format_value(METRIC_UNIT_TIME, 1234567, b, sizeof b);
	CHECK_EQ_STR(b, "0.001");
	table_format_value(METRIC_UNIT_COUNT, 12, b, sizeof b);
	CHECK_EQ_STR(b, "12");
	table_format_value(METRIC_UNIT_BYTES, 18446744073709551615ull, b, sizeof b);
	CHECK_EQ_STR(b, "18446744073709551615");
	table_format_value(METRIC_UNIT_RATIO, 1250, b, sizeof b);
	CHECK_EQ_STR(b, "1.250");
	table_format_percent(1, 3, b, sizeof b);
	CHECK_EQ_STR(b, "33.33");
	table_format_percent(0, 3, b, sizeof b);
	CHECK_EQ_STR(b, "0.  ");
	table_format_percent(5, 0, b, sizeof b);
	CHECK_EQ_STR(b, "0.  ");

	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	table_summary_line(m, "Exclusive Total CPU Time", METRIC_UNIT_TIME, SEC / 2, 2 * SEC);
	table_summary_line(m, "Calls", METRIC_UNIT_COUNT, 0, 10);
	table_summary_line(m, "IPC", METRIC_UNIT_RATIO, 2500, 0);
	fclose(m);
	CHECK_EQ_STR(buf, "\tExclusive Total CPU Time: 0.500 ( 25.0%)\n"
			  "\t                   Calls: 0 (  0. %)\n"
			  "\t                     IPC: 2.500\n");
	free(buf);

	/* a ratio column shows its value, never a percentage */
	const struct table_col cols[] = {
		{.kind = TABLE_METRIC, .title = "IPC", .unit = METRIC_UNIT_RATIO, .show_percent = 1},
	};
	struct table *t = table_new(cols, 1);
	CHECK_EQ_U64(table_add_row(t, (uint64_t[]){1500}, NULL, "f", 0), 0);
	char *s = render(t);
	CHECK_EQ_STR(s, "IPC     Name\n"
			"\n"
			"1.500   f\n");
	free(s);
	table_free(t);
}

int main(void)
{
	test_function_list();
	test_marker_lines_counts();
	test_annotated();
	test_compare();
	test_formats();
	return check_done();
}
