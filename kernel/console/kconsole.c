/*
 * kconsole: line input with echo, backspace and Ctrl-U, then a table of
 * commands. Waits for input with hlt; the serial interrupt (or the next
 * timer tick) wakes it.
 */
#include "console/kconsole.h"

#include <stdbool.h>

#include "arch/x86_64/cpu.h"
#include "arch/x86_64/percpu.h"
#include "arch/x86_64/power.h"
#include "arch/x86_64/serial.h"
#include "lib/printk.h"
#include "lib/string.h"
#include "mm/pmm.h"

#define LINE_MAX  128
#define CTRL_U	  0x15
#define BACKSPACE 0x08
#define DELETE	  0x7f

struct command {
	const char *name;
	const char *help;
	void (*run)(void);
};

static void cmd_help(void);

static void cmd_halt(void)
{
	printk("powering off\n");
	power_off();
}

static void cmd_mem(void)
{
	printk("memory: %lu of %lu frames free\n", pmm_free_count(), pmm_total_count());
}

static const struct command commands[] = {
    {"help", "list the commands", cmd_help},
    {"mem", "show free physical memory", cmd_mem},
    {"halt", "power the machine off", cmd_halt},
};

#define NUM_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void cmd_help(void)
{
	for (unsigned i = 0; i < NUM_COMMANDS; i++) {
		printk("  %-6s %s\n", commands[i].name, commands[i].help);
	}
}

static int getc_blocking(void)
{
	for (;;) {
		irq_disable();
		int c = serial_getc();
		if (c >= 0) {
			irq_enable();
			return c;
		}
		/* sti;hlt is atomic: an interrupt between the check and hlt still wakes us. */
		cpu_idle_once();
	}
}

static void read_line(char *line)
{
	unsigned len = 0;

	for (;;) {
		int c = getc_blocking();
		if (c == '\r' || c == '\n') {
			printk("\n");
			line[len] = '\0';
			return;
		}
		if ((c == BACKSPACE || c == DELETE) && len) {
			len--;
			printk("\b \b");
		} else if (c == CTRL_U) {
			for (; len; len--) {
				printk("\b \b");
			}
		} else if (c >= ' ' && c < DELETE && len + 1 < LINE_MAX) {
			line[len++] = (char)c;
			printk("%c", c);
		}
	}
}

/* Cuts leading and trailing spaces in place; returns the start. */
static char *trim(char *s)
{
	while (*s == ' ') {
		s++;
	}
	size_t n = strlen(s);
	while (n && s[n - 1] == ' ') {
		s[--n] = '\0';
	}
	return s;
}

void kconsole_run(void)
{
	char buf[LINE_MAX];

	for (;;) {
		printk("kernel> ");
		read_line(buf);
		char *line = trim(buf);
		if (!*line) {
			continue;
		}
		bool found = false;
		for (unsigned i = 0; i < NUM_COMMANDS && !found; i++) {
			if (!strcmp(line, commands[i].name)) {
				commands[i].run();
				found = true;
			}
		}
		if (!found) {
			printk("unknown command '%s' (try help)\n", line);
		}
	}
}
