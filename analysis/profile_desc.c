/*
 * profile_desc.c - which descendants' subexperiments profile_add_experiment
 * reads (Oracle's en_desc): every one, none, or those whose program's file
 * name matches a regular expression.
 */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "analysis/profile_internal.h"
#include "common/strbuf.h"

enum { DESC_ALL, DESC_NONE, DESC_MATCH };

static int fail(char **ret_err, const char *what, const char *detail)
{
	if (ret_err) {
		struct strbuf b;
		strbuf_init(&b, 0);
		strbuf_addf(&b, "%s%s", what, detail);
		*ret_err = strbuf_detach(&b);
	}
	return -EINVAL;
}

int profile_set_descendants(struct profile *p, const char *mode, char **ret_err)
{
	if (ret_err)
		*ret_err = NULL;
	if (strcmp(mode, "on") == 0 || strcmp(mode, "off") == 0) {
		profile_descendants_release(p);
		p->desc_mode = mode[1] == 'n' ? DESC_ALL : DESC_NONE;
		return 0;
	}
	if (mode[0] != '=')
		return fail(ret_err, "expected on, off or =REGEX, not ", mode);
	regex_t re;
	int r = regcomp(&re, mode + 1, REG_EXTENDED | REG_NOSUB);
	if (r != 0) {
		char msg[200];
		regerror(r, &re, msg, sizeof msg);
		return fail(ret_err, "bad regular expression: ", msg);
	}
	profile_descendants_release(p);
	p->desc_re = re;
	p->desc_mode = DESC_MATCH;
	return 0;
}

void profile_descendants_release(struct profile *p)
{
	if (p->desc_mode == DESC_MATCH)
		regfree(&p->desc_re);
	p->desc_mode = DESC_ALL;
}

/* The program of the descendant whose subexperiment is at path, from the founder's processes.xml. */
static const char *program_of(const struct experiment *founder, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base);
	if (n < 4 || strcmp(base + n - 3, ".er") != 0)
		return NULL;
	for (size_t i = 0; i < founder->nprocs; i++) {
		const struct exp_process *q = &founder->procs[i];
		if (q->lineage && q->path && strlen(q->lineage) == n - 3 &&
		    strncmp(q->lineage, base, n - 3) == 0)
			return q->path;
	}
	return NULL;
}

static int name_matches(const struct profile *p, const char *program)
{
	const char *slash = strrchr(program, '/');
	return regexec(&p->desc_re, slash ? slash + 1 : program, 0, NULL, 0) == 0;
}

int profile_descendant_wanted(const struct profile *p, const struct experiment *founder, const char *path)
{
	if (p->desc_mode != DESC_MATCH)
		return p->desc_mode == DESC_ALL;
	const char *program = program_of(founder, path);
	if (program)
		return name_matches(p, program);
	/* processes.xml does not name it: its own log.xml (read alone: cheap) */
	struct experiment *x = NULL;
	if (experiment_open_maps(path, &x, NULL) < 0)
		return 1; /* add_one will say why it cannot be read */
	int r = !x->log.target_path || name_matches(p, x->log.target_path);
	experiment_free(x);
	return r;
}
