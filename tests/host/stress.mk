# The ring stress (tests/host/stress/); the Makefile includes this file.
#
# One program, built twice: with ThreadSanitizer, which sees the races
# the ring's memory orders allow, and at -O2 without sanitizers, where the
# threads interleave at the speed the kernel's code runs. Both use the
# area helper, the kernel's writers as the host runs them
# (tests/host/writers.h) and the sources they test: common/ and
# KERNEL_PURE (the Makefile says what goes there).
#
# ThreadSanitizer cannot see into asm. Under it the slow path's
# reservation takes the same steps with __atomic builtins
# (kernel/trace/ring_write.c), so it checks the readers, the clear and the
# slow path; the straight path (kernel/trace/tracepoint.h) is asm
# through and through, so its writes stay invisible to it, and the
# checksums, the order and the ledger the stress checks are what check
# them, at -O2 as under TSan. `make test-host` runs each for its
# short default (HOST_EXTRA_TESTS); `make stress` (the Makefile) runs
# each for STRESS_SECONDS first.

RING_STRESS_SRCS := $(sort $(wildcard tests/host/stress/*.c)) tests/host/area.c tests/host/writers.c \
	$(sort $(wildcard common/*.c)) $(KERNEL_PURE)
RING_STRESS_DEPS := $(RING_STRESS_SRCS) $(wildcard abi/*.h abi/*.def common/*.h tests/host/*.h \
	tests/host/stress/*.h) $(wildcard $(KERNEL_PURE:.c=.h)) tests/host/stress.mk

RING_STRESS := $(BUILD)/host/stress/ring_stress
RING_STRESS_TSAN := $(BUILD)/host/tsan/ring_stress

$(RING_STRESS): $(RING_STRESS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_THREAD_CFLAGS) -O2 -o $@ $(RING_STRESS_SRCS)

$(RING_STRESS_TSAN): $(RING_STRESS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_THREAD_CFLAGS) -O1 -fsanitize=thread -o $@ $(RING_STRESS_SRCS)

HOST_EXTRA_TESTS += $(RING_STRESS) $(RING_STRESS_TSAN)
