# Spoor: one entry point. `make run` boots to the console, `make test` runs
# every test; both install missing packages first (make deps).

SMP ?= 4
MEM ?= 256M
KCMDLINE ?=

BUILD := build
CC := gcc
LD := ld
PYTHON := /usr/bin/python3

KERNEL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-stack-protector \
	-fno-pic -fno-pie -mno-red-zone -mcmodel=kernel -mgeneral-regs-only \
	-fno-omit-frame-pointer -fno-tree-loop-distribute-patterns -MMD -MP -Ikernel -I.
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
	-T kernel/arch/x86_64/kernel.ld

KERNEL_SRCS := $(sort $(shell find kernel common -name '*.c' -o -name '*.S'))
KERNEL_OBJS := $(KERNEL_SRCS:%=$(BUILD)/%.o)

# Host unit tests: the kernel's pure sources compiled natively with sanitizers.
HOST_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -fsanitize=address,undefined \
	-fno-sanitize-recover=all \
	-fno-omit-frame-pointer -MMD -MP -Ikernel -I. -Itests/host
HOST_UNITS := common/format.c kernel/init/cmdline.c kernel/mm/frame_bitmap.c
HOST_SRCS := $(sort $(wildcard tests/host/*.c)) $(HOST_UNITS)
HOST_OBJS := $(HOST_SRCS:%=$(BUILD)/host/%.o)

QEMU := qemu-system-x86_64 -smp $(SMP) -m $(MEM) -cdrom $(BUILD)/spoor.iso -serial mon:stdio \
	-display none -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=0x04

LINT_SRCS = $(shell find abi common kernel tests/host -name '*.c' -o -name '*.h')

.PHONY: all deps run debug test test-host test-system lint clean FORCE

all: $(BUILD)/spoor.iso

deps:
	@tools/deps

$(BUILD)/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/kernel.elf: $(KERNEL_OBJS) kernel/arch/x86_64/kernel.ld
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS)

# The ISO depends on the command line it carries: rebuild when it changes.
$(BUILD)/kcmdline: FORCE
	@mkdir -p $(BUILD)
	@echo '$(KCMDLINE)' | cmp -s - $@ || echo '$(KCMDLINE)' > $@

$(BUILD)/spoor.iso: $(BUILD)/kernel.elf grub.cfg tools/mkiso $(BUILD)/kcmdline
	tools/mkiso $@ $(BUILD)/kernel.elf '$(KCMDLINE)'

run: deps $(BUILD)/spoor.iso
	$(QEMU)

debug: deps $(BUILD)/spoor.iso
	@echo "QEMU waits for gdb: run 'gdb -x tools/spoor.gdb' in another terminal"
	$(QEMU) -s -S

$(BUILD)/host/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

$(BUILD)/host/run_tests: $(HOST_OBJS)
	$(CC) $(HOST_CFLAGS) -o $@ $(HOST_OBJS)

test-host: $(BUILD)/host/run_tests
	$(BUILD)/host/run_tests

test-system: $(BUILD)/spoor.iso
	$(PYTHON) -m pytest -q tests/system

test: deps
	$(MAKE) test-host
	$(MAKE) test-system

lint: deps
	clang-format --dry-run --Werror $(LINT_SRCS)
	cppcheck -q --error-exitcode=1 --enable=warning,portability --inline-suppr \
		--suppress=missingIncludeSystem -D__GNUC__ -Ikernel -I. abi common kernel tests/host

clean:
	rm -rf $(BUILD)

-include $(KERNEL_OBJS:.o=.d) $(HOST_OBJS:.o=.d)
