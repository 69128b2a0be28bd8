# spoor-receive: the host end of the export channel (tools/run-qemu starts it).
SPOOR_RECEIVE := $(BUILD)/host/spoor-receive

$(SPOOR_RECEIVE): tools/spoor-receive/receive.c abi/trace_file.h abi/traced.h abi/traced_ops.def \
		abi/trace.h common/fnv.h tools/spoor-receive/spoor-receive.mk
	@mkdir -p $(dir $@)
	$(CC) $(HOST_TOOL_CFLAGS) -o $@ tools/spoor-receive/receive.c

HOST_TOOLS += $(SPOOR_RECEIVE)
