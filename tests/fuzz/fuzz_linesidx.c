/*
 * fuzz_linesidx - a line index file (analysis/lines_cache.c) as the per-user
 * cache may hold it after a disk fault or another program's write.  The
 * first byte is a mode, the rest the file.  The header's fields naming the
 * DWARF file are set to those the reader expects (else every input would
 * be refused as stale), and with mode bit 0 its checksum is made to hold, so
 * the input reaches the tables and the block checks behind it.  An index the
 * reader accepts is asked for lines, inline chains and rows at addresses
 * taken from its own tables: whatever it answers, it must stay inside the
 * mapping (ASan), never abort, and give a file name with every line.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/lines_internal.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_row(void *ctx, uint64_t addr, const struct line_loc *loc)
{
	(void)addr;
	if (!loc->file)
		abort();
	(*(size_t *)ctx)++;
}

static void ask(struct lines *l, uint64_t a)
{
	struct line_loc loc;
	struct line_inline in[8];
	if (lines_lookup(l, a, &loc) == 1 && !loc.file)
		abort();
	size_t n = lines_inlines(l, a, in, 8);
	for (size_t i = 0; i < n && i < 8; i++)
		if (!in[i].name || !in[i].mangled || !in[i].call.file)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/pa-fuzz-linesidx.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	uint8_t mode;
	size_t n;
	uint8_t *file = fuzz_input(data, size, &mode, &n);
	if (!file)
		return 0;
	struct lines_source_id id = {.dev = 1, .ino = 2, .size = 3, .mtime_ns = 4, .ctime_ns = 5};
	snprintf(id.key, sizeof(id.key), "fuzz");
	if (n >= sizeof(struct lines_index_header)) {
		struct lines_index_header h;
		memcpy(&h, file, sizeof(h));
		h.dev = id.dev;
		h.ino = id.ino;
		h.size = id.size;
		h.mtime_ns = id.mtime_ns;
		h.ctime_ns = id.ctime_ns;
		if ((mode & 1) && lines_cache_check_header(&h, &id, n) == 0) {
			memcpy(file, &h, sizeof(h));
			h.checksum = lines_cache_checksum(&h, file);
		}
		memcpy(file, &h, sizeof(h));
	}
	char path[128];
	snprintf(path, sizeof(path), "%s/fuzz.lines", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (n && write(fd, file, n) != (ssize_t)n))
		abort();
	close(fd);
	free(file);

	struct lines *l = NULL;
	if (lines_cache_load(dir, &id, &l) == 0) {
		/* addresses from its own tables: rows, CU ranges, intervals */
		for (size_t i = 0; i < l->nrows && i < 64; i++)
			ask(l, l->rows[i * (l->nrows / 64 + 1) % l->nrows].addr);
		for (size_t i = 0; i < l->ncur && i < 16; i++) {
			ask(l, l->cur[i].lo);
			ask(l, l->cur[i].hi - 1);
		}
		for (size_t c = 0; c < l->ncus && c < 16; c++)
			for (size_t i = 0; i < l->cus[c].inl.niv && i < 8; i++)
				ask(l, l->cus[c].inl.iv[i].lo);
		ask(l, 0);
		ask(l, UINT64_MAX);
		size_t rows = 0;
		lines_rows(l, 0, UINT64_MAX, on_row, &rows);
		lines_free(l);
	}
	unlink(path);
	return 0;
}
