# The host benchmark (bench/ringbench.c); the Makefile includes this file,
# and `make bench` builds and runs it before tools/bench. Never part of
# `make` or `make test`: it needs LTTng-UST, which tools/bench-deps
# installs first, and it only measures.
#
# The code under test is built with the kernel's own flags: the slow
# path's writer (kernel/trace/ring_write.c), the kinds' table the straight
# path reads (kernel/trace/kind_words.c) and what sets the area up, in
# their own objects as the kernel has them, and the measured loops
# (bench/loops.c) that call them and run the straight path
# (kernel/trace/tracepoint.h), as a tracepoint's surroundings are. Only
# -mcmodel=kernel goes: a host program does not live in the top 2 GiB.
# The driver (ringbench.c: timing, statistics, printing), the simulated
# CPU the straight path runs on (tests/host/writers.c) and LTTng's probe
# provider are ordinary host code.

RINGBENCH := $(BUILD)/bench/ringbench
RINGBENCH_KCFLAGS := $(filter-out -mcmodel=kernel,$(KERNEL_CFLAGS))
RINGBENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer -MMD -MP \
	-Ikernel -I.
RINGBENCH_KSRCS := bench/loops.c kernel/trace/ring_write.c kernel/trace/kind_words.c \
	kernel/trace/area_init.c common/trace_ring.c common/trace_header.c common/format.c
RINGBENCH_SRCS := bench/ringbench.c bench/lttng_probe.c tests/host/writers.c
RINGBENCH_OBJS := $(RINGBENCH_KSRCS:%=$(BUILD)/bench/k/%.o) $(RINGBENCH_SRCS:%=$(BUILD)/bench/%.o)

.PHONY: bench-deps ringbench

# Order-only: the packages come before anything that includes their headers.
bench-deps:
	@tools/bench-deps

$(BUILD)/bench/k/%.c.o: %.c $(BUILD)/ttrace-setting | bench-deps
	@mkdir -p $(dir $@)
	$(CC) $(RINGBENCH_KCFLAGS) -c $< -o $@

$(BUILD)/bench/%.c.o: %.c | bench-deps
	@mkdir -p $(dir $@)
	$(CC) $(RINGBENCH_CFLAGS) -c $< -o $@

$(RINGBENCH): $(RINGBENCH_OBJS)
	$(CC) -no-pie -o $@ $(RINGBENCH_OBJS) -llttng-ust -ldl

# Builds and runs it with its own LTTng session daemon (bench/run-ringbench).
ringbench: $(RINGBENCH)
	bench/run-ringbench $(RINGBENCH)

-include $(RINGBENCH_OBJS:.o=.d)

# make bench-linux (tools/bench-linux): Debian's cloud kernel and
# busybox-static, downloaded and unpacked into build/linux by
# tools/bench-linux-fetch (nothing installed), booted with an initramfs of
# busybox and bench/linuxbench.c (a static host program), measured beside
# Spoor in one run. Never part of make bench or make test: it downloads
# about 28 MB. The fetch writes vmlinuz after busybox, so vmlinuz stands
# for both.
LINUX_DIR := $(BUILD)/linux
LINUXBENCH := $(BUILD)/bench/linuxbench
LINUX_INITRAMFS := $(BUILD)/bench/linux-initramfs.cpio.gz

.PHONY: bench-linux

$(LINUX_DIR)/vmlinuz:
	tools/bench-linux-fetch $(LINUX_DIR)

$(LINUXBENCH): bench/linuxbench.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -static -o $@ $<

$(LINUX_INITRAMFS): bench/linux-initramfs bench/linux-init $(LINUXBENCH) $(LINUX_DIR)/vmlinuz
	bench/linux-initramfs $@ $(LINUX_DIR)/busybox $(LINUXBENCH)

bench-linux: deps $(BUILD)/spoor.iso $(HOST_TOOLS) $(LINUX_INITRAMFS)
	$(PYTHON) tools/bench-linux
