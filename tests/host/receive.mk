# The export window's host reader (tools/spoor-receive/window.c) against
# hostile windows, and its recordings' checksums (seal.c) against hostile
# records, under AddressSanitizer and UBSan (tests/host/receive/);
# `make test-host` runs it (HOST_EXTRA_TESTS).
RECEIVE_TEST := $(BUILD)/host/receive/run_tests
RECEIVE_TEST_OBJS := $(patsubst %,$(BUILD)/host/%.o,tests/host/runner.c \
	tests/host/receive/test_seal.c tests/host/receive/test_window.c \
	tools/spoor-receive/seal.c tools/spoor-receive/window.c)

$(RECEIVE_TEST): $(RECEIVE_TEST_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^

HOST_EXTRA_TESTS += $(RECEIVE_TEST)
-include $(RECEIVE_TEST_OBJS:.o=.d)
