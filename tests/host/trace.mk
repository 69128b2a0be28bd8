# The aux concurrency test; the Makefile includes this file.
#
# tests/host/tsan/ holds tests that need ThreadSanitizer, which does not
# mix with the AddressSanitizer of run_tests: they build into a binary of
# their own, with the same runner and area helper and the sources
# run_tests compiles too, common/ and KERNEL_PURE (the Makefile says what
# goes there), and `make test-host` runs it after run_tests
# (HOST_EXTRA_TESTS). The folder keeps them out of run_tests'
# tests/host/*.c.

TRACE_TSAN := $(BUILD)/host/tsan/run_tests
TRACE_TSAN_SRCS := tests/host/runner.c tests/host/area.c $(sort $(wildcard tests/host/tsan/*.c)) \
	$(sort $(wildcard common/*.c)) $(KERNEL_PURE)

$(TRACE_TSAN): $(TRACE_TSAN_SRCS) $(wildcard abi/*.h abi/*.def common/*.h tests/host/*.h) \
		$(wildcard $(KERNEL_PURE:.c=.h)) \
		tests/host/trace.mk
	@mkdir -p $(dir $@)
	$(CC) $(HOST_THREAD_CFLAGS) -O1 -fsanitize=thread -o $@ $(TRACE_TSAN_SRCS)

HOST_EXTRA_TESTS += $(TRACE_TSAN)
