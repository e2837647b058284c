/*
 * context.c - the thread's double-buffered sample context (context.h).
 */
#include "collector/context.h"

#include <signal.h>
#include <stdatomic.h>

struct ctx_tls {
	struct exp_sample_ctx slot[2];
	volatile sig_atomic_t cur; /* the slot the handler reads */
};

static __thread struct ctx_tls tls_ctx;

void col_context_set(const struct exp_sample_ctx *c)
{
	int next = !tls_ctx.cur;
	tls_ctx.slot[next] = c && c->runtime ? *c : (struct exp_sample_ctx){0};
	atomic_signal_fence(memory_order_seq_cst); /* the slot is whole before the handler can use it */
	tls_ctx.cur = next;
}

void col_context_get(struct exp_sample_ctx *ret)
{
	*ret = tls_ctx.slot[tls_ctx.cur];
}
