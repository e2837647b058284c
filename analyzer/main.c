/*
 * main.c - analyzer [--port N] [--no-browser] EXP...: load the experiments
 * (and their descendants) read-only, serve the page and its JSON API on
 * 127.0.0.1 (server.h), print its URL with the run's token, open the
 * user's browser (xdg-open, through a private page: browser.h) unless
 * --no-browser, and on SIGINT or SIGTERM stop serving, remove the page, free
 * everything and exit 0.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "analysis/report_compare.h"
#include "analyzer/browser.h"
#include "analyzer/server.h"
#include "experiment/expgroup.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: analyzer [--port N] [--no-browser] EXP...\n"
		   "Serve a web page over the experiments EXP... on 127.0.0.1 and open it in the browser.\n"
		   "An EXP may be an experiment group GROUP.erg: the experiments it names.\n"
		   "  --port N      listen on port N (default 0: a free port)\n"
		   "  --no-browser  only print the URL\n"
		   "  --version     print the version\n");
}

static int parse_port(const char *s, uint16_t *ret)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || errno || v > 65535 || s[0] == '-')
		return -1;
	*ret = (uint16_t)v;
	return 0;
}

/*
 * Open the experiments of the nargs arguments args (a group: those it names)
 * into p, and compare's sides into d (one per argument).  0, or -1 after a
 * message.
 */
static int load(struct profile *p, const char *const *args, size_t nargs, struct api_data *d)
{
	char **paths, why[512]; /* the experiments, each group replaced by those it names */
	size_t npaths;
	if (expgroup_expand(args, nargs, &paths, &npaths, why, sizeof why) < 0) {
		fprintf(stderr, "analyzer: %s\n", why);
		return -1;
	}
	size_t *first_of = calloc(npaths + 1, sizeof *first_of);
	int r = first_of ? 0 : -ENOMEM;
	for (size_t k = 0; r == 0 && k < npaths; k++) {
		char *err = NULL;
		first_of[k] = profile_experiment_count(p);
		r = profile_add_experiment(p, paths[k], &err);
		if (r < 0) {
			fprintf(stderr, "analyzer: cannot open experiment '%s': %s\n", paths[k],
				err ? err : strerror(-r));
			free(err);
			r = -1;
		}
	}
	expgroup_free_paths(paths, npaths);
	if (r == 0 && npaths == 0) {
		fprintf(stderr, "analyzer: the groups given name no experiment\n");
		r = -1;
	}
	if (r == 0) {
		first_of[npaths] = profile_experiment_count(p);
		struct report_compare_side *sides = NULL;
		r = report_compare_sides(args, nargs, first_of, &sides, &d->nsides);
		d->sides = sides;
	}
	if (r < -1)
		fprintf(stderr, "analyzer: %s\n", r == -ENOMEM ? "out of memory" : strerror(-r));
	free(first_of);
	return r < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint16_t port = 0;
	int browser = 1, i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
			if (parse_port(argv[++i], &port) < 0) {
				fprintf(stderr, "analyzer: --port '%s' is not a port number (0-65535)\n",
					argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--no-browser") == 0) {
			browser = 0;
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("analyzer %s\n", PA_VERSION);
			return 0;
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "analyzer: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (i == argc) {
		usage(stderr);
		return 2;
	}
	struct profile *p;
	if (profile_new(&p) < 0) {
		fprintf(stderr, "analyzer: out of memory\n");
		return 1;
	}
	const char *const *args = (const char *const *)argv + i;
	size_t nargs = (size_t)(argc - i);
	struct api_data d = {.p = p};
	if (load(p, args, nargs, &d) < 0) {
		profile_free(p);
		return 1;
	}
	/* SIGINT and SIGTERM are taken by sigwait below: blocked here, so also in the server's thread */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	struct server *s;
	char err[256];
	if (server_start(&d, port, &s, err, sizeof err) < 0) {
		fprintf(stderr, "analyzer: %s\n", err);
		report_compare_sides_free((struct report_compare_side *)d.sides, d.nsides);
		profile_free(p);
		return 1;
	}
	char url[128];
	snprintf(url, sizeof url, "http://127.0.0.1:%u/?token=%s", server_port(s), server_token(s));
	printf("Analyzer: %s\n", url);
	fflush(stdout);
	struct browser *b = NULL;
	if (browser && browser_open(url, &b, err, sizeof err) < 0)
		fprintf(stderr, "analyzer: cannot open the browser: %s\n", err);
	int sig;
	while (sigwait(&stop, &sig) != 0)
		;
	server_stop(s);
	browser_close(b);
	report_compare_sides_free((struct report_compare_side *)d.sides, d.nsides);
	profile_free(p);
	return 0;
}
