/*
 * test_symver.c - symbol versions in function names (analysis/symver.h):
 * where a name's version suffix starts, and the rule that shows a version
 * only where it tells two functions of a listing apart; then libc's symbols
 * through symtab, which must name __libc_start_main without its version.
 */
#include "analysis/symver.h"

#include <stdlib.h>
#include <unistd.h>

#include "analysis/symtab.h"
#include "tests/unit/check.h"

static void test_base_len(void)
{
	CHECK_EQ_U64(symver_base_len("__libc_start_main@@GLIBC_2.34"), 17);
	CHECK_EQ_U64(symver_base_len("memcpy@GLIBC_2.2.5"), 6);
	CHECK_EQ_U64(symver_base_len("memcpy@@GLIBC_2.14"), 6);
	CHECK_EQ_U64(symver_base_len("memcpy"), 6);
	CHECK_EQ_U64(symver_base_len(""), 0);
	/* not versions: a leading '@', nothing after the '@'s, two suffixes */
	CHECK_EQ_U64(symver_base_len("@plt"), 4);
	CHECK_EQ_U64(symver_base_len("f@"), 2);
	CHECK_EQ_U64(symver_base_len("f@@"), 3);
	CHECK_EQ_U64(symver_base_len("f@A@B"), 5);
	const char *n = "vfunc@@VERS_2";
	CHECK_EQ_STR(n + symver_base_len(n), "@@VERS_2");
}

/* The show flags of a listing as a string of 0/1, one per name. */
static const char *shown(const struct symver_name *v, size_t n)
{
	static char out[64];
	uint8_t show[64];
	CHECK(symver_disambiguate(v, n, show) == 0);
	for (size_t i = 0; i < n; i++)
		out[i] = show[i] ? '1' : '0';
	out[n] = '\0';
	return out;
}

static void test_disambiguate(void)
{
	/* the brief's case: two versions of memcpy, both with data */
	struct symver_name a[] = {
		{"memcpy", "@GLIBC_2.2.5", 0}, {"main", "", 0}, {"memcpy", "@@GLIBC_2.14", 0}};
	CHECK_EQ_STR(shown(a, 3), "101");
	/* one version alone: no version shown */
	struct symver_name b[] = {
		{"__libc_start_main", "@@GLIBC_2.34", 0}, {"main", "", 0}, {"_start", "", 0}};
	CHECK_EQ_STR(shown(b, 3), "000");
	/* the same name and version twice (two objects, or two listings merged): nothing to tell apart */
	struct symver_name c[] = {{"f", "@@V1", 0}, {"f", "@@V1", 0}};
	CHECK_EQ_STR(shown(c, 2), "00");
	/* an unversioned function of the same name: the versioned one says which it is */
	struct symver_name d[] = {{"g", "", 0}, {"g", "@@V2", 0}, {"h", "@V1", 0}};
	CHECK_EQ_STR(shown(d, 3), "010");
	/* one name in two objects (libc's clock_gettime@@GLIBC_2.17 and the vDSO's
	 * clock_gettime@@LINUX_2.6): their objects tell them apart, not a version */
	struct symver_name o[] = {{"clock_gettime", "@@GLIBC_2.17", 1}, {"clock_gettime", "@@LINUX_2.6", 2}};
	CHECK_EQ_STR(shown(o, 2), "00");
	struct symver_name o2[] = {{"m", "@V1", 1}, {"m", "@@V2", 1}, {"m", "@@V9", 2}};
	CHECK_EQ_STR(shown(o2, 3), "110");
	/* @V1 and @@V1 are different symbols: shown */
	struct symver_name e[] = {{"k", "@V1", 0}, {"k", "@@V1", 0}, {"k", "@V1", 0}};
	CHECK_EQ_STR(shown(e, 3), "111");
	/* names that only start alike are different names */
	struct symver_name f[] = {{"read", "@@V1", 0}, {"readv", "@@V2", 0}, {"read", "@@V1", 0}};
	CHECK_EQ_STR(shown(f, 3), "000");
	CHECK_EQ_STR(shown(f, 0), "");
	CHECK_EQ_STR(shown(f, 1), "0");
}

/* libc's symbol table (its debug file has versioned names): names without versions. */
static void test_libc(void)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	struct symtab *st;
	if (access(libc, R_OK) != 0 || symtab_open(libc, NULL, NULL, &st) != 0) {
		printf("note: %s not readable, libc checks skipped\n", libc);
		return;
	}
	/* .symtab names carry versions (libc6-dbg's debug file); .dynsym ones do not */
	int from_symtab = symtab_source(st) == SYMTAB_SOURCE_SYMTAB;
	size_t versioned = 0, lsm = 0;
	for (size_t i = 0; i < symtab_count(st); i++) {
		const struct symtab_func *f = symtab_at(st, i);
		CHECK(f->version != NULL);
		if (!f->synthesized)
			CHECK(strchr(f->name, '@') == NULL);
		versioned += f->version[0] != '\0';
		if (strcmp(f->name, "__libc_start_main") == 0) {
			lsm++;
			if (from_symtab)
				CHECK(strncmp(f->version, "@@GLIBC_", 8) == 0 ||
				      strncmp(f->version, "@GLIBC_", 7) == 0);
			CHECK_EQ_STR(f->mangled, "__libc_start_main");
		}
	}
	CHECK_EQ_U64(lsm, 1);
	printf("note: libc: %zu of %zu functions carry a symbol version\n", versioned, symtab_count(st));
	if (from_symtab)
		CHECK(versioned > 0);
	symtab_free(st);
}

int main(void)
{
	test_base_len();
	test_disambiguate();
	test_libc();
	return check_done();
}
