/*
 * multiboot2: walks the boot information tags (Multiboot2 specification
 * 3.6). Tags are 8-byte aligned; the list ends with a type 0 tag.
 */
#include "init/boot_info.h"

#include "lib/panic.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/memlayout.h"

#define TAG_END	     0
#define TAG_CMDLINE  1
#define TAG_MODULE   3
#define TAG_MMAP     6
#define TAG_ACPI_OLD 14
#define TAG_ACPI_NEW 15

struct mb2_tag {
	uint32_t type;
	uint32_t size;
};

struct mb2_module {
	struct mb2_tag tag;
	uint32_t start;
	uint32_t end;
	char name[];
};

struct mb2_mmap {
	struct mb2_tag tag;
	uint32_t entry_size;
	uint32_t entry_version;
};

struct mb2_mmap_entry {
	uint64_t base;
	uint64_t length;
	uint32_t type;
	uint32_t reserved;
};

struct boot_info boot_info;

static void copy_string(char *dst, uint32_t cap, const char *src, uint32_t src_len)
{
	uint32_t n = 0;

	while (n + 1 < cap && n < src_len && src[n]) {
		dst[n] = src[n];
		n++;
	}
	dst[n] = '\0';
}

static void add_module(const struct mb2_module *m)
{
	struct boot_info *bi = &boot_info;

	if (bi->nmodules == BOOT_MODULES_MAX) {
		printk("multiboot2: more than %u modules; '%s' ignored\n", BOOT_MODULES_MAX,
		       m->name);
		return;
	}
	struct boot_module *bm = &bi->modules[bi->nmodules++];
	copy_string(bm->name, sizeof(bm->name), m->name, m->tag.size - sizeof(*m));
	bm->start = m->start;
	bm->end = m->end;
}

static void add_mmap(const struct mb2_mmap *t)
{
	struct boot_info *bi = &boot_info;
	const uint8_t *p = (const uint8_t *)(t + 1);
	const uint8_t *end = (const uint8_t *)t + t->tag.size;

	if (t->entry_size < sizeof(struct mb2_mmap_entry)) {
		panic("multiboot2: memory map entries of %u bytes", t->entry_size);
	}
	for (; p + t->entry_size <= end && bi->nmmap < BOOT_MMAP_MAX; p += t->entry_size) {
		const struct mb2_mmap_entry *e = (const struct mb2_mmap_entry *)p;
		bi->mmap[bi->nmmap++] = (struct boot_mmap_entry){e->base, e->length, e->type};
	}
}

void multiboot2_parse(uint64_t mb2)
{
	const uint8_t *info = phys_to_virt(mb2);
	uint32_t total;

	memcpy(&total, info, sizeof(total));
	if (mb2 + total > EARLY_MAP_LIMIT || total < 16) {
		panic("multiboot2: boot information at 0x%lx (%u bytes) is not usable", mb2, total);
	}
	for (uint32_t off = 8; off + sizeof(struct mb2_tag) <= total;) {
		const struct mb2_tag *tag = (const struct mb2_tag *)(info + off);
		if (tag->type == TAG_END) {
			break;
		}
		if (tag->size < sizeof(*tag) || off + tag->size > total) {
			panic("multiboot2: malformed tag %u at offset %u", tag->type, off);
		}
		switch (tag->type) {
		case TAG_CMDLINE:
			copy_string(boot_info.cmdline, sizeof(boot_info.cmdline),
				    (const char *)(tag + 1), tag->size - sizeof(*tag));
			break;
		case TAG_MODULE:
			add_module((const struct mb2_module *)tag);
			break;
		case TAG_MMAP:
			add_mmap((const struct mb2_mmap *)tag);
			break;
		case TAG_ACPI_OLD:
		case TAG_ACPI_NEW:
			/* Prefer the ACPI 2.0 RSDP, which may point to an XSDT. */
			if (tag->type == TAG_ACPI_NEW || !boot_info.rsdp_len) {
				uint32_t n = tag->size - sizeof(*tag);
				boot_info.rsdp_len = n < BOOT_RSDP_MAX ? n : BOOT_RSDP_MAX;
				memcpy(boot_info.rsdp, tag + 1, boot_info.rsdp_len);
			}
			break;
		default:
			break;
		}
		off += (tag->size + 7) & ~7u;
	}
	if (!boot_info.nmmap) {
		panic("multiboot2: no memory map from the boot loader");
	}
}
