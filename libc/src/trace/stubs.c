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

/* Each stub: trace_client.h's declaration, with a body that sends the request. */
#define TRACED_OP(nr, NAME, name, LEVEL, arg, request, reply, result)                              \
	TRACED_IF(TRACED_STUBBED_##reply)                                                          \
	(TRACED_STUB(name, TRACED_P_##arg TRACED_P_##request TRACED_R_##reply TRACED_W_##result) { \
		return __libc_traced_stub(TRACED_OP_##NAME, TRACED_V_##arg, TRACED_B_##request,    \
					  TRACED_Y_##reply, TRACED_Z_##result);                    \
	})
#include "abi/traced_ops.def"
#undef TRACED_OP
