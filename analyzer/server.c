/*
 * server.c - the analyzer's HTTP server; see server.h for what it accepts.
 */
#include "analyzer/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "analyzer/api.h"
#include "analyzer/assets.h"

struct server {
	struct api_data data;
	struct MHD_Daemon *d;
	uint16_t port;
	char token[SERVER_TOKEN_LEN + 1];
	char cookie[32];     /* the cookie's name: per port, so two analyzers do not clash */
	char hosts[2][64];   /* the Host headers accepted */
	char origins[2][64]; /* the Origin headers accepted */
	struct strbuf reply; /* the API's answer being built */
};

/* Equal, in a time that does not depend on where they differ. */
static int token_equal(const char *a, const char *b)
{
	if (!a || strlen(a) != SERVER_TOKEN_LEN)
		return 0;
	unsigned diff = 0;
	for (size_t i = 0; i < SERVER_TOKEN_LEN; i++)
		diff |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return diff == 0;
}

static enum MHD_Result send_reply(struct MHD_Connection *c, unsigned status, const char *type,
				  const void *data, size_t len, enum MHD_ResponseMemoryMode mode,
				  const char *set_cookie)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)data, mode);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	if (set_cookie)
		MHD_add_response_header(r, "Set-Cookie", set_cookie);
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status, const char *why)
{
	return send_reply(c, status, "text/plain; charset=utf-8", why, strlen(why), MHD_RESPMEM_PERSISTENT,
			  NULL);
}

static const char *query_get(void *ctx, const char *key)
{
	return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, key);
}

static enum MHD_Result answer_api(struct server *s, struct MHD_Connection *c, const char *name,
				  const char *set_cookie)
{
	struct api_query q = {query_get, c};
	int status = api_answer(&s->data, name, &q, &s->reply);
	if (status == 500 && s->reply.failed)
		return refuse(c, 500, "out of memory\n");
	return send_reply(c, (unsigned)status, "application/json", s->reply.s ? s->reply.s : "", s->reply.len,
			  MHD_RESPMEM_MUST_COPY, set_cookie);
}

/* What a request's headers say of who it is for and from. */
struct header_scan {
	const struct server *s;
	unsigned hosts, origins; /* how many Host and Origin headers */
	int host_ok, origin_ok;  /* the last one of each names this server */
};

static int one_of(const char (*names)[64], const char *v, size_t len)
{
	return (strlen(names[0]) == len && memcmp(v, names[0], len) == 0) ||
	       (strlen(names[1]) == len && memcmp(v, names[1], len) == 0);
}

static enum MHD_Result header_seen(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
				   const char *value, size_t value_size)
{
	struct header_scan *h = cls;
	(void)kind;
	if (key_size == 4 && strncasecmp(key, MHD_HTTP_HEADER_HOST, 4) == 0) {
		h->hosts++;
		h->host_ok = value && one_of(h->s->hosts, value, value_size);
	} else if (key_size == 6 && strncasecmp(key, MHD_HTTP_HEADER_ORIGIN, 6) == 0) {
		h->origins++;
		h->origin_ok = value && one_of(h->s->origins, value, value_size);
	}
	return MHD_YES;
}

/* NULL if the request has one Host header naming this server and at most one Origin header, naming it. */
static const char *foreign_headers(const struct server *s, struct MHD_Connection *c, unsigned *ret_status)
{
	struct header_scan h = {.s = s};
	MHD_get_connection_values_n(c, MHD_HEADER_KIND, header_seen, &h);
	*ret_status = MHD_HTTP_BAD_REQUEST;
	if (h.hosts > 1 || h.origins > 1)
		return "more than one Host or Origin header\n";
	*ret_status = MHD_HTTP_FORBIDDEN;
	if (!h.host_ok)
		return "foreign Host header\n";
	if (h.origins && !h.origin_ok)
		return "foreign Origin header\n";
	return NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload_data, size_t *upload_size,
			      void **con_cls)
{
	struct server *s = cls;
	(void)version;
	(void)upload_data;
	(void)con_cls;
	if (*upload_size) /* a body: not ours to take */
		return MHD_NO;
	unsigned status;
	const char *why = foreign_headers(s, c, &status);
	if (why)
		return refuse(c, status, why);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
	char set_cookie[128];
	const char *cookie = NULL;
	if (token_equal(MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token"), s->token)) {
		snprintf(set_cookie, sizeof set_cookie, "%s=%s; Path=/; HttpOnly; SameSite=Strict", s->cookie,
			 s->token);
		cookie = set_cookie;
	} else if (!token_equal(MHD_lookup_connection_value(c, MHD_COOKIE_KIND, s->cookie), s->token)) {
		return refuse(c, MHD_HTTP_FORBIDDEN, "no valid token: open the URL the analyzer printed\n");
	}
	if (strncmp(url, "/api/", 5) == 0)
		return answer_api(s, c, url + 5, cookie);
	for (size_t i = 0; i < nassets; i++)
		if (strcmp(url, assets[i].path) == 0)
			return send_reply(c, MHD_HTTP_OK, assets[i].type, assets[i].data, assets[i].len,
					  MHD_RESPMEM_PERSISTENT, cookie);
	return refuse(c, MHD_HTTP_NOT_FOUND, "not found\n");
}

static int make_token(struct server *s)
{
	unsigned char raw[SERVER_TOKEN_LEN / 2];
	size_t got = 0;
	while (got < sizeof raw) {
		ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(s->token + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

int server_start(const struct api_data *d, uint16_t port, struct server **ret, char *err, size_t errlen)
{
	struct server *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->data = *d;
	strbuf_init(&s->reply, 0);
	int r = make_token(s);
	if (r < 0) {
		snprintf(err, errlen, "cannot make a token: getrandom: %s", strerror(-r));
		free(s);
		return r;
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, port, NULL, NULL, handle, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&a, MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned)60, MHD_OPTION_END);
	if (!s->d) {
		r = errno ? -errno : -EADDRINUSE;
		snprintf(err, errlen, "cannot serve on 127.0.0.1:%u: %s", port, strerror(-r));
		free(s);
		return r;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? info->port : port;
	snprintf(s->cookie, sizeof s->cookie, "pa_token_%u", s->port);
	snprintf(s->hosts[0], sizeof s->hosts[0], "127.0.0.1:%u", s->port);
	snprintf(s->hosts[1], sizeof s->hosts[1], "localhost:%u", s->port);
	snprintf(s->origins[0], sizeof s->origins[0], "http://127.0.0.1:%u", s->port);
	snprintf(s->origins[1], sizeof s->origins[1], "http://localhost:%u", s->port);
	*ret = s;
	return 0;
}

uint16_t server_port(const struct server *s)
{
	return s->port;
}

const char *server_token(const struct server *s)
{
	return s->token;
}

void server_stop(struct server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);
	strbuf_release(&s->reply);
	free(s);
}
