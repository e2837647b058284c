/*
 * colxform.c - the column transform of heaptrace file images (colxform.h).
 *
 * One walk over the event grammar of heapstream.h serves both directions:
 * it moves each field from where it is read to where it goes.  Forward,
 * every field is read from the one event stream and goes to its column;
 * inverse, each field is read from its column and goes to the one rebuilt
 * stream.  The decisions (which fields an event has) depend only on the
 * bytes moved, so the inverse takes exactly the path the forward took.
 */
#include "experiment/colxform.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/varint.h"

enum { COL_HEAD, COL_ESC, COL_SIZE, COL_ADDR, COL_OLD, COL_REF, COL_ID, COL_TIME, NCOLS };

#define EVENT_ROOM (EXP_BLOCK_BYTES - EXP_BLOCK_HEADER_BYTES)

/*
 * Cursors of a walk.  Splitting (forward) reads every field from s[0] and
 * writes column f to d[f] (or only counts, with count_only); merging
 * (inverse) reads column f from s[f] and writes every field to d[0].
 */
struct walk {
	const uint8_t *s[NCOLS], *s_end[NCOLS];
	uint8_t *d[NCOLS], *d_end[NCOLS];
	size_t len[NCOLS]; /* bytes moved per column */
};

/* Move one field of column f: n bytes, or one varint (n 0, value in *v). 0 or -1. */
static inline __attribute__((always_inline)) int move(struct walk *w, int split, int count_only, int f,
						      size_t n, uint64_t *v)
{
	int si = split ? 0 : f, di = split ? f : 0;
	const uint8_t *s = w->s[si];
	if (n == 0) {
		const uint8_t *q = varint_get(s, w->s_end[si], v);
		if (!q)
			return -1;
		n = (size_t)(q - s);
	} else if ((size_t)(w->s_end[si] - s) < n) {
		return -1;
	}
	if (!count_only) {
		uint8_t *d = w->d[di];
		if ((size_t)(w->d_end[di] - d) < n)
			return -1;
		for (size_t i = 0; i < n; i++) /* fields are 1 to 10 bytes: no memcpy call */
			d[i] = s[i];
		w->d[di] = d + n;
	}
	w->s[si] = s + n;
	w->len[f] += n;
	return 0;
}

/*
 * Move events while the head source has bytes. 0, or -1 if a field does
 * not fit.  Inlined into three specialised callers below.
 */
static inline __attribute__((always_inline)) int walk_events(struct walk *w, int split, int count_only)
{
	uint64_t v;
	int hs = split ? 0 : COL_HEAD;
	while (w->s[hs] < w->s_end[hs]) {
		unsigned head = *w->s[hs], op = head & ((1u << EXP_HEAP_OP_BITS) - 1);
		if (move(w, split, count_only, COL_HEAD, 1, NULL) < 0)
			return -1;
		if (op == EXP_HEAP_TIME) {
			if (move(w, split, count_only, COL_TIME, 0, &v) < 0)
				return -1;
			continue;
		}
		if ((head >> EXP_HEAP_OP_BITS) == EXP_HEAP_SEQ_ESCAPE &&
		    move(w, split, count_only, COL_ESC, 0, &v) < 0)
			return -1;
		if (op != EXP_HEAP_FREE && move(w, split, count_only, COL_SIZE, 0, &v) < 0)
			return -1;
		if (move(w, split, count_only, COL_ADDR, 0, &v) < 0)
			return -1;
		if (op == EXP_HEAP_REALLOC && move(w, split, count_only, COL_OLD, 0, &v) < 0)
			return -1;
		if (op != EXP_HEAP_FREE && op != EXP_HEAP_MUNMAP) {
			if (move(w, split, count_only, COL_REF, 0, &v) < 0)
				return -1;
			if (v == EXP_STACKREF_ID && move(w, split, count_only, COL_ID, 8, NULL) < 0)
				return -1;
		}
	}
	return 0;
}

static int split_count(struct walk *w)
{
	return walk_events(w, 1, 1);
}

static int split_copy(struct walk *w)
{
	return walk_events(w, 1, 0);
}

static int merge(struct walk *w)
{
	return walk_events(w, 0, 0);
}

static int all_zero(const uint8_t *p, size_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* The COLUMNS unit of block b into out, or 0 if b does not split exactly. */
static size_t forward_columns(const uint8_t *b, uint8_t *out)
{
	if (le32_get(b + EXP_BH_MAGIC) != EXP_BLOCK_MAGIC)
		return 0;
	uint32_t used = le32_get(b + EXP_BH_USED);
	if (used > EVENT_ROOM)
		return 0;
	const uint8_t *ev = b + EXP_BLOCK_HEADER_BYTES;
	if (!all_zero(ev + used, EVENT_ROOM - used))
		return 0;
	struct walk w = {.s = {ev}, .s_end = {ev + used}};
	if (split_count(&w) < 0)
		return 0;
	size_t n = 0;
	out[n++] = COLX_UNIT_COLUMNS;
	memcpy(out + n, b, EXP_BLOCK_HEADER_BYTES);
	n += EXP_BLOCK_HEADER_BYTES;
	n += varint_put(out + n, w.len[COL_HEAD]);
	for (int f = 1; f < NCOLS; f++)
		n += varint_put(out + n, w.len[f]);
	for (int f = 0; f < NCOLS; f++) {
		w.d[f] = out + n;
		n += w.len[f];
		w.d_end[f] = out + n;
		w.len[f] = 0;
	}
	w.s[0] = ev;
	if (split_copy(&w) < 0)
		return 0; /* cannot happen: the same walk succeeded above */
	return n;
}

int colx_forward_begin(uint8_t *out)
{
	memcpy(out, COLX_MAGIC, COLX_MAGIC_BYTES);
	return COLX_MAGIC_BYTES;
}

int colx_forward_end(uint64_t image_bytes, uint8_t *out)
{
	out[0] = COLX_UNIT_END;
	return (int)(1 + varint_put(out + 1, image_bytes));
}

int colx_forward_unit(const uint8_t *data, size_t bytes, uint8_t *out)
{
	if (bytes == 0 || bytes > EXP_BLOCK_BYTES)
		return -EINVAL;
	if (bytes == EXP_BLOCK_BYTES) {
		if (all_zero(data, bytes)) {
			out[0] = COLX_UNIT_ZERO;
			return 1;
		}
		size_t n = forward_columns(data, out);
		if (n)
			return (int)n;
	}
	size_t n = 0;
	out[n++] = COLX_UNIT_VERBATIM;
	n += varint_put(out + n, bytes);
	memcpy(out + n, data, bytes);
	return (int)(n + bytes);
}

/* A unit's framing, as parse_unit finds it. */
struct unit {
	int type;
	const uint8_t *body;  /* VERBATIM: the piece; COLUMNS: the block header */
	size_t bytes;         /* the piece's bytes */
	size_t len[NCOLS];    /* COLUMNS: column lengths; columns follow the header */
	const uint8_t *cols;  /* COLUMNS: column 0 */
	uint64_t image_bytes; /* END: the image's size */
};

/* Read the unit at *pos and advance past it; 0 or -EBADMSG. Columns are not checked yet. */
static int parse_unit(const uint8_t **pos, const uint8_t *end, struct unit *u)
{
	const uint8_t *p = *pos;
	uint64_t v;
	if (p >= end)
		return -EBADMSG;
	u->type = *p++;
	switch (u->type) {
	case COLX_UNIT_END:
		if (!(p = varint_get(p, end, &v)))
			return -EBADMSG;
		u->bytes = 0;
		u->image_bytes = v;
		break;
	case COLX_UNIT_VERBATIM:
		if (!(p = varint_get(p, end, &v)) || v == 0 || v > EXP_BLOCK_BYTES || v > (uint64_t)(end - p))
			return -EBADMSG;
		u->body = p;
		u->bytes = (size_t)v;
		p += v;
		break;
	case COLX_UNIT_ZERO: u->bytes = EXP_BLOCK_BYTES; break;
	case COLX_UNIT_COLUMNS: {
		if (end - p < EXP_BLOCK_HEADER_BYTES)
			return -EBADMSG;
		u->body = p;
		u->bytes = EXP_BLOCK_BYTES;
		uint32_t used = le32_get(p + EXP_BH_USED);
		if (le32_get(p + EXP_BH_MAGIC) != EXP_BLOCK_MAGIC || used > EVENT_ROOM)
			return -EBADMSG;
		p += EXP_BLOCK_HEADER_BYTES;
		uint64_t total = 0;
		for (int f = 0; f < NCOLS; f++) {
			if (!(p = varint_get(p, end, &v)) || v > EVENT_ROOM)
				return -EBADMSG;
			u->len[f] = (size_t)v;
			total += v;
		}
		if (total != used || total > (uint64_t)(end - p))
			return -EBADMSG;
		u->cols = p;
		p += total;
		break;
	}
	default: return -EBADMSG;
	}
	*pos = p;
	return 0;
}

/* Rebuild the block of a parsed COLUMNS unit into out (EXP_BLOCK_BYTES). 0 or -EBADMSG. */
static int inverse_columns(const struct unit *u, uint8_t *out)
{
	uint32_t used = le32_get(u->body + EXP_BH_USED);
	memcpy(out, u->body, EXP_BLOCK_HEADER_BYTES);
	const uint8_t *c = u->cols;
	struct walk w = {.d = {out + EXP_BLOCK_HEADER_BYTES}, .d_end = {out + EXP_BLOCK_HEADER_BYTES + used}};
	for (int f = 0; f < NCOLS; f++) {
		w.s[f] = c;
		c += u->len[f];
		w.s_end[f] = c;
	}
	if (merge(&w) < 0)
		return -EBADMSG;
	for (int f = 0; f < NCOLS; f++)
		if (w.s[f] != w.s_end[f])
			return -EBADMSG;
	if (w.d[0] != w.d_end[0])
		return -EBADMSG;
	memset(w.d[0], 0, EVENT_ROOM - used);
	return 0;
}

int colx_inverse_unit(const uint8_t **pos, const uint8_t *end, uint8_t *out, size_t *out_bytes)
{
	const uint8_t *p = *pos;
	struct unit u;
	int r = parse_unit(&p, end, &u);
	if (r < 0)
		return r;
	switch (u.type) {
	case COLX_UNIT_END: return -EBADMSG;
	case COLX_UNIT_VERBATIM: memcpy(out, u.body, u.bytes); break;
	case COLX_UNIT_ZERO: memset(out, 0, u.bytes); break;
	default:
		if ((r = inverse_columns(&u, out)) < 0)
			return r;
		break;
	}
	*out_bytes = u.bytes;
	*pos = p;
	return 0;
}

int colx_is_transformed(const uint8_t *data, size_t bytes)
{
	return bytes >= COLX_MAGIC_BYTES && memcmp(data, COLX_MAGIC, COLX_MAGIC_BYTES) == 0;
}

int colx_inverse(const uint8_t *data, size_t bytes, size_t max_out, uint8_t **ret, size_t *ret_bytes)
{
	if (!colx_is_transformed(data, bytes))
		return -EBADMSG;
	const uint8_t *end = data + bytes, *p = data + COLX_MAGIC_BYTES, *stop;
	/* first the size, from the framing alone: one allocation, and -EFBIG before it */
	size_t total = 0;
	for (;;) {
		struct unit u;
		stop = p;
		if (parse_unit(&p, end, &u) < 0)
			return -EBADMSG; /* also when the END unit is missing */
		if (u.type == COLX_UNIT_END) {
			if (p != end || u.image_bytes != total)
				return -EBADMSG;
			break;
		}
		if (total % EXP_BLOCK_BYTES)
			return -EBADMSG;       /* only the last piece may be short */
		if (u.bytes > max_out - total) /* total <= max_out so far */
			return -EFBIG;
		total += u.bytes;
	}
	/* zeroed memory: a zero unit is left as it is, so unused blocks cost no memory */
	uint8_t *img = calloc(total ? total : 1, 1);
	if (!img)
		return -ENOMEM;
	size_t n = 0;
	for (p = data + COLX_MAGIC_BYTES; p < stop;) {
		size_t got;
		if (*p == COLX_UNIT_ZERO) {
			p++;
			n += EXP_BLOCK_BYTES;
			continue;
		}
		int r = colx_inverse_unit(&p, stop, img + n, &got);
		if (r < 0) {
			free(img);
			return r;
		}
		n += got;
	}
	*ret = img;
	*ret_bytes = n;
	return 0;
}
