/*
 * traced-ops-doc: writes traced's operations as a Markdown table on
 * standard output, from abi/traced_ops.def and the stubs libc makes of it
 * (libc/include/trace_client.h), so the table people read is the list the
 * server and the clients are built from. `make` writes it to
 * build/docs/traced_ops.md; abi/traced.h (OPERATIONS) says what each
 * operation does and its errors.
 *
 * Built for the host with libc/include after the system's headers, for
 * trace_client.h's declarations alone.
 */
#include <stdio.h>
#include <string.h>
#include <trace_client.h>

#define STR_(...) #__VA_ARGS__
#define STR(...)  STR_(__VA_ARGS__)

/* A column's words for people: a buffer's size follows a structure's name. */
struct cell {
	const char *text;
	size_t size;	  /* 0: not a structure */
	const char *more; /* after the size: what else goes with it, or "" */
};

#define CELL(text, size, more)                                                                     \
	{                                                                                          \
		text, size, more                                                                   \
	}
#define CELL_NONE	 CELL("-", 0, "")
#define CELL_WORD(what)	 CELL(#what, 0, "")
#define CELL_TEXT	 CELL("text (no NUL)", 0, "")
#define CELL_STRUCT(tag) CELL("struct " #tag, sizeof(struct tag), "")
#define CELL_FRAME(tag)	 CELL("struct " #tag, sizeof(struct tag), " + a frame capability")
#define CELL_PAGES                                                                                 \
	CELL("struct traced_dump_reply", sizeof(struct traced_dump_reply), " + the page's data")
#define CELL_CAP CELL("a capability", 0, "")

/* The client's way to ask: the stub's declaration, or the pager for PAGES. */
#define CLIENT(reply, name, params)                                                                \
	(TRACED_STUBBED_##reply ? STR(TRACED_STUB(name, params)) : "traced_pager_*()")

struct op {
	unsigned nr;
	const char *name, *level;
	struct cell arg, request, reply, result;
	const char *client;
};

static const struct op ops[] = {
#define TRACED_OP(nr, NAME, name, LEVEL, arg, request, reply, result)                              \
	{nr,                                                                                       \
	 #NAME,                                                                                    \
	 #LEVEL,                                                                                   \
	 CELL_##arg,                                                                               \
	 CELL_##request,                                                                           \
	 CELL_##reply,                                                                             \
	 CELL_##result,                                                                            \
	 CLIENT(reply, name,                                                                       \
		TRACED_P_##arg TRACED_P_##request TRACED_R_##reply TRACED_W_##result)},
#include "abi/traced_ops.def"
#undef TRACED_OP
};

static void cell(const struct cell *c)
{
	if (c->size) {
		printf(" %s (%zu bytes)%s |", c->text, c->size, c->more);
	} else {
		printf(" %s%s |", c->text, c->more);
	}
}

/* The stub's declaration as C is written: the preprocessor leaves a space before each comma. */
static void client(const char *decl)
{
	fputs(" `", stdout);
	for (const char *p = decl; *p; p++) {
		if (!(p[0] == ' ' && p[1] == ',')) {
			putchar(*p);
		}
	}
	fputs("` |\n", stdout);
}

int main(void)
{
	printf(
	    "# traced's operations\n\n"
	    "Generated from abi/traced_ops.def by tools/traced-ops-doc.c (`make`); do not edit.\n"
	    "Protocol %d. A request: label = the operation's number, word 0 = TRACED_PROTOCOL,\n"
	    "word 1 = its argument, the request buffer; the reply: word 0 = 0 or -E*, word 1 =\n"
	    "its result, the reply buffer. What each does and its errors: abi/traced.h,\n"
	    "OPERATIONS; who may ask: WHO CALLS.\n\n",
	    TRACED_PROTOCOL);
	printf("| nr | operation | least level | word 1 in | request buffer | reply buffer | "
	       "word 1 out | client (libc/include/trace_client.h) |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		const struct op *o = &ops[i];

		printf("| %u | %s | %s |", o->nr, o->name, o->level);
		cell(&o->arg);
		cell(&o->request);
		cell(&o->reply);
		cell(&o->result);
		client(o->client);
	}
	return ferror(stdout) ? 1 : 0;
}
