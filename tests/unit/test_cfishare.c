/*
 * test_cfishare.c - unwind tables shared between an experiment's processes
 * (collector/cfishare.h, linked from libcollector-core.a).  The table of
 * this process's libc, built from its .eh_frame_hdr, is stored and loaded
 * back: at the same load address every PC of libc's code looks up to the
 * same rule, at another address to the same rule shifted; a file that is
 * not a whole table of that key (truncated, another magic, another key,
 * block counts that do not match its span, a block naming no row, extra
 * bytes) is refused, so cfi_lookup never indexes past it; a symbolic link
 * in its place is not followed; no temporary file is left behind.
 */
#include "collector/cfishare.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "tests/unit/fixture.h"

static void *allocated[4];
static int nallocated;

static void *t_alloc(void *ctx, size_t bytes)
{
	(void)ctx;
	if (nallocated == 4)
		return NULL;
	return allocated[nallocated++] = calloc(1, bytes);
}

struct found {
	struct dl_phdr_info info;
	const ElfW(Phdr) * eh, *load;
};

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct found *f = arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "/libc.so"))
		return 0;
	f->info = *info;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			f->eh = &info->dlpi_phdr[i];
	for (int i = 0; f->eh && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && f->eh->p_vaddr >= ph->p_vaddr &&
		    f->eh->p_vaddr - ph->p_vaddr < ph->p_memsz)
			f->load = ph;
	}
	return 1;
}

static int same_rule(const struct cfi_rule *a, const struct cfi_rule *b)
{
	return (!a && !b) || (a && b && memcmp(a, b, sizeof(*a)) == 0);
}

static char dir[64], path[512];

/* Rewrite the shared file: its bytes with n at off replaced by the n bytes at p (or cut to off when p is NULL). */
static void patch(const void *orig, size_t len, size_t off, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	if (!p) {
		CHECK(write(fd, orig, off) == (ssize_t)off);
	} else {
		CHECK(write(fd, orig, len) == (ssize_t)len);
		CHECK(pwrite(fd, p, n, (off_t)off) == (ssize_t)n);
	}
	close(fd);
}

static int load(const char *key, uint64_t bias)
{
	struct cfi_table t;
	void *m = NULL;
	size_t mb = 0;
	int r = cfishare_load(dir, key, bias, &t, &m, &mb);
	if (r == 0)
		munmap(m, mb);
	return r;
}

int main(void)
{
	struct found f = {0};
	dl_iterate_phdr(find_libc, &f);
	if (!f.eh || !f.load) {
		fprintf(stderr, "# libc without .eh_frame_hdr here: skipped\n");
		return 0;
	}
	uint64_t bias = f.info.dlpi_addr;
	struct cfi_alloc al = {t_alloc, NULL};
	struct cfi_table built;
	uint64_t olo = bias + f.load->p_vaddr, ohi = olo + f.load->p_filesz;
	int r = cfi_build_eh_frame_hdr((const uint8_t *)(bias + f.eh->p_vaddr), f.eh->p_memsz, olo, ohi, &al,
				       &built);
	CHECK(r == 0 && built.nrows > 100);
	char key[CFISHARE_KEY_MAX];
	CHECK_EQ_U64(cfishare_key(&f.info, f.eh, key, sizeof key), 0);
	snprintf(dir, sizeof dir, "/tmp/test_cfishare.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/%s/%s.cfi", dir, CFISHARE_DIR, key);

	CHECK_EQ_U64(load(key, bias), (uint64_t)-ENOENT); /* none yet */
	cfishare_store(dir, key, bias, &built);
	struct cfi_table t;
	void *m = NULL;
	size_t mb = 0;
	CHECK_EQ_U64(cfishare_load(dir, key, bias, &t, &m, &mb), 0);
	CHECK(t.lo == built.lo && t.hi == built.hi && t.nrows == built.nrows && t.nblk == built.nblk);
	size_t diff = 0, n = 0;
	for (uint64_t pc = built.lo - 64; pc < built.hi + 64; pc += 3, n++)
		diff += !same_rule(cfi_lookup(&built, pc), cfi_lookup(&t, pc));
	CHECK_EQ_U64(diff, 0);
	munmap(m, mb);
	/* the same object loaded elsewhere: the same rules, shifted */
	uint64_t delta = 0x7f0000;
	CHECK_EQ_U64(cfishare_load(dir, key, bias + delta, &t, &m, &mb), 0);
	diff = 0;
	for (uint64_t pc = built.lo; pc < built.hi; pc += 5)
		diff += !same_rule(cfi_lookup(&built, pc), cfi_lookup(&t, pc + delta));
	CHECK_EQ_U64(diff, 0);
	fprintf(stderr, "# libc: %u rows, %u blocks, %zu bytes shared; %zu PCs compared\n", built.nrows,
		built.nblk, mb, n);

	/* refusals: what is not a whole table of this key */
	size_t len = mb;
	uint8_t *orig = malloc(len);
	memcpy(orig, m, len);
	munmap(m, mb);
	uint32_t big = built.nrows, zero = 0;
	size_t head = len - (size_t)built.nrows * 12 - (size_t)built.nblk * 4; /* the header's size */
	patch(orig, len, len / 2, NULL, 0);
	CHECK_EQ_U64(load(key, bias), (uint64_t)-EBADMSG); /* truncated */
	patch(orig, len, 0, "XXXX", 4);
	CHECK_EQ_U64(load(key, bias), (uint64_t)-EBADMSG); /* magic */
	patch(orig, len, 8, "0000", 4);
	CHECK_EQ_U64(load(key, bias), (uint64_t)-EBADMSG); /* another key */
	patch(orig, len, len - 4, &big, 4);
	CHECK_EQ_U64(load(key, bias), (uint64_t)-EBADMSG); /* the last block names no row */
	patch(orig, len, head - 8 - 16 - 4, &zero, 4); /* nblk (head: ... nrows, nblk, 4 x u32, file_bytes) */
	CHECK_EQ_U64(load(key, bias), (uint64_t)-EBADMSG);
	{
		int fd = open(path, O_WRONLY | O_APPEND);
		CHECK(fd >= 0 && write(fd, "x", 1) == 1); /* extra bytes */
		if (fd >= 0)
			close(fd);
		CHECK_EQ_U64(load(key, bias), (uint64_t)-EBADMSG);
	}
	patch(orig, len, 0, orig, 8);
	CHECK_EQ_U64(load(key, bias), 0); /* whole again */
	/* a link in its place: not followed */
	unlink(path);
	char target[600];
	snprintf(target, sizeof target, "%s/elsewhere.cfi", dir);
	int fd = open(target, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0 && write(fd, orig, len) == (ssize_t)len);
	if (fd >= 0)
		close(fd);
	CHECK(symlink(target, path) == 0);
	CHECK_EQ_U64(load(key, bias), (uint64_t)-ENOENT);
	/* stored again over the link: a file of its own, and no temporary file left */
	unlink(path);
	cfishare_store(dir, key, bias, &built);
	CHECK_EQ_U64(load(key, bias), 0);
	CHECK(sh("test $(ls -A '%s/%s' | wc -l) = 1", dir, CFISHARE_DIR) == 0);
	free(orig);
	for (int i = 0; i < nallocated; i++)
		free(allocated[i]);
	sh("rm -rf '%s'", dir);
	return check_done();
}
