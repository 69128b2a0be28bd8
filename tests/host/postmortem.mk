# The post-mortem reader's host tests (tests/host/postmortem/): the reader
# (tools/spoor-postmortem) on synthetic dumps whose trace area the
# kernel's own writers filled, its file checked by spoor-trace's reader.
POSTMORTEM_TEST := $(BUILD)/host/postmortem/run_tests
POSTMORTEM_TEST_OBJS := $(patsubst %,$(BUILD)/host/%.o,tests/host/runner.c \
	tests/host/postmortem/test_postmortem.c tools/spoor-postmortem/dump.c \
	tools/spoor-postmortem/extract.c tools/spoor-postmortem/why.c tools/spoor-trace/file.c \
	tools/spoor-trace/file_parse.c \
	tools/spoor-trace/chunks.c $(wildcard common/*.c) \
	kernel/trace/area_init.c kernel/trace/ring_write.c kernel/trace/aux_write.c \
	tests/host/writers.c)

$(POSTMORTEM_TEST): $(POSTMORTEM_TEST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^

HOST_EXTRA_TESTS += $(POSTMORTEM_TEST)
-include $(POSTMORTEM_TEST_OBJS:.o=.d)
