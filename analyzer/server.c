/*
 * server.c - the analyzer's HTTP server; see server.h for what it accepts.
 * libmicrohttpd's thread answers; a second thread (the reaper) shuts down
 * the sockets of connections past their request deadline, which makes
 * libmicrohttpd close them.  Both touch the table of connections only under
 * the server's lock, and a connection leaves the table (NOTIFY_CLOSED) before
 * libmicrohttpd closes its descriptor, so the reaper never shuts down a
 * descriptor that has been reused.
 */
#include "analyzer/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "analyzer/api.h"
#include "analyzer/assets.h"
#include "analyzer/reply_cache.h"

/* A connection past its deadline with its request waiting unread is looked at again this much later. */
#define SERVER_RECHECK_NS 1000000000ull
/* The reaper wakes this much after the earliest deadline, to close the ones due together at once. */
#define SERVER_REAP_SLACK_NS 200000000ull

/* A connection the reaper watches: one slot of server.conns, its socket context. */
struct server_conn {
	int fd;               /* -1: the slot is free */
	uint64_t deadline_ns; /* CLOCK_MONOTONIC; 0 while its request is answered */
	size_t next_free;     /* the next free slot when this one is free */
};

struct server {
	struct api_data data;
	struct reply_cache *cache; /* the flame, call tree and timeline replies kept (reply_cache.h) */
	struct MHD_Daemon *d;
	uint16_t port;
	char token[SERVER_TOKEN_LEN + 1];
	char cookie[32];     /* the cookie's name: per port, so two analyzers do not clash */
	char hosts[2][64];   /* the Host headers accepted */
	char origins[2][64]; /* the Origin headers accepted */
	struct strbuf reply; /* the API's answer being built */

	pthread_mutex_t lock; /* guards what follows */
	pthread_cond_t wake;  /* the reaper's: a deadline was set while it had none, or stop */
	pthread_t reaper;
	struct server_conn *conns; /* the connection limit's slots */
	size_t nconns, free_head;  /* free_head: the first free slot, nconns when none */
	int reaper_idle;           /* the reaper waits with no deadline to wake it */
	int stopping;
};

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Under s->lock: give conn k a deadline of SERVER_REQUEST_DEADLINE_S from now (on) or none. */
static void conn_deadline_locked(struct server *s, struct server_conn *k, int on)
{
	k->deadline_ns = on ? now_ns() + SERVER_REQUEST_DEADLINE_S * 1000000000ull : 0;
	if (on && s->reaper_idle)
		pthread_cond_signal(&s->wake);
}

static void conn_deadline(struct server *s, struct MHD_Connection *c, int on)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (!i || !i->socket_context)
		return;
	pthread_mutex_lock(&s->lock);
	conn_deadline_locked(s, i->socket_context, on);
	pthread_mutex_unlock(&s->lock);
}

/* MHD_OPTION_NOTIFY_CONNECTION: a connection takes a slot, with its first request's deadline, or frees it. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode what)
{
	struct server *s = cls;
	pthread_mutex_lock(&s->lock);
	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *i =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (i && s->free_head < s->nconns) {
			struct server_conn *k = &s->conns[s->free_head];
			s->free_head = k->next_free;
			k->fd = i->connect_fd;
			conn_deadline_locked(s, k, 1);
			*socket_context = k;
		} else if (i) { /* no slot to watch it from (cannot happen: one per connection allowed) */
			shutdown(i->connect_fd, SHUT_RDWR);
		}
	} else if (*socket_context) {
		struct server_conn *k = *socket_context;
		k->fd = -1;
		k->deadline_ns = 0;
		k->next_free = s->free_head;
		s->free_head = (size_t)(k - s->conns);
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&s->lock);
}

/* MHD_OPTION_NOTIFY_COMPLETED: an answer is sent; the next request on the connection has its deadline. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)con_cls;
	(void)toe;
	conn_deadline(cls, c, 1);
}

/*
 * Under s->lock: shut down each connection past its deadline with nothing of its own waiting
 * unread (when there is, the server is behind, not the client).  Returns the earliest deadline
 * left, UINT64_MAX when none.
 */
static uint64_t reap_locked(struct server *s)
{
	uint64_t now = now_ns(), next = UINT64_MAX;
	for (size_t i = 0; i < s->nconns; i++) {
		struct server_conn *k = &s->conns[i];
		if (k->fd < 0 || !k->deadline_ns)
			continue;
		if (k->deadline_ns <= now) {
			int unread = 0;
			if (ioctl(k->fd, FIONREAD, &unread) == 0 && unread > 0) {
				k->deadline_ns = now + SERVER_RECHECK_NS;
			} else {
				shutdown(k->fd, SHUT_RDWR); /* libmicrohttpd reads its end and closes it */
				k->deadline_ns = 0;
				continue;
			}
		}
		if (k->deadline_ns < next)
			next = k->deadline_ns;
	}
	return next;
}

static void *reaper_main(void *arg)
{
	struct server *s = arg;
	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		uint64_t next = reap_locked(s);
		if (next == UINT64_MAX) {
			s->reaper_idle = 1;
			pthread_cond_wait(&s->wake, &s->lock);
			s->reaper_idle = 0;
		} else {
			next += SERVER_REAP_SLACK_NS;
			struct timespec t = {.tv_sec = (time_t)(next / 1000000000ull),
					     .tv_nsec = (long)(next % 1000000000ull)};
			pthread_cond_timedwait(&s->wake, &s->lock, &t);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

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
	int status = 0;
	if (reply_cache_wants(name) && (status = reply_cache_get(s->cache, name, &q, &s->reply)) != 0)
		return send_reply(c, (unsigned)status, "application/json", s->reply.s ? s->reply.s : "",
				  s->reply.len, MHD_RESPMEM_MUST_COPY, set_cookie);
	if (reply_cache_wants(name) && s->cache) {
		struct reply_cache_rec rec;
		reply_cache_rec_init(&rec, &q);
		status = api_answer(&s->data, name, &rec.q, &s->reply);
		reply_cache_put(s->cache, name, &rec, status, &s->reply);
		reply_cache_rec_release(&rec);
	} else {
		status = api_answer(&s->data, name, &q, &s->reply);
	}
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
	conn_deadline(s, c, 0); /* its headers are in: answered now, however long that takes */
	if (*upload_size)       /* a body: not ours to take */
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

/*
 * The connection limit: SERVER_MAX_CONNECTIONS, fewer when the hard RLIMIT_NOFILE cannot fit them
 * beside SERVER_FD_RESERVE; the soft limit is raised to what that needs.
 */
static unsigned connection_limit(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1000;
	rlim_t want = SERVER_MAX_CONNECTIONS + SERVER_FD_RESERVE;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want ? rl.rlim_max : want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want)
		return rl.rlim_cur > 2 * SERVER_FD_RESERVE ? (unsigned)(rl.rlim_cur - SERVER_FD_RESERVE)
							   : (unsigned)(rl.rlim_cur / 2);
	return SERVER_MAX_CONNECTIONS;
}

/* The connection table, its lock and the reaper: 0, or a negative errno with a message in err. */
static int reaper_start(struct server *s, unsigned nconns, char *err, size_t errlen)
{
	s->conns = calloc(nconns, sizeof *s->conns);
	if (!s->conns) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->nconns = nconns;
	for (size_t i = 0; i < nconns; i++) {
		s->conns[i].fd = -1;
		s->conns[i].next_free = i + 1;
	}
	s->free_head = 0;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->lock, NULL);
	int r = pthread_create(&s->reaper, NULL, reaper_main, s);
	if (r != 0) {
		snprintf(err, errlen, "cannot start a thread: %s", strerror(r));
		pthread_cond_destroy(&s->wake);
		pthread_mutex_destroy(&s->lock);
		free(s->conns);
		return -r;
	}
	return 0;
}

static void reaper_stop(struct server *s)
{
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->reaper, NULL);
}

/* The reaper's table, lock and condition, after reaper_stop and once libmicrohttpd is stopped. */
static void reaper_free(struct server *s)
{
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s->conns);
}

int server_start(const struct api_data *d, uint16_t port, struct server **ret, char *err, size_t errlen)
{
	struct server *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->data = *d;
	s->cache = reply_cache_new(); /* NULL: every request computed afresh */
	strbuf_init(&s->reply, 0);
	int r = make_token(s);
	if (r < 0) {
		snprintf(err, errlen, "cannot make a token: getrandom: %s", strerror(-r));
		reply_cache_free(s->cache);
		free(s);
		return r;
	}
	unsigned nconns = connection_limit();
	r = reaper_start(s, nconns, err, errlen);
	if (r < 0) {
		reply_cache_free(s->cache);
		free(s);
		return r;
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->d = MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD, port, NULL, NULL, handle, s,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&a, MHD_OPTION_CONNECTION_LIMIT,
				nconns, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVER_IDLE_TIMEOUT_S,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_NOTIFY_COMPLETED,
				on_completed, s, MHD_OPTION_END);
	if (!s->d) {
		r = errno ? -errno : -EADDRINUSE;
		snprintf(err, errlen, "cannot serve on 127.0.0.1:%u: %s", port, strerror(-r));
		reaper_stop(s);
		reaper_free(s);
		reply_cache_free(s->cache);
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
	reaper_stop(s);
	MHD_stop_daemon(s->d);
	reaper_free(s);
	strbuf_release(&s->reply);
	reply_cache_free(s->cache);
	free(s);
}
