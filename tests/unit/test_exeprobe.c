/*
 * test_exeprobe.c - common/exeprobe.h: which programs a preloaded collector
 * can enter.  Crafted ELF headers (dynamic with PT_INTERP, static, 32-bit,
 * a relocatable object), "#!" scripts and their interpreters, set-user-ID and
 * set-group-ID modes seen by another user, missing files and plain text.
 * Works in a fresh temporary directory it removes at the end.
 */
#include "common/exeprobe.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/check.h"

static char tmp[PATH_MAX / 2];

static const char *at(const char *name)
{
	static char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", tmp, name);
	return p;
}

static void put(const char *name, const void *data, size_t n, mode_t mode)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, 0755);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, data, n) == (ssize_t)n);
	close(fd);
	CHECK(chmod(at(name), mode) == 0);
}

/* An ELF64 executable whose program headers are `types` (PT_LOAD, PT_INTERP, ...). */
static void put_elf(const char *name, uint16_t e_type, const uint32_t *types, unsigned n, mode_t mode)
{
	unsigned char buf[sizeof(Elf64_Ehdr) + 8 * sizeof(Elf64_Phdr)] = {0};
	Elf64_Ehdr e = {0};
	memcpy(e.e_ident, ELFMAG, SELFMAG);
	e.e_ident[EI_CLASS] = ELFCLASS64;
	e.e_ident[EI_DATA] = ELFDATA2LSB;
	e.e_ident[EI_VERSION] = EV_CURRENT;
	e.e_type = e_type;
	e.e_machine = EM_X86_64;
	e.e_version = EV_CURRENT;
	e.e_phoff = sizeof e;
	e.e_ehsize = sizeof e;
	e.e_phentsize = sizeof(Elf64_Phdr);
	e.e_phnum = (uint16_t)n;
	memcpy(buf, &e, sizeof e);
	for (unsigned i = 0; i < n && i < 8; i++) {
		Elf64_Phdr ph = {.p_type = types[i], .p_align = 4096};
		memcpy(buf + sizeof e + i * sizeof ph, &ph, sizeof ph);
	}
	put(name, buf, sizeof e + n * sizeof(Elf64_Phdr), mode);
}

static struct exeprobe probe(const char *name, unsigned euid, unsigned egid, int *ret)
{
	struct exeprobe r;
	memset(&r, 0x55, sizeof r);
	*ret = exeprobe_path(at(name), euid, egid, &r);
	return r;
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "%s/test_exeprobe.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
	int rc;
	struct exeprobe r;

	const uint32_t dyn[] = {PT_PHDR, PT_INTERP, PT_LOAD, PT_DYNAMIC};
	const uint32_t stat_[] = {PT_LOAD, PT_LOAD, PT_NOTE, PT_TLS};
	put_elf("dynamic", ET_DYN, dyn, 4, 0755);
	put_elf("static", ET_EXEC, stat_, 4, 0755);
	put_elf("static-pie", ET_DYN, stat_, 4, 0755);
	put_elf("ld-linux-x86-64.so.2", ET_DYN, stat_, 4, 0755); /* the loader run as a program */
	put_elf("object.o", ET_REL, stat_, 1, 0755);

	r = probe("dynamic", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_OK && r.script == 0);
	r = probe("static", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_NOENTRY);
	CHECK_EQ_STR(r.reason, "statically linked");
	r = probe("static-pie", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_NOENTRY);
	r = probe("ld-linux-x86-64.so.2", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_OK);
	r = probe("object.o", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_UNKNOWN);

	/* 32-bit: only the identification bytes matter */
	unsigned char e32[64] = {0};
	memcpy(e32, ELFMAG, SELFMAG);
	e32[EI_CLASS] = ELFCLASS32;
	put("prog32", e32, sizeof e32, 0755);
	r = probe("prog32", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_NOENTRY && strstr(r.reason, "32-bit") != NULL);

	/* truncated and damaged headers cannot be judged: exec decides */
	put("truncated", ELFMAG, SELFMAG, 0755);
	r = probe("truncated", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_UNKNOWN);
	const uint32_t many[] = {PT_LOAD};
	put_elf("bad-phoff", ET_EXEC, many, 1, 0755);
	{
		/* program headers said to lie past the end of the file */
		int fd = open(at("bad-phoff"), O_WRONLY);
		Elf64_Off off = 1u << 20;
		CHECK(fd >= 0 && pwrite(fd, &off, sizeof off, offsetof(Elf64_Ehdr, e_phoff)) == sizeof off);
		if (fd >= 0)
			close(fd);
	}
	r = probe("bad-phoff", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_UNKNOWN);

	/* scripts: the verdict is their interpreter's */
	char text[PATH_MAX + 32];
	int n = snprintf(text, sizeof text, "#!  %s -e\necho hi\n", at("dynamic"));
	put("script-dyn", text, (size_t)n, 0755);
	r = probe("script-dyn", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_OK && r.script == 1);
	n = snprintf(text, sizeof text, "#!%s\n", at("static"));
	put("script-static", text, (size_t)n, 0755);
	r = probe("script-static", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_NOENTRY && r.script == 1);
	/* a script as interpreter is not followed further (the kernel does not either) */
	n = snprintf(text, sizeof text, "#!%s\n", at("script-static"));
	put("script-script", text, (size_t)n, 0755);
	r = probe("script-script", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_UNKNOWN && r.script == 1);

	/* secure execution: set-user-ID / set-group-ID programs of someone else */
	put_elf("suid", ET_DYN, dyn, 4, 04755);
	r = probe("suid", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_OK); /* our own: ids do not change */
	r = probe("suid", uid + 1, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_NOENTRY && strstr(r.reason, "set-user-ID") != NULL);
	put_elf("sgid", ET_DYN, dyn, 4, 02755);
	r = probe("sgid", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_OK);
	r = probe("sgid", uid, gid + 1, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_NOENTRY && strstr(r.reason, "set-group-ID") != NULL);
	put_elf("sgid-noexec", ET_DYN, dyn, 4, 02745); /* mandatory locking, not set-group-ID */
	r = probe("sgid-noexec", uid, gid + 1, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_OK);

	/* what cannot be probed */
	r = probe("missing", uid, gid, &rc);
	CHECK(rc == -ENOENT && r.verdict == EXEPROBE_UNKNOWN);
	put("text", "hello\n", 6, 0755);
	r = probe("text", uid, gid, &rc);
	CHECK(rc == 0 && r.verdict == EXEPROBE_UNKNOWN && r.script == 0);

	const char *names[] = {"dynamic",    "static",        "static-pie",    "ld-linux-x86-64.so.2",
			       "object.o",   "prog32",        "truncated",     "bad-phoff",
			       "script-dyn", "script-static", "script-script", "suid",
			       "sgid",       "sgid-noexec",   "text"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		unlink(at(names[i]));
	rmdir(tmp);
	return check_done();
}
