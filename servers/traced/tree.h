/*
 * tree: the spawn tree a caller belongs to, which quotas and allowances
 * count by.
 */
#ifndef SPOOR_TRACED_TREE_H
#define SPOOR_TRACED_TREE_H

#include <stdint.h>

/*
 * The root of pid's spawn tree: the ancestor init spawned, pid itself for
 * a child of init or for init.
 */
uint32_t tree_of(uint32_t pid);

#endif
