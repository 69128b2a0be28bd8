/*
 * starve: a server that takes memory until there is none. Booted as a
 * "server" module, init keeps it (SPAWN_KEPT: no limit, and the memory
 * kept back for init and its servers is open to it), so it eats every
 * frame there is, and the kernel, finding no ordinary tree to kill for it,
 * ends it for lack of memory (EXIT_NO_MEMORY). Init must then not give up
 * on it, as it does on a server that keeps crashing, but start it again
 * after a pause that doubles each time (servers/init/services.c).
 */
#include <spoor.h>
#include <stdint.h>

#define REGION (64ull << 30) /* more than any machine here: only memory running out stops it */

int main(void)
{
	long base = sys_mem_map_anon(NULL, REGION, PROT_READ | PROT_WRITE);

	if (base < 0) {
		return 1;
	}
	for (uint64_t off = 0; off < REGION; off += PAGE_SIZE_USER) {
		*(volatile uint8_t *)(base + off) = 1;
	}
	return 0;
}
