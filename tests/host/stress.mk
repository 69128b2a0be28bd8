# The ring stress (tests/host/stress/); the Makefile includes this file.
#
# One program, built twice: with ThreadSanitizer, which sees the races
# the ring's memory orders allow, and at -O2 without sanitizers, where the
# threads interleave at the speed the kernel's code runs. Both use the
# area helper and the sources they test: common/ and KERNEL_PURE (the
# Makefile says what goes there). `make test-host` runs each for its
# short default (HOST_EXTRA_TESTS); `make stress` runs STRESS_STEPS: each
# for STRESS_SECONDS, first. Another stress part appends `&& COMMAND` to
# STRESS_STEPS and what it needs to stress's prerequisites.

RING_STRESS_SRCS := $(sort $(wildcard tests/host/stress/*.c)) tests/host/area.c \
	$(sort $(wildcard common/*.c)) $(KERNEL_PURE)
RING_STRESS_DEPS := $(RING_STRESS_SRCS) $(wildcard abi/*.h abi/*.def common/*.h tests/host/*.h \
	tests/host/stress/*.h) $(KERNEL_PURE:.c=.h) tests/host/stress.mk
RING_STRESS_CFLAGS := -std=gnu11 -g -Wall -Wextra -Werror -fno-omit-frame-pointer -pthread \
	-Ikernel -I. -Itests/host

RING_STRESS := $(BUILD)/host/stress/ring_stress
RING_STRESS_TSAN := $(BUILD)/host/tsan/ring_stress

$(RING_STRESS): $(RING_STRESS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(RING_STRESS_CFLAGS) -O2 -o $@ $(RING_STRESS_SRCS)

$(RING_STRESS_TSAN): $(RING_STRESS_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(RING_STRESS_CFLAGS) -O1 -fsanitize=thread -o $@ $(RING_STRESS_SRCS)

HOST_EXTRA_TESTS += $(RING_STRESS) $(RING_STRESS_TSAN)

STRESS_SECONDS ?= 120
STRESS_STEPS := $(RING_STRESS) $(STRESS_SECONDS) && $(RING_STRESS_TSAN) $(STRESS_SECONDS)

.PHONY: stress
stress: $(RING_STRESS) $(RING_STRESS_TSAN)
	$(STRESS_STEPS)
