/*
 * server.h - the analyzer's HTTP server (libmicrohttpd) on 127.0.0.1 only:
 * every request must name this server in its Host header (127.0.0.1:PORT or
 * localhost:PORT: no DNS rebinding) and, when it has one, in its Origin
 * header (http://127.0.0.1:PORT or http://localhost:PORT: no other page's
 * script), be a GET or HEAD, carry the run's token (?token= once, then the
 * cookie it sets), and ask for the page (its compiled-in assets) or /api/...;
 * anything else is refused with a short text (400, 403, 404 or 405) and
 * nothing of the experiments.  One thread answers every request, so the
 * profile is never used concurrently.
 *
 * Against a local user who opens connections and never finishes a request
 * (every client is 127.0.0.1, so a limit per address could not tell them
 * from the user): the server polls with epoll (no FD_SETSIZE ceiling), holds
 * up to SERVER_MAX_CONNECTIONS connections (the soft RLIMIT_NOFILE is raised
 * to fit them and SERVER_FD_RESERVE more, within the hard limit), closes a connection that has not
 * delivered a request's headers SERVER_REQUEST_DEADLINE_S after it opened or
 * after its previous answer, however slowly it trickles them (the time the
 * server itself spends behind, with the request waiting unread, is not held
 * against it), and one that makes no progress for SERVER_IDLE_TIMEOUT_S.
 */
#ifndef ANALYZER_SERVER_H
#define ANALYZER_SERVER_H

#include <stdint.h>

#include "analyzer/api.h"

#define SERVER_TOKEN_LEN 32         /* hex characters */
#define SERVER_MAX_CONNECTIONS 4096 /* fewer when the hard RLIMIT_NOFILE is lower */
#define SERVER_FD_RESERVE 128       /* descriptors beside them: listener, epoll, the analyzer's files */
#define SERVER_REQUEST_DEADLINE_S 5
#define SERVER_IDLE_TIMEOUT_S 30

struct server;

/*
 * Serve d (the profile, compare's sides; kept until server_stop) on 127.0.0.1:port (0: a free port)
 * with a fresh random token.  Raises the process's soft RLIMIT_NOFILE (see above) and starts two
 * threads: libmicrohttpd's, which answers, and one that closes the connections past their deadline.
 * Returns 0 with *ret, or a negative errno with a message in err.
 */
int server_start(const struct api_data *d, uint16_t port, struct server **ret, char *err, size_t errlen);
uint16_t server_port(const struct server *s);
const char *server_token(const struct server *s);
/* Stop serving (waits for the request being answered) and free s. */
void server_stop(struct server *s);

#endif
