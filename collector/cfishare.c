/*
 * cfishare.c - unwind tables shared between an experiment's processes
 * (contract in cfishare.h).
 *
 * The file: struct share_head, then pc_off[nrows] (uint32), rule[nrows]
 * (struct cfi_rule, 8 bytes), blk[nblk] (uint32); lo and hi as ELF
 * virtual addresses (run time minus the load bias).  Native byte order: a
 * file is only read on the machine that wrote it, during one collection.
 */
#include "collector/cfishare.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector/buildid.h"
#include "collector/fsize.h"

#define SHARE_MAGIC "PACFI01"

struct share_head {
	char magic[8];
	char key[CFISHARE_KEY_MAX];
	uint64_t lo, hi; /* ELF virtual addresses */
	uint32_t nrows, nblk;
	uint32_t nfde, unsupported, skipped, pad;
	uint64_t file_bytes;
};

_Static_assert(sizeof(struct cfi_rule) == 8, "the file's rule layout");
_Static_assert(sizeof(struct share_head) % 8 == 0, "the arrays after the header stay aligned");

static void hex64(char **p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[16];
	int n = 0;
	do {
		buf[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*(*p)++ = buf[--n];
}

int cfishare_key(const struct dl_phdr_info *info, const ElfW(Phdr) * eh, char *key, size_t room)
{
	char bid[2 * 64 + 1];
	buildid_of_object(info, bid, sizeof bid);
	size_t n = strlen(bid);
	if (!eh || n < 2 || n + 2 * 17 + 1 > room)
		return -ENOENT;
	char *p = key;
	memcpy(p, bid, n);
	p += n;
	*p++ = '-';
	hex64(&p, (uint64_t)eh->p_vaddr);
	*p++ = '-';
	hex64(&p, (uint64_t)eh->p_memsz);
	*p = '\0';
	return 0;
}

/* EXP/.unwind/KEY.cfi (suffix: extra characters after it, for a temporary name) into path. */
static int share_path(const char *exp, const char *key, const char *suffix, char *path, size_t room)
{
	size_t a = strlen(exp), b = strlen(key), c = strlen(suffix);
	size_t need = a + 1 + sizeof CFISHARE_DIR - 1 + 1 + b + 4 + c + 1;
	if (!exp[0] || need > room)
		return -ENAMETOOLONG;
	char *p = path;
	memcpy(p, exp, a);
	p += a;
	*p++ = '/';
	memcpy(p, CFISHARE_DIR, sizeof CFISHARE_DIR - 1);
	p += sizeof CFISHARE_DIR - 1;
	*p++ = '/';
	memcpy(p, key, b);
	p += b;
	memcpy(p, ".cfi", 4);
	p += 4;
	memcpy(p, suffix, c + 1);
	return 0;
}

static uint64_t file_size(uint32_t nrows, uint32_t nblk)
{
	return sizeof(struct share_head) + (uint64_t)nrows * (4 + sizeof(struct cfi_rule)) +
	       (uint64_t)nblk * 4;
}

int cfishare_load(const char *exp, const char *key, uint64_t bias, struct cfi_table *t, void **map,
		  size_t *map_bytes)
{
	char path[PATH_MAX];
	if (share_path(exp, key, "", path, sizeof path) < 0)
		return -ENOENT;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -ENOENT;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof(struct share_head)) {
		close(fd);
		return -EBADMSG;
	}
	size_t bytes = (size_t)st.st_size;
	void *m = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -EBADMSG;
	const struct share_head *h = m;
	const uint8_t *base = m;
	int ok = memcmp(h->magic, SHARE_MAGIC, sizeof h->magic) == 0 &&
		 strncmp(h->key, key, sizeof h->key) == 0 && h->key[sizeof h->key - 1] == '\0' &&
		 h->nrows >= 1 && h->hi > h->lo && h->hi - h->lo <= (1ull << 30) &&
		 h->nblk == (uint32_t)((h->hi - h->lo + 255) / 256) && h->file_bytes == bytes &&
		 file_size(h->nrows, h->nblk) == bytes;
	const uint32_t *pc_off = (const uint32_t *)(const void *)(base + sizeof *h);
	const struct cfi_rule *rule = (const struct cfi_rule *)(const void *)(pc_off + (ok ? h->nrows : 0));
	const uint32_t *blk = (const uint32_t *)(const void *)(rule + (ok ? h->nrows : 0));
	/* what cfi_lookup indexes with: every block names a row */
	for (uint32_t b = 0; ok && b < h->nblk; b++)
		ok = blk[b] < h->nrows;
	if (!ok) {
		munmap(m, bytes);
		return -EBADMSG;
	}
	*t = (struct cfi_table){.lo = bias + h->lo,
				.hi = bias + h->hi,
				.nrows = h->nrows,
				.pc_off = pc_off,
				.rule = rule,
				.blk = blk,
				.nblk = h->nblk,
				.nfde = h->nfde,
				.unsupported = h->unsupported,
				.skipped = h->skipped,
				.bytes = 0}; /* not the process's own memory */
	*map = m;
	*map_bytes = bytes;
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *b = p;
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

void cfishare_store(const char *exp, const char *key, uint64_t bias, const struct cfi_table *t)
{
	char path[PATH_MAX], tmp[PATH_MAX], dir[PATH_MAX];
	/* never past the target's file size limit: SIGXFSZ would be the program's */
	if (!t->nrows || t->lo < bias || strlen(key) >= CFISHARE_KEY_MAX ||
	    !fsize_allows(file_size(t->nrows, t->nblk)) || share_path(exp, key, "", path, sizeof path) < 0)
		return;
	/* a name of this process's own: several may write the same table at once */
	char suffix[40] = ".tmp.";
	char *p = suffix + strlen(suffix);
	hex64(&p, (uint64_t)getpid());
	*p = '\0';
	if (share_path(exp, key, suffix, tmp, sizeof tmp) < 0)
		return;
	memcpy(dir, path, strlen(path) + 1);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return;
	struct share_head h = {.lo = t->lo - bias,
			       .hi = t->hi - bias,
			       .nrows = t->nrows,
			       .nblk = t->nblk,
			       .nfde = t->nfde,
			       .unsupported = t->unsupported,
			       .skipped = t->skipped,
			       .file_bytes = file_size(t->nrows, t->nblk)};
	memcpy(h.magic, SHARE_MAGIC, sizeof h.magic);
	memcpy(h.key, key, strlen(key) + 1);
	int bad = write_all(fd, &h, sizeof h) < 0 || write_all(fd, t->pc_off, (size_t)t->nrows * 4) < 0 ||
		  write_all(fd, t->rule, (size_t)t->nrows * sizeof(struct cfi_rule)) < 0 ||
		  write_all(fd, t->blk, (size_t)t->nblk * 4) < 0;
	if (close(fd) < 0 || bad || rename(tmp, path) < 0)
		unlink(tmp);
}
