/*
 * bench_lines.c - symbolize N distinct PCs of one object's .text (default:
 * the running libc, whose DWARF comes from libc6-dbg) with analysis/lines.c
 * (line + inline chain per PC, open included), then the same PCs with
 * binutils `addr2line -i -f` and `eu-addr2line -i -f` (each one batch process,
 * every address on stdin), and print the three times and the agreement of the
 * innermost file:line.  Prints only; never fails on a slow figure.
 *
 *   bench_lines [-n COUNT] [OBJECT]
 */
#include "analysis/lines.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct result {
	char *file; /* innermost file, or NULL */
	uint32_t line;
	uint32_t depth; /* inline frames */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool text_range(const char *path, uint64_t *lo, uint64_t *hi)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t shstrndx;
	bool ok = false;
	if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;
		while ((scn = elf_nextscn(e, scn))) {
			const char *name;
			if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstrndx, sh.sh_name)) &&
			    strcmp(name, ".text") == 0) {
				*lo = sh.sh_addr;
				*hi = sh.sh_addr + sh.sh_size;
				ok = sh.sh_size > 0;
				break;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ok;
}

static bool find_libc(char *out, size_t size)
{
	FILE *m = fopen("/proc/self/maps", "r");
	char line[4200];
	bool ok = false;
	while (m && fgets(line, sizeof(line), m)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(out, size, "%s", p);
			ok = true;
			break;
		}
	}
	if (m)
		fclose(m);
	return ok;
}

/* Parse "file:line[:col][ (discriminator n)]" into r (file NULL if unknown). */
static void parse_loc(char *s, struct result *r)
{
	s[strcspn(s, "\n")] = '\0';
	char *d = strstr(s, " (discriminator");
	if (d)
		*d = '\0';
	r->file = NULL;
	r->line = 0;
	char *c = strrchr(s, ':');
	if (!c)
		return;
	*c = '\0';
	char *c2 = strrchr(s, ':');
	if (c2 && c2[1] >= '0' && c2[1] <= '9' && strspn(c2 + 1, "0123456789") == strlen(c2 + 1)) {
		*c2 = '\0';
		c = c2;
	}
	r->line = (uint32_t)strtoul(c + 1, NULL, 10);
	if (r->line && strcmp(s, "??") != 0)
		r->file = strdup(s);
	else
		r->line = 0;
}

/* Run `tool -a -i -f -e obj < addrs`, keep each address's innermost frame. */
static double run_tool(const char *tool, const char *obj, const char *addrs_file, struct result *res,
		       size_t n, size_t *ret_parsed)
{
	char cmd[8192], out[256];
	snprintf(out, sizeof(out), "%s.out", addrs_file);
	snprintf(cmd, sizeof(cmd), "%s -a -i -f -e '%s' < '%s' > '%s'", tool, obj, addrs_file, out);
	double t0 = now_s();
	int rc = system(cmd);
	double dt = now_s() - t0;
	*ret_parsed = 0;
	if (rc != 0)
		return -1;
	FILE *f = fopen(out, "r");
	char line[8192];
	size_t k = SIZE_MAX, pairs = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '0' && line[1] == 'x') {
			k = k == SIZE_MAX ? 0 : k + 1;
			pairs = 0;
			continue;
		}
		if (k >= n || !fgets(line, sizeof(line), f))
			continue;
		if (pairs++ == 0)
			parse_loc(line, &res[k]);
		else
			res[k].depth++;
	}
	if (f)
		fclose(f);
	unlink(out);
	*ret_parsed = k == SIZE_MAX ? 0 : k + 1;
	return dt;
}

static void agreement(const char *name, const struct result *ours, const struct result *theirs, size_t n)
{
	size_t fl = 0, ln = 0, depth = 0;
	for (size_t i = 0; i < n; i++) {
		bool same_line = ours[i].line == theirs[i].line;
		ln += same_line;
		fl += same_line && (!ours[i].file == !theirs[i].file) &&
		      (!ours[i].file || strcmp(ours[i].file, theirs[i].file) == 0);
		depth += ours[i].depth == theirs[i].depth;
	}
	printf("  agreement with %-13s file:line %6.2f %%   line %6.2f %%   inline depth %6.2f %%\n", name,
	       100.0 * (double)fl / (double)n, 100.0 * (double)ln / (double)n,
	       100.0 * (double)depth / (double)n);
}

static void free_results(struct result *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		free(r[i].file);
	free(r);
}

int main(int argc, char **argv)
{
	size_t n = 100000;
	int opt;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: %s [-n COUNT] [OBJECT]\n", argv[0]);
			return 2;
		}
	}
	char obj[4096];
	if (optind < argc)
		snprintf(obj, sizeof(obj), "%s", argv[optind]);
	else if (!find_libc(obj, sizeof(obj))) {
		fprintf(stderr, "bench_lines: libc.so.6 not found in /proc/self/maps\n");
		return 1;
	}
	uint64_t lo, hi;
	if (!text_range(obj, &lo, &hi)) {
		fprintf(stderr, "bench_lines: %s: no .text\n", obj);
		return 1;
	}
	if (n > hi - lo)
		n = hi - lo;
	/* n distinct addresses spread over .text: i * P mod size, P an odd prime. */
	uint64_t size = hi - lo, p = 1000003;
	while (size % p == 0)
		p += 2;
	uint64_t *addrs = malloc(n * sizeof(*addrs));
	struct result *ours = calloc(n, sizeof(*ours)), *bin = calloc(n, sizeof(*bin)),
		      *eu = calloc(n, sizeof(*eu));
	char addrs_file[] = "/tmp/bench_lines.XXXXXX";
	int fd = mkstemp(addrs_file);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!addrs || !ours || !bin || !eu || !f) {
		fprintf(stderr, "bench_lines: out of memory or no temp file\n");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		addrs[i] = lo + (uint64_t)((unsigned __int128)i * p % size);
		fprintf(f, "0x%" PRIx64 "\n", addrs[i]);
	}
	fclose(f);

	/* Ours: open + one line lookup and one inline chain per address. */
	double t0 = now_s();
	struct lines *l;
	int rc = lines_open(obj, NULL, NULL, &l);
	double t_open = now_s() - t0;
	if (rc) {
		fprintf(stderr, "bench_lines: lines_open(%s): %s\n", obj, strerror(-rc));
		unlink(addrs_file);
		return 1;
	}
	size_t with_line = 0, with_inl = 0, frames = 0;
	for (size_t i = 0; i < n; i++) {
		struct line_loc loc;
		struct line_inline in[16];
		if (lines_lookup(l, addrs[i], &loc)) {
			with_line++;
			ours[i].line = loc.line;
			ours[i].file = loc.line ? (char *)loc.file : NULL;
		}
		size_t k = lines_inlines(l, addrs[i], in, 16);
		ours[i].depth = (uint32_t)k;
		with_inl += k > 0;
		frames += k;
	}
	double t_ours = now_s() - t0;
	for (size_t i = 0; i < n; i++) /* free_results frees them */
		ours[i].file = ours[i].file ? strdup(ours[i].file) : NULL;
	printf("bench-lines: %zu distinct PCs in .text of %s\n  DWARF from %s\n", n, obj,
	       lines_debug_file(l));
	lines_free(l);

	size_t parsed_bin, parsed_eu;
	double t_bin = run_tool("addr2line", obj, addrs_file, bin, n, &parsed_bin);
	bool have_eu = system("eu-addr2line --version >/dev/null 2>&1") == 0;
	double t_eu = have_eu ? run_tool("eu-addr2line", obj, addrs_file, eu, n, &parsed_eu) : -1;
	unlink(addrs_file);

	printf("  lines (ours)        %8.3f s  (open %.3f s, %.2f us/PC after open); %zu with a line,"
	       " %zu in inlined code, %zu inline frames\n",
	       t_ours, t_open, (t_ours - t_open) * 1e6 / (double)n, with_line, with_inl, frames);
	if (t_bin >= 0)
		printf("  addr2line -i -f     %8.3f s  (%.1fx ours)\n", t_bin, t_bin / t_ours);
	else
		printf("  addr2line -i -f     failed\n");
	if (t_eu >= 0)
		printf("  eu-addr2line -i -f  %8.3f s  (%.1fx ours)\n", t_eu, t_eu / t_ours);
	else
		printf("  eu-addr2line -i -f  not installed (package elfutils): skipped\n");
	if (t_bin >= 0 && parsed_bin == n)
		agreement("addr2line", ours, bin, n);
	if (t_eu >= 0 && parsed_eu == n)
		agreement("eu-addr2line", ours, eu, n);
	free_results(ours, n);
	free_results(bin, n);
	free_results(eu, n);
	free(addrs);
	return 0;
}
