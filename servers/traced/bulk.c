/*
 * bulk: BULK (abi/traced.h), a binary DUMP page as large as the frame the
 * client sends with the call. The merge is dump.c's; this file only
 * checks the frame, maps it for the length of the call and writes the
 * page into it. traced never reads the frame, so nothing the client
 * writes there can mislead it; its own capability and mapping keep the
 * memory alive until it has let go of both, whatever the client does
 * with its copies meanwhile.
 */
#include <errno.h>
#include <spoor.h>

#include "servers/traced/bulk.h"
#include "servers/traced/dump.h"
#include "servers/traced/merge.h"
#include "servers/traced/page.h"
#include "servers/traced/request.h"
#include "servers/traced/state.h"

/* The frame in slot, if BULK may fill it: its size, or -EINVAL / -EACCES. */
static long frame_size(uint32_t slot)
{
	struct cap_info info;

	if (slot == IPC_NO_CAP || sys_cap_identify((int)slot, &info) ||
	    info.kind != CAP_KIND_FRAME || info.size > TRACED_BULK_MAX) {
		return -EINVAL;
	}
	if ((info.rights & (CAP_RIGHT_READ | CAP_RIGHT_WRITE)) !=
	    (CAP_RIGHT_READ | CAP_RIGHT_WRITE)) {
		return -EACCES;
	}
	return (long)info.size;
}

int bulk_page(const struct request *req, struct reply *rep)
{
	struct traced_dump_request r;
	struct merge_piece piece = {0};
	long size = frame_size(req->cap);

	if (size < 0) {
		return (int)size;
	}
	int err = dump_request(TRACED_OP_DUMP, req, &r, &piece);
	if (err || r.format != TRACED_FORMAT_BINARY) {
		return err ? err : -EINVAL;
	}
	long window = sys_mem_map_frame((int)req->cap, NULL, PROT_READ | PROT_WRITE);
	if (window < 0) {
		return (int)window;
	}
	piece.out = (uint8_t *)window;
	piece.max = (size_t)size;
	bool done = merge_fill(MERGE_DUMP, &r.filter, &r.cursor, r.format, &piece);
	sys_mem_unmap((void *)window, (size_t)size);
	page_finish(rep, &r.cursor, done, (uint32_t)piece.len, piece.events);
	rep->len = sizeof(struct traced_dump_reply); /* the data is in the frame */
	return 0;
}
