/*
 * test_expcheck.c - what er_rm, er_mv and er_cp accept (er_manage/expcheck.h,
 * linked from libermanage.a), on a tree built in a temporary directory:
 * experiments whose log.xml starts with a BOM, an XML declaration, comments
 * and an accepted DOCTYPE; and every refusal with its reason: a missing
 * name, a symbolic link, a plain file, no log.xml, log.xml a directory or a
 * FIFO (never opened so as to block), another root element, an entity
 * declaration, an external DTD, an unclosed DOCTYPE, a subexperiment of a
 * founder.  Then expcheck_collect over operands and a group file: members
 * in order with their group, EXPCHECK_MISSING_OK, the same experiment named
 * twice, and the messages it prints (stderr, read back).
 */
#include "er_manage/expcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/check.h"

static char tmp[PATH_MAX / 2];

static const char *at(const char *rel)
{
	static char p[4][PATH_MAX];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof p[k], "%s/%s", tmp, rel);
	return p[k];
}

static void write_file(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void make_exp(const char *rel, const char *log)
{
	CHECK(mkdir(at(rel), 0755) == 0);
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/log.xml", rel);
	write_file(p, log);
}

static void accepted(const char *rel)
{
	char why[512] = "";
	int rc = expcheck_experiment(at(rel), why, sizeof why);
	CHECK_EQ_U64(rc, 0);
	if (rc)
		fprintf(stderr, "  %s: %s\n", rel, why);
}

static void refused(const char *rel, int want_rc, const char *want_why)
{
	char why[1024] = "";
	CHECK_EQ_U64(expcheck_experiment(at(rel), why, sizeof why), want_rc);
	CHECK_EQ_STR(why, want_why);
}

static void test_experiments(void)
{
	make_exp("plain.er", "<experiment version=\"1\">\n");
	make_exp("decl.er", "\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- made by collect -->\n"
			    "<!DOCTYPE experiment [ <!ELEMENT experiment ANY> ]>\n<experiment>\n");
	accepted("plain.er");
	accepted("decl.er");
	accepted("plain.er/"); /* trailing slash */

	refused("none.er", -ENOENT, "does not exist");
	CHECK(symlink("plain.er", at("link.er")) == 0);
	refused("link.er", -EINVAL, "is a symbolic link; name the experiment itself");
	write_file("file.er", "<experiment>");
	refused("file.er", -EINVAL, "not an experiment: not a directory (nor an experiment group)");
	CHECK(mkdir(at("nolog.er"), 0755) == 0);
	refused("nolog.er", -EINVAL, "not an experiment: it has no log.xml");
	CHECK(mkdir(at("dirlog.er"), 0755) == 0 && mkdir(at("dirlog.er/log.xml"), 0755) == 0);
	char why[512] = "";
	CHECK_EQ_U64(expcheck_experiment(at("dirlog.er"), why, sizeof why), -EINVAL);
	CHECK(strncmp(why, "not an experiment: cannot read its log.xml: ", 44) == 0);
	CHECK(mkdir(at("fifo.er"), 0755) == 0 && mkfifo(at("fifo.er/log.xml"), 0644) == 0);
	CHECK_EQ_U64(expcheck_experiment(at("fifo.er"), why, sizeof why), -EINVAL); /* and returns */
	CHECK(strncmp(why, "not an experiment: cannot read its log.xml: ", 44) == 0);
	make_exp("other.er", "<?xml version=\"1.0\"?><experimental/>");
	refused("other.er", -EINVAL,
		"not an experiment: its log.xml is not an experiment log (no <experiment> root element)");
	make_exp("entity.er", "<!DOCTYPE experiment [ <!ENTITY a \"aaaa\"> ]><experiment>&a;");
	refused("entity.er", -EINVAL, "its log.xml declares an entity (entity declarations are refused)");
	make_exp("dtd.er", "<!DOCTYPE experiment SYSTEM \"http://example.com/x.dtd\"><experiment>");
	refused("dtd.er", -EINVAL, "its log.xml names an external DTD (external DTDs are refused)");
	make_exp("open.er", "<!DOCTYPE experiment [ <!ELEMENT experiment ANY>");
	refused("open.er", -EINVAL, "its log.xml has a document type declaration longer than the 4 KiB read");
	make_exp("unclosed.er", "<!-- no end");
	refused("unclosed.er", -EINVAL,
		"not an experiment: its log.xml is not an experiment log (no <experiment> root element)");

	make_exp("plain.er/_f1.er", "<experiment>");
	make_exp("plain.er/_f1_x2_c3.er", "<experiment>");
	make_exp("plain.er/_g1.er", "<experiment>"); /* not a lineage name: an experiment of its own */
	char want[PATH_MAX * 3];
	snprintf(
		want, sizeof want,
		"a subexperiment of %s (a descendant process's data belongs to its founder); name %s instead",
		at("plain.er"), at("plain.er"));
	refused("plain.er/_f1.er", -EINVAL, want);
	refused("plain.er/_f1_x2_c3.er", -EINVAL, want);
	accepted("plain.er/_g1.er");
	make_exp("_f7.er", "<experiment>"); /* a lineage name, but its directory is no experiment */
	accepted("_f7.er");
}

/* Run expcheck_collect with stderr into a file; what it printed into out. */
static int collect(struct expcheck_list *l, char *const *args, size_t n, int flags, char *out, size_t room)
{
	fflush(stderr);
	int saved = dup(2);
	int fd = open(at("stderr.txt"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	int rc = expcheck_collect(l, args, n, flags, "er_rm");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t r = pread(fd, out, room - 1, 0);
	out[r > 0 ? r : 0] = 0;
	close(fd);
	return rc;
}

static void test_collect(void)
{
	char grp[PATH_MAX * 2];
	snprintf(grp, sizeof grp, "#analyzer experiment group\n%s\n\ndecl.er\n", at("plain.er"));
	write_file("two.erg", grp);
	write_file("bad.erg", "#analyzer experiment group\nnolog.er\n");

	struct expcheck_list l;
	char out[4096];
	char a0[PATH_MAX], a1[PATH_MAX];
	snprintf(a0, sizeof a0, "%s", at("dtd.er"));
	snprintf(a1, sizeof a1, "%s", at("two.erg"));
	char *args1[] = {a1};
	CHECK_EQ_U64(collect(&l, args1, 1, 0, out, sizeof out), 0);
	CHECK_EQ_STR(out, "");
	CHECK_EQ_U64(l.count, 2);
	CHECK_EQ_U64(l.ngroups, 1);
	CHECK_EQ_STR(l.groups[0].path, a1);
	CHECK_EQ_U64(l.groups[0].first, 0);
	CHECK_EQ_U64(l.groups[0].count, 2);
	CHECK_EQ_STR(l.items[0].path, at("plain.er"));
	CHECK_EQ_STR(l.items[1].path, at("decl.er")); /* relative to the group's directory */
	CHECK(l.items[0].group == 0 && l.items[1].group == 0 && !l.items[1].missing);
	expcheck_list_release(&l);

	/* the same experiment through the group and directly */
	char d[PATH_MAX];
	snprintf(d, sizeof d, "%s/", at("decl.er"));
	char *args2[] = {a1, d};
	CHECK_EQ_U64(collect(&l, args2, 2, 0, out, sizeof out), 1);
	char want[PATH_MAX * 5];
	snprintf(want, sizeof want, "er_rm: %s: named twice (also as %s)\n", d, at("decl.er"));
	CHECK_EQ_STR(out, want);
	expcheck_list_release(&l);

	/* refusals: one line each, with the group's name for its members */
	char b[PATH_MAX], m[PATH_MAX];
	snprintf(b, sizeof b, "%s", at("bad.erg"));
	snprintf(m, sizeof m, "%s", at("none.er"));
	char *args3[] = {a0, b, m};
	CHECK_EQ_U64(collect(&l, args3, 3, 0, out, sizeof out), 1);
	snprintf(want, sizeof want,
		 "er_rm: %s: its log.xml names an external DTD (external DTDs are refused)\n"
		 "er_rm: %s: member %s: not an experiment: it has no log.xml\n"
		 "er_rm: %s: does not exist\n",
		 a0, b, at("nolog.er"), m);
	CHECK_EQ_STR(out, want);
	expcheck_list_release(&l);

	/* er_rm -f: a missing name is kept, quietly */
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", at("plain.er"));
	char *args4[] = {m, p};
	CHECK_EQ_U64(collect(&l, args4, 2, EXPCHECK_MISSING_OK, out, sizeof out), 0);
	CHECK_EQ_STR(out, "");
	CHECK_EQ_U64(l.count, 2);
	CHECK(l.items[0].missing && !l.items[1].missing && l.items[0].group == -1);
	expcheck_list_release(&l);
	CHECK(l.items == NULL && l.count == 0);
}

static void test_basename(void)
{
	char b[64];
	expcheck_basename("/a/b/test.1.er", b, sizeof b);
	CHECK_EQ_STR(b, "test.1.er");
	expcheck_basename("test.1.er//", b, sizeof b);
	CHECK_EQ_STR(b, "test.1.er");
	expcheck_basename("/", b, sizeof b);
	CHECK_EQ_STR(b, "");
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "%s/test_expcheck.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(tmp) != NULL);
	test_experiments();
	test_collect();
	test_basename();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	CHECK(system(cmd) == 0);
	return check_done();
}
