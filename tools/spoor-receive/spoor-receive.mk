# spoor-receive: the host end of the export channel (tools/run-qemu starts it).
SPOOR_RECEIVE := $(BUILD)/host/spoor-receive
SPOOR_RECEIVE_SRCS := tools/spoor-receive/receive.c tools/spoor-receive/seal.c \
	tools/spoor-receive/window.c

$(SPOOR_RECEIVE): $(SPOOR_RECEIVE_SRCS) tools/spoor-receive/seal.h tools/spoor-receive/window.h \
		abi/trace_file.h \
		abi/traced.h abi/traced_ops.def abi/trace.h common/fnv.h \
		tools/spoor-receive/spoor-receive.mk
	@mkdir -p $(dir $@)
	$(CC) $(HOST_TOOL_CFLAGS) -o $@ $(SPOOR_RECEIVE_SRCS)

HOST_TOOLS += $(SPOOR_RECEIVE)
