/*
 * disasm.h - code bytes of a load object and their disassembly (capstone,
 * AT&T syntax, x86-64), for annotated disassembly.  Library code: returns
 * negative errno, never prints.  Not thread-safe.
 */
#ifndef ANALYSIS_DISASM_H
#define ANALYSIS_DISASM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Read `n` bytes at ELF virtual address vaddr of the ELF file at `path`
 * (through its PT_LOAD program headers).  Returns the bytes read (fewer at
 * the end of a segment; 0 if vaddr is not in the file), or -errno.
 */
long disasm_read_code(const char *path, uint64_t vaddr, uint8_t *buf, size_t n);

struct disasm_insn {
	uint64_t addr;
	uint16_t size;
	char text[200]; /* "mov    %rsp,%rbp" */
};

/*
 * Disassemble code[0..n) located at vaddr; calls fn per instruction.  An
 * undecodable byte is shown as ".byte 0xNN" and skipped.  Returns the
 * instruction count or -errno (-ENOTSUP if capstone cannot be opened).
 */
long disasm_code(const uint8_t *code, size_t n, uint64_t vaddr,
		 void (*fn)(void *ctx, const struct disasm_insn *insn), void *ctx);

#endif
