/*
 * disasm.c - code bytes from ELF program headers, and capstone disassembly.
 */
#include "analysis/disasm.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/regfile.h"

long disasm_read_code(const char *path, uint64_t vaddr, uint8_t *buf, size_t n)
{
	int fd = regfile_open(path, NULL); /* a regular file only, never blocking */
	if (fd < 0)
		return fd;
	long r = 0;
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 256) {
		r = -ENOEXEC;
		goto out;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) != (ssize_t)sizeof ph) {
			r = -EBADMSG;
			goto out;
		}
		if (ph.p_type != PT_LOAD || vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz)
			continue;
		uint64_t avail = ph.p_filesz - (vaddr - ph.p_vaddr);
		size_t want = n < avail ? n : (size_t)avail;
		ssize_t got = pread(fd, buf, want, (off_t)(ph.p_offset + (vaddr - ph.p_vaddr)));
		r = got < 0 ? -errno : got;
		break;
	}
out:
	close(fd);
	return r;
}

long disasm_code(const uint8_t *code, size_t n, uint64_t vaddr,
		 void (*fn)(void *ctx, const struct disasm_insn *insn), void *ctx)
{
	csh h;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -ENOTSUP;
	cs_option(h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_insn *insn = cs_malloc(h);
	if (!insn) {
		cs_close(&h);
		return -ENOMEM;
	}
	long count = 0;
	const uint8_t *p = code;
	size_t left = n;
	uint64_t addr = vaddr;
	while (left > 0) {
		struct disasm_insn d = {.addr = addr};
		if (cs_disasm_iter(h, &p, &left, &addr, insn)) {
			d.size = insn->size;
			snprintf(d.text, sizeof d.text, "%-6s %s", insn->mnemonic, insn->op_str);
		} else { /* undecodable: one byte */
			d.size = 1;
			snprintf(d.text, sizeof d.text, ".byte  0x%02x", *p);
			p++;
			left--;
			addr++;
		}
		size_t len = strlen(d.text);
		while (len && d.text[len - 1] == ' ')
			d.text[--len] = '\0';
		fn(ctx, &d);
		count++;
	}
	cs_free(insn, 1);
	cs_close(&h);
	return count;
}
