/*
 * buildid.c - GNU build-id notes of loaded objects (see buildid.h).  The
 * notes are walked by common/elfnote.c, bounded by each PT_NOTE segment.
 */
#include "collector/buildid.h"

#include <elf.h>
#include <stdint.h>

#include "common/elfnote.h"

void buildid_of_object(const struct dl_phdr_info *info, char *out, size_t room)
{
	out[0] = '\0';
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *desc;
		size_t n;
		if (elfnote_find_build_id((const void *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
					  ph->p_align, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, &desc,
					  &n) == 1) {
			elfnote_hex(desc, n, out, room);
			return;
		}
	}
}

int buildid_is_go(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *desc;
		size_t n;
		if (ph->p_type == PT_NOTE &&
		    elfnote_find((const void *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz, ph->p_align,
				 __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, "Go", 4, &desc, &n) == 1)
			return 1;
	}
	return 0;
}
