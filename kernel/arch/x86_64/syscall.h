/*
 * syscall: the MSRs that make the `syscall` instruction enter the kernel.
 */
#ifndef SPOOR_ARCH_SYSCALL_H
#define SPOOR_ARCH_SYSCALL_H

/* Per CPU, after percpu_init(). */
void syscall_init_cpu(void);

#endif
