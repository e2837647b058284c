/*
 * buildid.c - GNU build-id notes of loaded objects (see buildid.h).  Every
 * note is bounds-checked against its PT_NOTE segment.
 */
#include "collector/buildid.h"

#include <elf.h>
#include <stdint.h>
#include <string.h>

void buildid_of_object(const struct dl_phdr_info *info, char *out, size_t room)
{
	out[0] = '\0';
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (end - p >= (long)sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			size_t name_bytes = (nh->n_namesz + 3) & ~3u, desc_bytes = (nh->n_descsz + 3) & ~3u;
			const uint8_t *name = p + sizeof *nh, *desc = name + name_bytes;
			if (desc + desc_bytes > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0) {
				static const char hex[] = "0123456789abcdef";
				size_t k = 0;
				for (uint32_t j = 0; j < nh->n_descsz && k + 2 < room; j++) {
					out[k++] = hex[desc[j] >> 4];
					out[k++] = hex[desc[j] & 15];
				}
				out[k] = '\0';
				return;
			}
			p = desc + desc_bytes;
		}
	}
}
