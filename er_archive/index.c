/*
 * index.c - entries and archives/index.xml (contract in index.h).
 */
#include "er_archive/index.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/strbuf.h"
#include "er_archive/copy.h"
#include "er_archive/report.h"

void ar_entry_note(struct ar_entry *en, const char *fmt, ...)
{
	struct strbuf b;
	va_list ap;
	strbuf_init(&b, 0);
	va_start(ap, fmt);
	strbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	free(en->note);
	en->note = b.failed ? NULL : strbuf_detach(&b);
	if (b.failed)
		strbuf_release(&b);
	if (en->note)
		ar_warn("%s", en->note);
}

static void xml_attr(struct strbuf *b, const char *name, const char *v)
{
	strbuf_addf(b, " %s=\"", name);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		switch (*p) {
		case '&': strbuf_adds(b, "&amp;"); break;
		case '<': strbuf_adds(b, "&lt;"); break;
		case '>': strbuf_adds(b, "&gt;"); break;
		case '"': strbuf_adds(b, "&quot;"); break;
		case '\'': strbuf_adds(b, "&apos;"); break;
		default:
			if (*p == '\t' || *p == '\n')
				strbuf_addf(b, "&#%u;", *p);
			else if (*p < 0x20)
				strbuf_adds(b, "?");
			else
				strbuf_add(b, (const char *)p, 1);
		}
	}
	strbuf_adds(b, "\"");
}

int ar_index_write(const char *exp, const struct ar_entry *v, size_t n, const char *cache_root)
{
	struct strbuf b;
	char path[PATH_MAX], tmp[PATH_MAX], rel[PATH_MAX + 8];
	strbuf_init(&b, 0);
	strbuf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<archive version=\"1.0\">\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_adds(&b, "  <object");
		xml_attr(&b, "path", v[i].lo->path);
		if (v[i].lo->build_id && v[i].lo->build_id[0])
			xml_attr(&b, "build_id", v[i].lo->build_id);
		if (v[i].has_file) {
			snprintf(rel, sizeof rel, "%s/%s", v[i].key, v[i].base);
			xml_attr(&b, "file", rel);
			if (v[i].linked) /* a link into the per-user cache */
				xml_attr(&b, "cache", cache_root[0] ? cache_root : "yes");
			if (v[i].has_debug) {
				snprintf(rel, sizeof rel, "%s/%s.debug", v[i].key, v[i].base);
				xml_attr(&b, "debug", rel);
			}
			strbuf_addf(&b, " size=\"%" PRIu64 "\"", v[i].size_bytes);
		}
		if (v[i].note)
			xml_attr(&b, "note", v[i].note);
		strbuf_adds(&b, "/>\n");
	}
	strbuf_adds(&b, "</archive>\n");
	if (b.failed) {
		strbuf_release(&b);
		ar_error("out of memory");
		return -ENOMEM;
	}
	snprintf(path, sizeof path, "%s/%s/%s", exp, ARCHIVE_DIR_NAME, ARCHIVE_INDEX_NAME);
	int fd = copy_temp_open(path, tmp, sizeof tmp), r;
	if (fd < 0) {
		ar_error("cannot create a file in the directory of %s: %s", path, strerror(-fd));
		strbuf_release(&b);
		return fd;
	}
	r = io_write_all(fd, strbuf_str(&b), b.len);
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		ar_error("cannot write %s: %s", path, strerror(-r));
	}
	copy_temp_done();
	strbuf_release(&b);
	return r;
}
