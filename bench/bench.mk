# The host benchmark (bench/ringbench.c); the Makefile includes this file,
# and `make bench` builds and runs it before tools/bench. Never part of
# `make` or `make test`: it needs LTTng-UST, which tools/bench-deps
# installs first, and it only measures.
#
# The code under test is built with the kernel's own flags: the writer
# (kernel/trace/ring_write.c) and what sets its area up, in their own
# objects as the kernel has them, and the measured loops (bench/loops.c)
# that call them, as a tracepoint's surroundings are. Only -mcmodel=kernel
# goes: a host program does not live in the top 2 GiB. The driver
# (ringbench.c: timing, statistics, printing) and LTTng's probe provider
# are ordinary host code.

RINGBENCH := $(BUILD)/bench/ringbench
RINGBENCH_KCFLAGS := $(filter-out -mcmodel=kernel,$(KERNEL_CFLAGS))
RINGBENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer -MMD -MP \
	-Ikernel -I.
RINGBENCH_KSRCS := bench/loops.c kernel/trace/ring_write.c kernel/trace/area_init.c \
	common/trace_ring.c common/trace_header.c common/format.c
RINGBENCH_SRCS := bench/ringbench.c bench/lttng_probe.c
RINGBENCH_OBJS := $(RINGBENCH_KSRCS:%=$(BUILD)/bench/k/%.o) $(RINGBENCH_SRCS:%=$(BUILD)/bench/%.o)

.PHONY: bench-deps ringbench

# Order-only: the packages come before anything that includes their headers.
bench-deps:
	@tools/bench-deps

$(BUILD)/bench/k/%.c.o: %.c $(BUILD)/ttrace-setting | bench-deps
	@mkdir -p $(dir $@)
	$(CC) $(RINGBENCH_KCFLAGS) -c $< -o $@

$(BUILD)/bench/bench/%.c.o: bench/%.c | bench-deps
	@mkdir -p $(dir $@)
	$(CC) $(RINGBENCH_CFLAGS) -c $< -o $@

$(RINGBENCH): $(RINGBENCH_OBJS)
	$(CC) -no-pie -o $@ $(RINGBENCH_OBJS) -llttng-ust -ldl

# Builds and runs it with its own LTTng session daemon (bench/run-ringbench).
ringbench: $(RINGBENCH)
	bench/run-ringbench $(RINGBENCH)

-include $(RINGBENCH_OBJS:.o=.d)
