/*
 * exeprobe.c - classify a program for preloading (see exeprobe.h).
 */
#include "common/exeprobe.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define HEAD_BYTES 512
#define PHDR_MAX 64

static void set(struct exeprobe *r, enum exeprobe_verdict v, const char *reason)
{
	r->verdict = v;
	r->reason = reason;
}

/* The dynamic loader run as a program preloads like any dynamic program. */
static int is_loader_name(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return strncmp(b, "ld-", 3) == 0 || strncmp(b, "ld.so", 5) == 0 || strncmp(b, "ld64.so", 7) == 0;
}

static void probe_elf(int fd, const unsigned char *h, size_t n, const char *path, struct exeprobe *r)
{
	if (n < sizeof(Elf64_Ehdr) || h[EI_CLASS] != ELFCLASS64) {
		set(r, n >= EI_NIDENT && h[EI_CLASS] == ELFCLASS32 ? EXEPROBE_NOENTRY : EXEPROBE_UNKNOWN,
		    n >= EI_NIDENT && h[EI_CLASS] == ELFCLASS32 ? "a 32-bit program (the collector is 64-bit)"
								: "");
		return;
	}
	Elf64_Ehdr e;
	memcpy(&e, h, sizeof e);
	if (e.e_type != ET_EXEC && e.e_type != ET_DYN) {
		set(r, EXEPROBE_UNKNOWN, "");
		return;
	}
	if (e.e_phentsize != sizeof(Elf64_Phdr) || e.e_phnum == 0 || e.e_phnum > PHDR_MAX) {
		set(r, EXEPROBE_UNKNOWN, "");
		return;
	}
	Elf64_Phdr ph[PHDR_MAX];
	size_t bytes = (size_t)e.e_phnum * sizeof ph[0];
	if (pread(fd, ph, bytes, (off_t)e.e_phoff) != (ssize_t)bytes) {
		set(r, EXEPROBE_UNKNOWN, "");
		return;
	}
	for (unsigned i = 0; i < e.e_phnum; i++)
		if (ph[i].p_type == PT_INTERP) {
			set(r, EXEPROBE_OK, "");
			return;
		}
	if (e.e_type == ET_DYN && is_loader_name(path))
		set(r, EXEPROBE_OK, "");
	else
		set(r, EXEPROBE_NOENTRY, "statically linked");
}

static int probe(const char *path, unsigned euid, unsigned egid, struct exeprobe *r, int depth)
{
	struct stat st;
	set(r, EXEPROBE_UNKNOWN, "");
	if (stat(path, &st) < 0)
		return -errno;
	if ((st.st_mode & S_ISUID) && st.st_uid != euid) {
		set(r, EXEPROBE_NOENTRY,
		    "a set-user-ID program of another user (the loader ignores LD_PRELOAD)");
		return 0;
	}
	if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != egid) {
		set(r, EXEPROBE_NOENTRY,
		    "a set-group-ID program of another group (the loader ignores LD_PRELOAD)");
		return 0;
	}
	if (getxattr(path, "security.capability", NULL, 0) > 0) {
		set(r, EXEPROBE_NOENTRY, "a program with file capabilities (the loader ignores LD_PRELOAD)");
		return 0;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* execute-only: exec will tell */
	unsigned char h[HEAD_BYTES + 1];
	ssize_t n = pread(fd, h, HEAD_BYTES, 0);
	if (n >= 4 && memcmp(h, ELFMAG, SELFMAG) == 0) {
		probe_elf(fd, h, (size_t)n, path, r);
	} else if (n >= 3 && h[0] == '#' && h[1] == '!' && depth == 0) {
		/* "#!" [spaces] interpreter [spaces arg] newline */
		h[n] = '\0';
		char *p = (char *)h + 2;
		while (*p == ' ' || *p == '\t')
			p++;
		char *q = p;
		while (*q && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
			q++;
		*q = '\0';
		if (*p) {
			probe(p, euid, egid, r, depth + 1);
			r->script = 1;
		}
	}
	close(fd);
	return 0;
}

int exeprobe_path(const char *path, unsigned euid, unsigned egid, struct exeprobe *ret)
{
	ret->script = 0;
	return probe(path, euid, egid, ret, 0);
}
