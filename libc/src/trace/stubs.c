/*
 * stubs: traced_call_<name>() for each operation of abi/traced_ops.def
 * (trace_client.h), made from the list's columns: what each parameter
 * becomes in the request, and the reply's buffer and capability.
 */
#include <spoor.h>
#include <string.h>
#include <trace_client.h>

#include "../internal.h"

/* Word 1 of the request. */
#define TRACED_V_NONE	    0
#define TRACED_V_WORD(what) what
/* The request's buffer and length, then the capability it sends. */
#define TRACED_B_NONE	     NULL, 0, IPC_NO_CAP
#define TRACED_B_TEXT	     text, strnlen(text, IPC_BUF_MAX), IPC_NO_CAP
#define TRACED_B_STRUCT(tag) req, sizeof(*req), IPC_NO_CAP
#define TRACED_B_FRAME(tag)  req, sizeof(*req), frame
/* The reply's buffer and room, then where the capability it carries goes. */
#define TRACED_Y_NONE	     NULL, 0, NULL
#define TRACED_Y_STRUCT(tag) reply, sizeof(*reply), NULL
#define TRACED_Y_CAP	     NULL, 0, cap
/* Word 1 of the reply. */
#define TRACED_Z_NONE	    NULL
#define TRACED_Z_WORD(what) what

/* A stub's definition by the operation's reply: none for PAGES. */
#define TRACED_DEFINE_NONE(NAME, name, params, ...)                                                \
	TRACED_STUB(name, params)                                                                  \
	{                                                                                          \
		return __libc_traced_stub(TRACED_OP_##NAME, __VA_ARGS__);                          \
	}
#define TRACED_DEFINE_STRUCT(tag) TRACED_DEFINE_NONE
#define TRACED_DEFINE_CAP	  TRACED_DEFINE_NONE
#define TRACED_DEFINE_PAGES(...)
#define TRACED_OP(nr, NAME, name, LEVEL, arg, request, reply, result)                              \
	TRACED_DEFINE_##reply(                                                                     \
	    NAME, name, TRACED_P_##arg TRACED_P_##request TRACED_R_##reply TRACED_W_##result,      \
	    TRACED_V_##arg, TRACED_B_##request, TRACED_Y_##reply, TRACED_Z_##result)
#include "abi/traced_ops.def"
#undef TRACED_OP
