/* func_guard: see func_guard.h. */
#include "trace/func_guard.h"

uint8_t func_guard_busy[MAX_CPUS];
uint64_t func_guard_missed;
