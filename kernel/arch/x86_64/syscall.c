/*
 * syscall: STAR, LSTAR and FMASK (SDM 2B SYSCALL, SDM 4 2.1). FMASK clears
 * IF so that nothing interrupts the entry stub before it has a kernel stack,
 * and DF, TF and AC so the kernel runs with known flags.
 */
#include "arch/x86_64/syscall.h"

#include <stdint.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/gdt.h"

#define MSR_STAR  0xc0000081u
#define MSR_LSTAR 0xc0000082u
#define MSR_FMASK 0xc0000084u
#define EFER_SCE  (1ull << 0)
#define RFLAGS_DF (1ull << 10)
#define RFLAGS_AC (1ull << 18)

extern char syscall_entry[];

void syscall_init_cpu(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, ((uint64_t)GDT_USER_BASE << 48) | ((uint64_t)GDT_KERNEL_CODE << 32));
	wrmsr(MSR_LSTAR, (uintptr_t)syscall_entry);
	wrmsr(MSR_FMASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_DF | RFLAGS_AC);
}
