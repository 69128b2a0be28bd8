/*
 * options: the table that gives each option its name, type and limits.
 */
#include "init/options.h"

#include "arch/x86_64/percpu.h"
#include "init/cmdline.h"
#include "lib/printk.h"

struct kernel_options kopts = {
    .smp = MAX_CPUS,
    .selftest = SELFTEST_NONE,
    .ttrace_ring_kb = 1024,
    .ttrace_aux_kb = 1024,
    .watchdog_s = 10,
    .inject = INJECT_NONE,
};

/* Indexed by enum selftest_kind; NULL ends the choices. */
static const char *const selftest_names[SELFTEST_LIMIT + 1] = {
#define SELFTEST_NAME_(NAME, word) [SELFTEST_##NAME] = #word,
    SELFTEST_KINDS(SELFTEST_NAME_)
#undef SELFTEST_NAME_
};

/* Indexed by enum inject_kind; NULL ends the choices. */
static const char *const inject_names[INJECT_LIMIT + 1] = {
#define INJECT_NAME_(NAME, word) [INJECT_##NAME] = #word,
    INJECT_KINDS(INJECT_NAME_)
#undef INJECT_NAME_
};

static const struct cmdline_option options[] = {
    {.name = "smp", .type = CMDLINE_UINT, .value = &kopts.smp, .min = 1, .max = MAX_CPUS},
    {.name = "selftest",
     .type = CMDLINE_CHOICE,
     .value = &kopts.selftest,
     .choices = selftest_names},
    {.name = "ttrace", .type = CMDLINE_STRING, .value = kopts.ttrace, .size = TTRACE_OPTION_MAX},
    {.name = "ttrace.echo",
     .type = CMDLINE_STRING,
     .value = kopts.ttrace_echo,
     .size = TTRACE_OPTION_MAX},
    {.name = "ttrace.ring_kb",
     .type = CMDLINE_POW2,
     .value = &kopts.ttrace_ring_kb,
     .min = 4,
     .zero_off = true, /* no trace area at all */
     .max = 65536},
    {.name = "ttrace.aux_kb",
     .type = CMDLINE_POW2,
     .value = &kopts.ttrace_aux_kb,
     .min = 4,
     .max = 65536},
    {.name = "ttrace.watchdog",
     .type = CMDLINE_UINT,
     .value = &kopts.watchdog_s,
     .min = 0,
     .max = 3600},
    {.name = "ttrace.watchdog_panic",
     .type = CMDLINE_UINT,
     .value = &kopts.watchdog_panic,
     .min = 0,
     .max = 1},
    {.name = "panic_halt", .type = CMDLINE_UINT, .value = &kopts.panic_halt, .min = 0, .max = 1},
    {.name = "inject", .type = CMDLINE_CHOICE, .value = &kopts.inject, .choices = inject_names},
};

static void warn(const char *message)
{
	printk("%s\n", message);
}

void options_parse(const char *cmdline)
{
	cmdline_parse(cmdline, options, sizeof(options) / sizeof(options[0]), warn);
}
