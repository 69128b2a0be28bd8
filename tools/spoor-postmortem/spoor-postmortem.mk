# spoor-postmortem: the trace of a stopped machine, read from its memory
# (tools/spoor-postmortem/); the top Makefile includes this file. Built
# like spoor-trace, with HOST_TOOL_CFLAGS: its .c files and the common/
# readers in one run, with elfutils' libelf (Debian libelf-dev) for
# kernel.elf's symbols.
# `make postmortem` runs it on the machine `make run` or `make debug`
# started (RUN=build/traces), or on another run folder or a dump (RUN=PATH).

SPOOR_POSTMORTEM := $(BUILD)/host/spoor-postmortem
SPOOR_POSTMORTEM_SRCS := $(sort $(wildcard tools/spoor-postmortem/*.c))
SPOOR_POSTMORTEM_HDRS := $(wildcard tools/spoor-postmortem/*.h common/*.h abi/*.h abi/*.def)

$(SPOOR_POSTMORTEM): $(SPOOR_POSTMORTEM_SRCS) $(wildcard common/*.c) $(SPOOR_POSTMORTEM_HDRS) \
		tools/spoor-postmortem/spoor-postmortem.mk
	@mkdir -p $(dir $@)
	$(CC) $(HOST_TOOL_CFLAGS) -o $@ $(SPOOR_POSTMORTEM_SRCS) \
		$(wildcard common/*.c) -lelf

HOST_TOOLS += $(SPOOR_POSTMORTEM)

RUN ?= $(BUILD)/traces
.PHONY: postmortem
postmortem: $(SPOOR_POSTMORTEM)
	$(SPOOR_POSTMORTEM) $(RUN)
