/*
 * lines_cache.c - the on-disk index of one DWARF file's line and inline
 * tables (contract in lines_internal.h; the format in
 * docs/experiment-format.md, "Line index files").
 *
 * The file is the tables of a struct lines laid out one after another, each
 * 8-aligned, behind a header that names the DWARF file it was built from
 * (device, inode, size, modification and change times) and the offset and
 * count of each table.  A reader maps it read-only and looks addresses up
 * in place, so a report touches only the pages of the rows and intervals it
 * asks for.  Nothing read is trusted: the header's tables must lie inside the
 * file, each CU's slices inside the tables, the string blob must end with a
 * NUL, and a checksum covers the header, the CU table and the strings; the
 * lookups check every index they follow (lines.c).  The big tables (rows,
 * ranges, intervals) are not checksummed, so as not to read them whole: a
 * damaged one gives wrong lines, never a wild read.
 *
 * Writers write a temporary file in the same directory and rename it into
 * place: a reader sees the old file or the new one, whole, and two writers
 * racing leave one of two equal files.  Nothing here prints or exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/lines_internal.h"
#include "common/arena.h"
#include "common/fsops.h"
#include "common/regfile.h"

#define LC_MAGIC "PALINES\0"
#define LC_SUFFIX ".lines"

#define FNV_INIT 0xcbf29ce484222325ull

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

void lines_source_id_init(struct lines_source_id *id, const struct elf_file *src, const char *src_path,
			  const struct stat *st)
{
	memset(id, 0, sizeof(*id));
	if (src->build_id && src->build_id_len >= 2 && src->build_id_len <= ELF_BUILD_ID_MAX) {
		elf_hex_encode(src->build_id, src->build_id_len, id->key);
	} else {
		uint64_t h = fnv(FNV_INIT, src_path, strlen(src_path));
		snprintf(id->key, sizeof(id->key), "p%016llx", (unsigned long long)h);
	}
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	id->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

static int index_path(const char *dir, const struct lines_source_id *id, char *ret, size_t room)
{
	int n = snprintf(ret, room, "%s/%s" LC_SUFFIX, dir, id->key);
	return n > 0 && (size_t)n < room ? 0 : -ENAMETOOLONG;
}

/* ------------------------------------------------------------------ reading */

/* Does the table of n elements of size sz at off lie inside a file of len bytes (8-aligned)? */
static bool table_ok(uint64_t off, uint64_t n, size_t sz, uint64_t len)
{
	return off % 8 == 0 && off <= len && n <= (len - off) / sz;
}

static bool slice_ok(uint32_t at, uint32_t n, uint64_t total)
{
	return (uint64_t)at + n <= total;
}

static uint64_t blocks_of(uint64_t n)
{
	return n / LINES_INDEX_BLOCK + (n % LINES_INDEX_BLOCK != 0);
}

/* The tables checked block by block: their counts (h's), element sizes and offsets. */
static void checked_tables(const struct lines_index_header *h, uint64_t n[LINES_NTABLES],
			   size_t elem[LINES_NTABLES], uint64_t off[LINES_NTABLES])
{
	n[LINES_T_ROWS] = h->nrows;
	elem[LINES_T_ROWS] = sizeof(struct lines_row);
	off[LINES_T_ROWS] = h->off_rows;
	n[LINES_T_INST] = h->ninst;
	elem[LINES_T_INST] = sizeof(struct lines_inst);
	off[LINES_T_INST] = h->off_inst;
	n[LINES_T_RG] = h->nrg;
	elem[LINES_T_RG] = sizeof(struct lines_irange);
	off[LINES_T_RG] = h->off_rg;
	n[LINES_T_IV] = h->niv;
	elem[LINES_T_IV] = sizeof(struct lines_ival);
	off[LINES_T_IV] = h->off_iv;
	n[LINES_T_POOL] = h->npool;
	elem[LINES_T_POOL] = sizeof(uint32_t);
	off[LINES_T_POOL] = h->off_pool;
}

/* The block sums' count (tables over 2^32 elements count none: the header is refused). */
static uint64_t sums_count(const struct lines_index_header *h)
{
	uint64_t n[LINES_NTABLES], off[LINES_NTABLES], total = 0;
	size_t elem[LINES_NTABLES];
	checked_tables(h, n, elem, off);
	for (int t = 0; t < LINES_NTABLES; t++)
		total += blocks_of(n[t] > UINT32_MAX ? 0 : n[t]);
	return total;
}

uint64_t lines_block_sum(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, sizeof(w));
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

bool lines_block_ok(struct lines *l, int t, const void *elem)
{
	if (!l->map)
		return true;
	struct lines_table_check *c = &l->check[t];
	if (!c->base || (const uint8_t *)elem < c->base)
		return false;
	size_t i = (size_t)((const uint8_t *)elem - c->base) / c->elem;
	if (i >= c->count)
		return false;
	size_t b = i / LINES_INDEX_BLOCK;
	if (c->verified[b / 8] & (1u << (b % 8)))
		return true;
	size_t first = b * LINES_INDEX_BLOCK;
	size_t n = c->count - first < LINES_INDEX_BLOCK ? c->count - first : LINES_INDEX_BLOCK;
	if (lines_block_sum(c->base + first * c->elem, n * c->elem) != c->sums[b])
		return false;
	c->verified[b / 8] |= (uint8_t)(1u << (b % 8));
	return true;
}

/* The block checks of l's index tables; 0 or -ENOMEM. */
static int setup_checks(struct lines *l, const struct lines_index_header *h, const uint8_t *base)
{
	uint64_t n[LINES_NTABLES], off[LINES_NTABLES];
	size_t elem[LINES_NTABLES];
	checked_tables(h, n, elem, off);
	const uint64_t *sums = (const uint64_t *)(const void *)(base + h->off_sums);
	for (int t = 0; t < LINES_NTABLES; t++) {
		struct lines_table_check *c = &l->check[t];
		uint64_t nb = blocks_of(n[t]);
		c->base = base + off[t];
		c->elem = elem[t];
		c->count = n[t];
		c->sums = sums;
		c->verified = calloc(nb / 8 + 1, 1);
		if (!c->verified)
			return -ENOMEM;
		sums += nb;
	}
	return 0;
}

/* Do the header's tables lie inside a file of len bytes, with counts the lookups can index? */
static bool tables_ok(const struct lines_index_header *h, uint64_t len)
{
	return table_ok(h->off_rows, h->nrows, sizeof(struct lines_row), len) &&
	       table_ok(h->off_cur, h->ncur, sizeof(struct lines_cu_range), len) &&
	       table_ok(h->off_cus, h->ncus, sizeof(struct lines_index_cu), len) &&
	       table_ok(h->off_inst, h->ninst, sizeof(struct lines_inst), len) &&
	       table_ok(h->off_rg, h->nrg, sizeof(struct lines_irange), len) &&
	       table_ok(h->off_iv, h->niv, sizeof(struct lines_ival), len) &&
	       table_ok(h->off_pool, h->npool, sizeof(uint32_t), len) &&
	       table_ok(h->off_stroff, h->nstr, sizeof(uint32_t), len) && h->off_blob <= len &&
	       h->blob_len <= len - h->off_blob && h->blob_len > 0 && h->nstr > 0 &&
	       h->blob_len <= UINT32_MAX && h->ninst <= UINT32_MAX && h->nrg <= UINT32_MAX &&
	       h->niv <= UINT32_MAX && h->npool <= UINT32_MAX &&
	       table_ok(h->off_sums, sums_count(h), sizeof(uint64_t), len);
}

int lines_cache_check_header(const struct lines_index_header *h, const struct lines_source_id *id,
			     uint64_t len)
{
	if (memcmp(h->magic, LC_MAGIC, sizeof(h->magic)) != 0)
		return -EBADMSG;
	if (h->version != LINES_INDEX_VERSION || h->header_size != sizeof(*h))
		return -ESTALE;
	if (h->file_size != len)
		return -EBADMSG;
	if (h->dev != id->dev || h->ino != id->ino || h->size != id->size || h->mtime_ns != id->mtime_ns ||
	    h->ctime_ns != id->ctime_ns)
		return -ESTALE;
	return tables_ok(h, len) ? 0 : -EBADMSG;
}

uint64_t lines_cache_checksum(const struct lines_index_header *h, const uint8_t *base)
{
	uint64_t s = fnv(FNV_INIT, base + h->off_cus, h->ncus * sizeof(struct lines_index_cu));
	s = fnv(s, base + h->off_sums, sums_count(h) * sizeof(uint64_t));
	s = fnv(s, base + h->off_stroff, h->nstr * sizeof(uint32_t));
	s = fnv(s, base + h->off_blob, h->blob_len);
	struct lines_index_header c = *h;
	c.checksum = 0;
	return fnv(s, &c, sizeof(c));
}

/* The CUs of l from the file's CU table; 0 or -EBADMSG / -ENOMEM. */
static int load_cus(struct lines *l, const struct lines_index_header *h, const uint8_t *base)
{
	const struct lines_index_cu *fc = (const struct lines_index_cu *)(base + h->off_cus);
	l->cus = calloc(h->ncus ? h->ncus : 1, sizeof(*l->cus));
	if (!l->cus)
		return -ENOMEM;
	l->ncus = h->ncus;
	const struct lines_inst *inst = (const void *)(base + h->off_inst);
	const struct lines_irange *rg = (const void *)(base + h->off_rg);
	const struct lines_ival *iv = (const void *)(base + h->off_iv);
	const uint32_t *pool = (const void *)(base + h->off_pool);
	for (size_t i = 0; i < h->ncus; i++) {
		const struct lines_index_cu *c = &fc[i];
		if (!slice_ok(c->inst, c->ninst, h->ninst) || !slice_ok(c->rg, c->nrg, h->nrg) ||
		    !slice_ok(c->iv, c->niv, h->niv) || !slice_ok(c->pool, c->npool, h->npool))
			return -EBADMSG;
		struct lines_cu *cu = &l->cus[i];
		cu->comp_dir = LINES_NO_STR;
		cu->state = c->indexed ? LINES_CU_INDEXED : LINES_CU_FAILED;
		cu->inl = (struct lines_cu_inlines){
			.inst = inst + c->inst,
			.ninst = c->ninst,
			.rg = rg + c->rg,
			.nrg = c->nrg,
			.iv = iv + c->iv,
			.niv = c->niv,
			.pool = pool + c->pool,
			.npool = c->npool,
		};
	}
	return 0;
}

int lines_cache_load(const char *dir, const struct lines_source_id *id, struct lines **ret)
{
	char path[PATH_MAX];
	int r = index_path(dir, id, path, sizeof(path));
	if (r < 0)
		return r;
	struct stat st;
	int fd = regfile_open(path, &st);
	if (fd < 0)
		return fd == -ENOENT ? -ENOENT : -EBADMSG;
	if ((uint64_t)st.st_size < sizeof(struct lines_index_header)) {
		close(fd);
		return -EBADMSG;
	}
	size_t len = (size_t)st.st_size;
	void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -EBADMSG;
	const uint8_t *base = map;
	const struct lines_index_header *h = map;
	struct lines *l = NULL;
	if ((r = lines_cache_check_header(h, id, len)) < 0)
		goto fail;
	r = -EBADMSG;
	if (lines_cache_checksum(h, base) != h->checksum || base[h->off_blob + h->blob_len - 1] != '\0')
		goto fail;
	r = -ENOMEM;
	if (!(l = calloc(1, sizeof(*l))))
		goto fail;
	l->fd = -1;
	l->alt.fd = -1;
	l->map = map;
	l->map_len = len;
	l->rows = (struct lines_row *)(void *)(base + h->off_rows);
	l->nrows = h->nrows;
	l->cur = (struct lines_cu_range *)(void *)(base + h->off_cur);
	l->ncur = h->ncur;
	l->str_off = (const uint32_t *)(const void *)(base + h->off_stroff);
	l->nstr = h->nstr;
	l->blob = (const char *)base + h->off_blob;
	l->blob_len = h->blob_len;
	if ((r = load_cus(l, h, base)) < 0 || (r = setup_checks(l, h, base)) < 0)
		goto fail;
	r = -ENOMEM;
	if (!(l->index_file = arena_strndup(&l->arena, path, strlen(path))))
		goto fail;
	l->debug_file = "";
	*ret = l;
	return 0;
fail:
	if (l)
		lines_free(l); /* unmaps */
	else
		munmap(map, len);
	return r;
}

/* ------------------------------------------------------------------ writing */

struct writer {
	int fd;
	uint64_t off;
	uint64_t sum; /* the checksum of what is written while summing (from FNV_INIT) */
	bool summing;
	int err;
	/* the block sums of the table being written (blk_size 0: none) */
	size_t blk_size, blk_n;
	uint64_t *sums;
	size_t nsums, sums_cap;
	uint8_t blk[LINES_INDEX_BLOCK * sizeof(struct lines_row)];
	size_t n;
	uint8_t buf[1 << 16];
};

static void w_flush(struct writer *w)
{
	size_t done = 0;
	while (!w->err && done < w->n) {
		ssize_t k = write(w->fd, w->buf + done, w->n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			w->err = k < 0 ? -errno : -EIO;
		else
			done += (size_t)k;
	}
	w->n = 0;
}

/* Close the block being summed (a table's last one may be short). */
static void blk_close(struct writer *w)
{
	if (!w->blk_n)
		return;
	if (w->nsums == w->sums_cap) {
		size_t cap = w->sums_cap ? 2 * w->sums_cap : 1024;
		uint64_t *v = realloc(w->sums, cap * sizeof(*v));
		if (!v) {
			w->err = -ENOMEM;
			w->blk_n = 0;
			return;
		}
		w->sums = v;
		w->sums_cap = cap;
	}
	w->sums[w->nsums++] = lines_block_sum(w->blk, w->blk_n);
	w->blk_n = 0;
}

static void blk_feed(struct writer *w, const uint8_t *b, size_t n)
{
	while (n) {
		size_t k = w->blk_size - w->blk_n < n ? w->blk_size - w->blk_n : n;
		memcpy(w->blk + w->blk_n, b, k);
		w->blk_n += k;
		b += k;
		n -= k;
		if (w->blk_n == w->blk_size)
			blk_close(w);
	}
}

/* Sum what follows in blocks of LINES_INDEX_BLOCK elements of elem bytes (0: stop, closing the last). */
static void w_blocks(struct writer *w, size_t elem)
{
	blk_close(w);
	w->blk_size = elem * LINES_INDEX_BLOCK;
	w->blk_n = 0;
}

static void w_put(struct writer *w, const void *p, size_t n)
{
	const uint8_t *b = p;
	if (w->summing)
		w->sum = fnv(w->sum, p, n);
	if (w->blk_size)
		blk_feed(w, p, n);
	w->off += n;
	while (n && !w->err) {
		size_t k = sizeof(w->buf) - w->n < n ? sizeof(w->buf) - w->n : n;
		memcpy(w->buf + w->n, b, k);
		w->n += k;
		b += k;
		n -= k;
		if (w->n == sizeof(w->buf))
			w_flush(w);
	}
}

/* Pad to 8 and return the offset the next table starts at. */
static uint64_t w_align(struct writer *w)
{
	static const uint8_t zero[8];
	if (w->off % 8)
		w_put(w, zero, 8 - w->off % 8);
	return w->off;
}

static const char *str_of(const struct lines *l, size_t i)
{
	return l->strv[i];
}

/* Every table after the header; fills h's counts and offsets. */
static void write_tables(struct writer *w, const struct lines *l, struct lines_index_header *h)
{
	h->nrows = l->nrows;
	h->off_rows = w_align(w);
	w_blocks(w, sizeof(struct lines_row));
	for (size_t i = 0; i < l->nrows; i++) {
		struct lines_row r = l->rows[i];
		r.ord = 0;
		w_put(w, &r, sizeof(r));
	}
	w_blocks(w, 0);
	h->ncur = l->ncur;
	h->off_cur = w_align(w);
	w_put(w, l->cur, l->ncur * sizeof(*l->cur));
	/* the CUs' slices, then the slices themselves table by table */
	h->ncus = l->ncus;
	h->off_cus = w_align(w);
	w->summing = true;
	struct lines_index_cu c = {0};
	for (size_t i = 0; i < l->ncus; i++) {
		const struct lines_cu_inlines *ci = &l->cus[i].inl;
		c.indexed = l->cus[i].state == LINES_CU_INDEXED;
		c.ninst = (uint32_t)ci->ninst;
		c.nrg = (uint32_t)ci->nrg;
		c.niv = (uint32_t)ci->niv;
		c.npool = (uint32_t)ci->npool;
		w_put(w, &c, sizeof(c));
		c.inst += c.ninst;
		c.rg += c.nrg;
		c.iv += c.niv;
		c.pool += c.npool;
	}
	w->summing = false;
	h->ninst = c.inst;
	h->nrg = c.rg;
	h->niv = c.iv;
	h->npool = c.pool;
	h->off_inst = w_align(w);
	w_blocks(w, sizeof(struct lines_inst));
	for (size_t i = 0; i < l->ncus; i++)
		w_put(w, l->cus[i].inl.inst, l->cus[i].inl.ninst * sizeof(struct lines_inst));
	w_blocks(w, 0);
	h->off_rg = w_align(w);
	w_blocks(w, sizeof(struct lines_irange));
	for (size_t i = 0; i < l->ncus; i++)
		w_put(w, l->cus[i].inl.rg, l->cus[i].inl.nrg * sizeof(struct lines_irange));
	w_blocks(w, 0);
	h->off_iv = w_align(w);
	w_blocks(w, sizeof(struct lines_ival));
	for (size_t i = 0; i < l->ncus; i++)
		w_put(w, l->cus[i].inl.iv, l->cus[i].inl.niv * sizeof(struct lines_ival));
	w_blocks(w, 0);
	h->off_pool = w_align(w);
	w_blocks(w, sizeof(uint32_t));
	for (size_t i = 0; i < l->ncus; i++)
		w_put(w, l->cus[i].inl.pool, l->cus[i].inl.npool * sizeof(uint32_t));
	w_blocks(w, 0);
	/* the block sums of those five tables */
	h->off_sums = w_align(w);
	w->summing = true;
	w_put(w, w->sums, w->nsums * sizeof(*w->sums));
	w->summing = false;
	/* strings: offsets, then the blob */
	h->nstr = l->nstrv;
	h->off_stroff = w_align(w);
	w->summing = true;
	uint64_t at = 0;
	for (size_t i = 0; i < l->nstrv; i++) {
		uint32_t o = (uint32_t)at;
		w_put(w, &o, sizeof(o));
		at += strlen(str_of(l, i)) + 1;
	}
	w->summing = false;
	h->blob_len = at;
	h->off_blob = w_align(w);
	w->summing = true;
	for (size_t i = 0; i < l->nstrv; i++)
		w_put(w, str_of(l, i), strlen(str_of(l, i)) + 1);
	w->summing = false;
	if (at > UINT32_MAX && !w->err)
		w->err = -E2BIG;
}

int lines_cache_store(const char *dir, const struct lines_source_id *id, const struct lines *l)
{
	if (!l || l->map)
		return -EINVAL;
	char path[PATH_MAX], tmp[PATH_MAX];
	int r = index_path(dir, id, path, sizeof(path));
	if (r < 0)
		return r;
	int n = snprintf(tmp, sizeof(tmp), "%s/.%s" LC_SUFFIX ".XXXXXX", dir, id->key);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	if ((r = fsops_mkdir_p(dir, 0, 0755, NULL)) < 0)
		return r;
	struct writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->sum = FNV_INIT;
	w->fd = mkostemp(tmp, O_CLOEXEC);
	if (w->fd < 0) {
		r = -errno;
		free(w->sums);
		free(w);
		return r;
	}
	struct lines_index_header h = {0};
	w_put(w, &h, sizeof(h)); /* filled in below */
	write_tables(w, l, &h);
	w_flush(w);
	memcpy(h.magic, LC_MAGIC, sizeof(h.magic));
	h.version = LINES_INDEX_VERSION;
	h.header_size = sizeof(h);
	h.file_size = w->off;
	h.dev = id->dev;
	h.ino = id->ino;
	h.size = id->size;
	h.mtime_ns = id->mtime_ns;
	h.ctime_ns = id->ctime_ns;
	struct lines_index_header c = h;
	c.checksum = 0;
	h.checksum = fnv(w->sum, &c, sizeof(c)); /* after the tables write_tables summed */
	r = w->err;
	if (r == 0 && pwrite(w->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		r = -EIO;
	if (r == 0 && fchmod(w->fd, 0644) < 0)
		r = -errno;
	if (r == 0 &&
	    fdatasync(w->fd) < 0) /* the data on disk before the name: no hollow index after a crash */
		r = -errno;
	if (close(w->fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	free(w->sums);
	free(w);
	return r;
}
