/*
 * metrics.c - exclusive/inclusive/attributed accumulation and the call tree.
 * Work per stack is linear in its depth; inclusive de-duplication uses a
 * per-function stamp (the stack's sequence number), not a search.
 */
#include "analysis/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"

struct edge_list {
	uint32_t n, cap;
	struct metrics_edge *e;
};

struct metrics {
	size_t nm;
	uint32_t root;
	enum metrics_keep keep;
	uint32_t nfuncs, cap;  /* per-function arrays */
	uint64_t *excl, *incl; /* cap * nm */
	uint32_t *stamp;       /* last stack that added to incl */
	uint32_t *innermost;   /* position of the innermost occurrence in the current stack */
	uint8_t *seen;
	struct edge_list *callers, *callees;
	struct u64map edge_index; /* (F << 32 | G) * 2 + dir -> index into the list of F */
	uint64_t *total;
	uint64_t *zero; /* nm zeros: the value of a function never seen */
	uint32_t seq;
	/* value storage for edges and tree nodes: chunks of nm values */
	uint64_t **chunks;
	size_t nchunks, chunk_used;
	/* call tree */
	struct metrics_node *nodes;
	uint32_t nnodes, nodes_cap;
	struct u64map child_index; /* (parent << 32 | func) -> node */
	uint32_t *path;            /* scratch: frames with the root */
	size_t path_cap;
};

#define CHUNK_VECTORS 4096

static uint64_t *alloc_values(struct metrics *m)
{
	if (!m->nchunks || m->chunk_used == CHUNK_VECTORS) {
		uint64_t **c = realloc(m->chunks, (m->nchunks + 1) * sizeof *c);
		if (!c)
			return NULL;
		m->chunks = c;
		c[m->nchunks] = calloc(CHUNK_VECTORS * (m->nm ? m->nm : 1), sizeof(uint64_t));
		if (!c[m->nchunks])
			return NULL;
		m->nchunks++;
		m->chunk_used = 0;
	}
	return m->chunks[m->nchunks - 1] + m->nm * m->chunk_used++;
}

static int ensure_funcs(struct metrics *m, uint32_t f)
{
	if (f < m->cap) {
		if (f >= m->nfuncs)
			m->nfuncs = f + 1;
		return 0;
	}
	uint32_t cap = m->cap ? m->cap : 256;
	while (cap <= f)
		cap *= 2;
	size_t nm = m->nm ? m->nm : 1; /* no metrics: still a valid (unused) vector per function */
	uint64_t *excl = realloc(m->excl, cap * nm * sizeof *excl);
	if (excl)
		m->excl = excl;
	uint64_t *incl = realloc(m->incl, cap * nm * sizeof *incl);
	if (incl)
		m->incl = incl;
	uint32_t *stamp = realloc(m->stamp, cap * sizeof *stamp);
	if (stamp)
		m->stamp = stamp;
	uint32_t *inner = realloc(m->innermost, cap * sizeof *inner);
	if (inner)
		m->innermost = inner;
	uint8_t *seen = realloc(m->seen, cap);
	if (seen)
		m->seen = seen;
	struct edge_list *cl = realloc(m->callers, cap * sizeof *cl);
	if (cl)
		m->callers = cl;
	struct edge_list *ce = realloc(m->callees, cap * sizeof *ce);
	if (ce)
		m->callees = ce;
	if (!excl || !incl || !stamp || !inner || !seen || !cl || !ce)
		return -ENOMEM;
	size_t old = m->cap;
	memset(m->excl + old * nm, 0, (cap - old) * nm * sizeof *excl);
	memset(m->incl + old * nm, 0, (cap - old) * nm * sizeof *incl);
	memset(m->stamp + old, 0, (cap - old) * sizeof *stamp);
	memset(m->seen + old, 0, cap - old);
	memset(m->callers + old, 0, (cap - old) * sizeof *cl);
	memset(m->callees + old, 0, (cap - old) * sizeof *ce);
	m->cap = cap;
	m->nfuncs = f + 1;
	return 0;
}

static uint32_t new_node(struct metrics *m, uint32_t func, uint32_t parent)
{
	if (m->nnodes == m->nodes_cap) {
		uint32_t cap = m->nodes_cap ? m->nodes_cap * 2 : 1024;
		struct metrics_node *n = realloc(m->nodes, cap * sizeof *n);
		if (!n)
			return UINT32_MAX;
		m->nodes = n;
		m->nodes_cap = cap;
	}
	uint64_t *v = alloc_values(m);
	if (!v)
		return UINT32_MAX;
	uint32_t i = m->nnodes++;
	struct metrics_node *n = &m->nodes[i];
	n->func = func;
	n->parent = parent;
	n->first_child = UINT32_MAX;
	n->next_sibling = UINT32_MAX;
	n->depth = parent == UINT32_MAX ? 0 : m->nodes[parent].depth + 1;
	n->values = v;
	if (parent != UINT32_MAX) {
		n->next_sibling = m->nodes[parent].first_child;
		m->nodes[parent].first_child = i;
	}
	return i;
}

struct metrics *metrics_new(size_t nmetrics, uint32_t root_func, enum metrics_keep keep)
{
	struct metrics *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->nm = nmetrics;
	m->keep = keep;
	m->root = root_func;
	u64map_init(&m->edge_index);
	u64map_init(&m->child_index);
	m->total = calloc(nmetrics ? nmetrics : 1, sizeof *m->total);
	m->zero = calloc(nmetrics ? nmetrics : 1, sizeof *m->zero);
	if (!m->total || !m->zero || ensure_funcs(m, root_func) < 0 ||
	    new_node(m, root_func, UINT32_MAX) != 0) {
		metrics_free(m);
		return NULL;
	}
	m->seen[root_func] = 1;
	return m;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	for (uint32_t f = 0; f < m->cap && m->callers; f++) {
		free(m->callers[f].e);
		free(m->callees[f].e);
	}
	free(m->callers);
	free(m->callees);
	free(m->excl);
	free(m->incl);
	free(m->stamp);
	free(m->innermost);
	free(m->seen);
	free(m->total);
	free(m->zero);
	for (size_t i = 0; i < m->nchunks; i++)
		free(m->chunks[i]);
	free(m->chunks);
	free(m->nodes);
	free(m->path);
	u64map_release(&m->edge_index);
	u64map_release(&m->child_index);
	free(m);
}

static uint64_t *edge_values(struct metrics *m, uint32_t f, uint32_t g, int dir)
{
	uint64_t key = (((uint64_t)f << 32) | g) * 2 + (uint64_t)dir;
	struct edge_list *l = dir ? &m->callees[f] : &m->callers[f];
	int64_t i = u64map_get(&m->edge_index, key);
	if (i >= 0)
		return (uint64_t *)l->e[i].values;
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 4;
		struct metrics_edge *e = realloc(l->e, cap * sizeof *e);
		if (!e)
			return NULL;
		l->e = e;
		l->cap = cap;
	}
	uint64_t *v = alloc_values(m);
	if (!v || u64map_put(&m->edge_index, key, l->n) < 0)
		return NULL;
	l->e[l->n].func = g;
	l->e[l->n].values = v;
	l->n++;
	return v;
}

static void add_vec(uint64_t *dst, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] += v[i];
}

/* The attributed edges of a stack (path: leaf first, the root last). */
static int add_edges(struct metrics *m, const uint32_t *path, size_t len, const uint64_t *values)
{
	size_t nm = m->nm;
	for (size_t i = 0; i < len; i++) {
		uint32_t f = path[i];
		if (m->innermost[f] != i)
			continue;
		if (i + 1 < len) {
			uint64_t *v = edge_values(m, f, path[i + 1], 0);
			if (!v)
				return -ENOMEM;
			add_vec(v, values, nm);
		}
		if (i > 0) {
			uint64_t *v = edge_values(m, f, path[i - 1], 1);
			if (!v)
				return -ENOMEM;
			add_vec(v, values, nm);
		}
	}
	return 0;
}

/* The call tree's nodes along a stack, from the root down. */
static int add_tree_path(struct metrics *m, const uint32_t *path, size_t len, const uint64_t *values)
{
	size_t nm = m->nm;
	uint32_t node = 0;
	add_vec((uint64_t *)m->nodes[0].values, values, nm);
	for (size_t i = len - 1; i-- > 0;) {
		uint64_t key = ((uint64_t)node << 32) | path[i];
		int64_t c = u64map_get(&m->child_index, key);
		if (c < 0) {
			uint32_t nn = new_node(m, path[i], node);
			if (nn == UINT32_MAX || u64map_put(&m->child_index, key, nn) < 0)
				return -ENOMEM;
			c = nn;
		}
		node = (uint32_t)c;
		add_vec((uint64_t *)m->nodes[node].values, values, nm);
	}
	return 0;
}

int metrics_add_stack(struct metrics *m, const uint32_t *funcs, size_t n, const uint64_t *values)
{
	size_t nm = m->nm;
	if (n + 1 > m->path_cap) {
		size_t cap = (n + 1) * 2;
		uint32_t *p = realloc(m->path, cap * sizeof *p);
		if (!p)
			return -ENOMEM;
		m->path = p;
		m->path_cap = cap;
	}
	uint32_t *path = m->path;
	for (size_t i = 0; i < n; i++) {
		path[i] = funcs[i];
		if (ensure_funcs(m, funcs[i]) < 0)
			return -ENOMEM;
	}
	path[n] = m->root;
	size_t len = n + 1;
	add_vec(m->total, values, nm);

	if (++m->seq == 0) { /* stamps wrapped: reset them */
		memset(m->stamp, 0, m->cap * sizeof *m->stamp);
		m->seq = 1;
	}
	/* exclusive: the leaf (the root only when the stack is empty) */
	add_vec(m->excl + (size_t)path[0] * nm, values, nm);
	/* find each unique function's innermost position (leaf = 0) */
	for (size_t i = 0; i < len; i++) {
		uint32_t f = path[i];
		if (m->stamp[f] != m->seq) {
			m->stamp[f] = m->seq;
			m->innermost[f] = (uint32_t)i;
			m->seen[f] = 1;
			add_vec(m->incl + (size_t)f * nm, values, nm);
		}
	}
	if (m->keep & METRICS_EDGES && add_edges(m, path, len, values) < 0)
		return -ENOMEM;
	if (m->keep & METRICS_TREE)
		return add_tree_path(m, path, len, values);
	add_vec((uint64_t *)m->nodes[0].values, values, nm);
	return 0;
}

static void ratio_of(uint64_t *v, size_t k, size_t num, size_t den)
{
	v[k] = v[den] ? (uint64_t)((unsigned __int128)v[num] * 1000 / v[den]) : 0;
}

void metrics_ratio(struct metrics *m, size_t k, size_t num, size_t den)
{
	size_t nm = m->nm;
	if (k >= nm || num >= nm || den >= nm)
		return;
	ratio_of(m->total, k, num, den);
	for (size_t f = 0; f < m->nfuncs; f++) {
		ratio_of(m->excl + f * nm, k, num, den);
		ratio_of(m->incl + f * nm, k, num, den);
	}
	/* edges and tree nodes: every vector handed out by alloc_values */
	for (size_t c = 0; c < m->nchunks; c++) {
		size_t used = c + 1 < m->nchunks ? CHUNK_VECTORS : m->chunk_used;
		for (size_t i = 0; i < used; i++)
			ratio_of(m->chunks[c] + i * nm, k, num, den);
	}
}

size_t metrics_count(const struct metrics *m)
{
	return m->nm;
}

uint32_t metrics_func_limit(const struct metrics *m)
{
	return m->nfuncs;
}

const uint64_t *metrics_total(const struct metrics *m)
{
	return m->total;
}

const uint64_t *metrics_exclusive(const struct metrics *m, uint32_t f)
{
	return f < m->nfuncs ? m->excl + (size_t)f * m->nm : m->zero;
}

const uint64_t *metrics_inclusive(const struct metrics *m, uint32_t f)
{
	return f < m->nfuncs ? m->incl + (size_t)f * m->nm : m->zero;
}

int metrics_seen(const struct metrics *m, uint32_t f)
{
	return f < m->nfuncs && m->seen[f];
}

size_t metrics_callers(const struct metrics *m, uint32_t f, const struct metrics_edge **ret)
{
	if (f >= m->nfuncs) {
		*ret = NULL;
		return 0;
	}
	*ret = m->callers[f].e;
	return m->callers[f].n;
}

size_t metrics_callees(const struct metrics *m, uint32_t f, const struct metrics_edge **ret)
{
	if (f >= m->nfuncs) {
		*ret = NULL;
		return 0;
	}
	*ret = m->callees[f].e;
	return m->callees[f].n;
}

size_t metrics_tree_size(const struct metrics *m)
{
	return m->nnodes;
}

const struct metrics_node *metrics_tree_node(const struct metrics *m, uint32_t i)
{
	return i < m->nnodes ? &m->nodes[i] : NULL;
}
