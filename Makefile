# Spoor: one entry point. `make run` boots to the console, `make test` runs
# every test; both install missing packages first (make deps).

SMP ?= 4
MEM ?= 256M
KCMDLINE ?=
TTRACE ?= 1
# Programs of tests/programs/ that `make run` and `make debug` also load
# (e.g. PROGRAMS="hotspot tracegen", which the README's examples use):
# they boot an image of their own, build/run.iso, so build/spoor.iso, the
# product's image, stays free of test programs.
PROGRAMS ?=

BUILD := build
CC := gcc
LD := ld
PYTHON := /usr/bin/python3

KERNEL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-stack-protector \
	-fno-pic -fno-pie -mno-red-zone -mcmodel=kernel -mgeneral-regs-only \
	-fno-omit-frame-pointer -fno-tree-loop-distribute-patterns -MMD -MP -Ikernel -I. \
	-DTTRACE_ENABLED=$(TTRACE)
# The function tracer's entry NOPs (abi/trace_func.h): GCC gives every
# function a 5-byte NOP before its prologue and lists their addresses in
# __mcount_loc, which kernel.ld keeps; `trace func` rewrites them into
# calls. FTRACE=0 builds without them (make bench's side by side). The
# sources the tracer may not trace are compiled without them, by reason:
# FUNC_NOTRACE_<WHY> for each TTRACE_FUNC_WHY_<WHY> of abi/trace_func.h
# that is a file's (tools/func-notrace names their functions).
FTRACE ?= 1
KERNEL_FTRACE_FLAGS := $(if $(filter 1,$(FTRACE)),-pg -mfentry -mnop-mcount -mrecord-mcount)
FUNC_NOTRACE_TRACER = $(filter kernel/trace/% common/% %/fentry.S,$(KERNEL_SRCS))
FUNC_NOTRACE_PATCHER := kernel/arch/x86_64/static_branch.c kernel/arch/x86_64/smp.c \
	kernel/arch/x86_64/restart.c kernel/lib/string.c kernel/lib/ksyms.c
FUNC_NOTRACE_TRAP := kernel/arch/x86_64/trap.c
FUNC_NOTRACE_ENTRY = $(filter-out $(FUNC_NOTRACE_TRACER),$(filter %.S,$(KERNEL_SRCS))) \
	kernel/syscall/table.c
FUNC_NOTRACE = $(FUNC_NOTRACE_TRACER) $(FUNC_NOTRACE_PATCHER) $(FUNC_NOTRACE_TRAP) \
	$(FUNC_NOTRACE_ENTRY)
# Files of those lists compiled with the NOP after all, their untraceable
# functions marked notrace one by one (the why table still names them):
# the system call dispatch's sys_ipc, which every IPC call enters, is
# traceable (`trace graph sys_ipc`), the rest of its file entry code.
FUNC_NOTRACE_MARKED := kernel/syscall/table.c
FUNC_NO_NOP = $(filter-out $(FUNC_NOTRACE_MARKED),$(FUNC_NOTRACE))
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
	-T kernel/arch/x86_64/kernel.ld

# The sources, by who compiles them. common/ holds pure code that both the
# kernel and user space compile: it includes only abi/ and common/ headers
# (no kernel or libc ones) and allocates nothing. Pure code only one side
# uses lives with that side (the trace writers, only the kernel's, are in
# kernel/trace/). So the kernel builds kernel/ and common/, libc.a carries
# libc/ and common/, and the host tests compile common/ and KERNEL_PURE.
KERNEL_SRCS := $(sort $(shell find kernel common -name '*.c' -o -name '*.S'))
KERNEL_OBJS := $(KERNEL_SRCS:%=$(BUILD)/%.o)

# User space: libc (freestanding, general registers only: the kernel does not
# save FPU/SSE state) and one program per folder in servers/ and apps/.
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-stack-protector \
	-fno-pic -fno-pie -mgeneral-regs-only -fno-omit-frame-pointer \
	-fno-tree-loop-distribute-patterns -nostdinc -isystem $(shell $(CC) -print-file-name=include) \
	-Ilibc/include -I. -MMD -MP
USER_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
	-T libc/arch/x86_64/user.ld
CRT0 := $(BUILD)/user/libc/arch/x86_64/crt0.S.o
LIBC_SRCS := $(sort $(shell find libc -name '*.c' -o -name '*.S' 2>/dev/null | grep -v crt0.S)) \
	$(wildcard common/*.c)
LIBC_OBJS := $(LIBC_SRCS:%=$(BUILD)/user/%.o)
# The product's programs go to build/bin and into every image; the
# programs only tests use (tests/programs/) go to build/tests/bin and into
# the images the system tests boot (tools/mkiso's module arguments).
PROGRAM_DIRS := $(sort $(wildcard servers/*/ apps/*/))
TEST_PROGRAM_DIRS := $(sort $(wildcard tests/programs/*/))
PRODUCT_PROGRAMS := $(foreach d,$(PROGRAM_DIRS),$(BUILD)/bin/$(notdir $(d:/=)))
TEST_PROGRAMS := $(foreach d,$(TEST_PROGRAM_DIRS),$(BUILD)/tests/bin/$(notdir $(d:/=)))
# The images' module lists, the one place each is kept: a module string is
# a program's name, then its attributes after a ':' ("echo:server"), which
# becomes the space of grub.cfg's module2 line. BOOT_MODULES, every image's
# (grub.cfg's modules.cfg, tools/mkiso): the product's programs, init
# first, then the others by name, those of servers/ marked server (init
# starts and keeps them). TEST_MODULES, the programs of tests/programs/
# every image the system tests boot adds (tests/system/spoorlib.py); the
# others only the tests that need them add.
BOOT_MODULES := init $(sort $(foreach d,$(filter-out servers/init/,$(PROGRAM_DIRS)),\
	$(notdir $(d:/=))$(if $(filter servers/%,$(d)),:server)))
TEST_MODULES := spin fault captest sysfuzz echo:server ipctest tracecap tracegen tracedfuzz \
	tracescope edges churn traceflip tracebulk memhog hotspot stackbad predfuzz probeload
# A program is every .c file of its folder's tree, so a new file needs no list.
program_srcs = $(sort $(shell find $(1) -name '*.c'))
USER_OBJS := $(foreach d,$(PROGRAM_DIRS) $(TEST_PROGRAM_DIRS),\
	$(patsubst %,$(BUILD)/user/%.o,$(call program_srcs,$(d))))

# Host unit tests: common/ and the kernel's pure files compiled natively
# with sanitizers. KERNEL_PURE lists the kernel files the host tests
# compile, the only route of kernel code into them. A file is eligible
# when it includes only abi/, common/ and other pure kernel headers, takes
# no locks and allocates nothing; the kernel compiles it as any other.
#
# Every host build starts from HOST_BASE_CFLAGS, written once here: the
# unit tests add the sanitizers (HOST_CFLAGS), the host tools (tools/*/)
# optimise (HOST_TOOL_CFLAGS), the thread tests and the ring stress add
# threads (HOST_THREAD_CFLAGS, with their own optimisation and TSan).
HOST_BASE_CFLAGS := -std=gnu11 -g -Wall -Wextra -Werror -fno-omit-frame-pointer
HOST_CFLAGS := $(HOST_BASE_CFLAGS) -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-MMD -MP -Ikernel -I. -Itests/host
HOST_TOOL_CFLAGS := $(HOST_BASE_CFLAGS) -O2 -I.
HOST_THREAD_CFLAGS := $(HOST_BASE_CFLAGS) -pthread -Ikernel -I. -Itests/host
KERNEL_PURE := kernel/arch/x86_64/madt.c kernel/init/cmdline.c kernel/mm/frame_bitmap.c \
	kernel/trace/area_init.c kernel/trace/aux_write.c kernel/trace/name_holds.c \
	kernel/trace/ring_write.c kernel/trace/recorder.c \
	kernel/trace/kind_words.c kernel/trace/probe_insn.c kernel/trace/pred_code.c
HOST_SRCS := $(sort $(wildcard tests/host/*.c)) $(wildcard common/*.c) $(KERNEL_PURE)
HOST_OBJS := $(HOST_SRCS:%=$(BUILD)/host/%.o)

# The image make run and make debug boot: the product's, or with PROGRAMS its own.
RUN_ISO := $(if $(strip $(PROGRAMS)),$(BUILD)/run.iso,$(BUILD)/spoor.iso)

# tools/run-qemu adds the export channel (COM2 and the export window), served
# into build/traces/ by build/host/spoor-receive: `trace save` writes there.
QEMU := tools/run-qemu $(BUILD)/traces -smp $(SMP) -m $(MEM) -cdrom $(RUN_ISO) \
	-serial mon:stdio -display none -no-reboot -device isa-debug-exit,iobase=0xf4,iosize=0x04

ABI_CHECKS := $(patsubst %,$(BUILD)/%.ok,$(wildcard abi/*.h))

LINT_SRCS = $(shell find abi common kernel libc servers apps tools tests/host tests/programs -name '*.c' -o -name '*.h' 2>/dev/null)

# Host tools (tools/NAME/, e.g. spoor-trace): each folder's NAME.mk builds
# its program into build/host/ and adds it to HOST_TOOLS, which `make`
# builds with the image. Included before the rules that need them.
HOST_TOOLS :=
HOST_EXTRA_OBJS :=
HOST_EXTRA_TESTS :=
-include $(wildcard tools/*/*.mk)
-include bench/bench.mk

# `make` alone builds all, whatever rules the included fragments define first.
.DEFAULT_GOAL := all

.PHONY: all deps run debug test test-host test-system bench lint clean FORCE

all: $(BUILD)/spoor.iso $(HOST_TOOLS) $(ABI_CHECKS) $(BUILD)/docs/traced_ops.md

deps:
	@tools/deps

# Each abi/ header compiles on its own, with the kernel's, user space's and
# the host's flags (STYLE.md, abi/ discipline): a check per header, part
# of `make`, which its dependency file reruns when a header it includes
# changes.
$(BUILD)/abi/%.h.ok: abi/%.h
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -fsyntax-only -x c $< -MF $@.d -MT $@
	$(CC) $(USER_CFLAGS) -fsyntax-only -x c $< -MF $@.d -MT $@
	$(CC) $(HOST_BASE_CFLAGS) -I. -fsyntax-only -x c $<
	touch $@

# traced's operations as a table for people, from the list the server and
# libc's stubs are made of (abi/traced_ops.def). Built for the host with
# libc/include after the system's headers, for trace_client.h alone.
$(BUILD)/docs/traced_ops.md: tools/traced-ops-doc.c abi/traced_ops.def abi/traced.h \
		libc/include/trace_client.h
	@mkdir -p $(dir $@) $(BUILD)/host
	$(CC) $(HOST_TOOL_CFLAGS) -idirafter libc/include -o $(BUILD)/host/traced-ops-doc $<
	$(BUILD)/host/traced-ops-doc > $@.tmp && mv $@.tmp $@

# Kernel objects depend on TTRACE, FTRACE and the files built without the
# entry NOPs: a change of any rebuilds them.
KERNEL_SETTING = $(TTRACE) $(FTRACE) $(FUNC_NOTRACE)
$(BUILD)/ttrace-setting: FORCE
	@mkdir -p $(BUILD)
	@echo '$(KERNEL_SETTING)' | cmp -s - $@ || echo '$(KERNEL_SETTING)' > $@

$(BUILD)/%.c.o: %.c $(BUILD)/ttrace-setting
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) $(if $(filter $<,$(FUNC_NO_NOP)),,$(KERNEL_FTRACE_FLAGS)) -c $< -o $@

$(BUILD)/%.S.o: %.S $(BUILD)/ttrace-setting
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

# Linked twice: the first link's functions become the symbol table the
# second links in (tools/ksyms, kernel/lib/ksyms.h), which moves none of
# them, with the table of functions the function tracer may not trace and
# why (tools/func-notrace, trace/func_notrace.h) and the instruction
# boundaries of the text (tools/kinsns, trace/probe_table.h), data only as
# well. PROBE_NMI_ROOTS: what trap_dispatch() runs for an NMI, from which
# kinsns marks every function an NMI reaches (a kernel probe refuses them).
PROBE_NMI_ROOTS := watchdog_nmi panic_in_progress
obj_of = $(patsubst %,$(BUILD)/%.o,$(1))
$(BUILD)/kernel.elf: $(KERNEL_OBJS) kernel/arch/x86_64/kernel.ld tools/ksyms tools/func-notrace \
		tools/kinsns
	$(LD) $(KERNEL_LDFLAGS) -o $@.nosyms $(KERNEL_OBJS)
	tools/ksyms $@.nosyms > $(BUILD)/ksyms.S
	$(CC) $(KERNEL_CFLAGS) -c $(BUILD)/ksyms.S -o $(BUILD)/ksyms.S.o
	tools/kinsns $@.nosyms $(PROBE_NMI_ROOTS) > $(BUILD)/kinsns.S
	$(CC) $(KERNEL_CFLAGS) -c $(BUILD)/kinsns.S -o $(BUILD)/kinsns.S.o
	tools/func-notrace TRACER '$(call obj_of,$(FUNC_NOTRACE_TRACER))' \
		PATCHER '$(call obj_of,$(FUNC_NOTRACE_PATCHER))' TRAP '$(call obj_of,$(FUNC_NOTRACE_TRAP))' \
		ENTRY '$(call obj_of,$(FUNC_NOTRACE_ENTRY))' > $(BUILD)/func_notrace.c
	$(CC) $(KERNEL_CFLAGS) -c $(BUILD)/func_notrace.c -o $(BUILD)/func_notrace.c.o
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS) $(BUILD)/ksyms.S.o $(BUILD)/func_notrace.c.o \
		$(BUILD)/kinsns.S.o
	tools/ksyms $@ | cmp -s - $(BUILD)/ksyms.S || { echo "ksyms: the table moved the kernel's functions" >&2; rm -f $@; exit 1; }

# The ISO depends on the command line it carries: rebuild when it changes.
$(BUILD)/kcmdline: FORCE
	@mkdir -p $(BUILD)
	@echo '$(KCMDLINE)' | cmp -s - $@ || echo '$(KCMDLINE)' > $@

$(BUILD)/user/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -c $< -o $@

$(BUILD)/user/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -c $< -o $@

$(BUILD)/libc.a: $(LIBC_OBJS)
	rm -f $@
	ar rcs $@ $^

# A program is every .c file of its folder's tree ($(1)), linked after
# crt0 with libc into the folder $(2).
define program_rule
$(2)/$(notdir $(1:/=)): $(CRT0) $(patsubst %,$(BUILD)/user/%.o,$(call program_srcs,$(1))) \
		$(BUILD)/libc.a libc/arch/x86_64/user.ld
	@mkdir -p $(2)
	$(LD) $(USER_LDFLAGS) -o $$@ $(CRT0) $(patsubst %,$(BUILD)/user/%.o,$(call program_srcs,$(1))) \
		$(BUILD)/libc.a
endef
$(foreach d,$(PROGRAM_DIRS),$(eval $(call program_rule,$(d),$(BUILD)/bin)))
$(foreach d,$(TEST_PROGRAM_DIRS),$(eval $(call program_rule,$(d),$(BUILD)/tests/bin)))

# The module lists as files, a module string a line (its ':' a space
# again), rewritten only when a list changes: build/modules for
# tools/mkiso, build/tests/modules for the system tests.
$(BUILD)/modules: FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' $(subst :,' ',$(BOOT_MODULES)) | cmp -s - $@ || \
		printf '%s\n' $(subst :,' ',$(BOOT_MODULES)) > $@

$(BUILD)/tests/modules: FORCE
	@mkdir -p $(dir $@)
	@for m in $(TEST_MODULES); do [ -d tests/programs/$${m%%:*} ] || \
		{ echo "TEST_MODULES: no test program '$${m%%:*}' (tests/programs/)" >&2; exit 2; }; done
	@printf '%s\n' $(subst :,' ',$(TEST_MODULES)) | cmp -s - $@ || \
		printf '%s\n' $(subst :,' ',$(TEST_MODULES)) > $@

$(BUILD)/spoor.iso: $(BUILD)/kernel.elf $(PRODUCT_PROGRAMS) grub.cfg tools/mkiso $(BUILD)/kcmdline \
		$(BUILD)/modules
	tools/mkiso $@ $(BUILD)/kernel.elf '$(KCMDLINE)'

# make run PROGRAMS=...: the product's image and those test programs (a
# name that is not one is refused in one line). It depends on the list it
# carries, as the ISO on its command line.
$(BUILD)/run-programs: FORCE
	@mkdir -p $(BUILD)
	@echo '$(PROGRAMS)' | cmp -s - $@ || echo '$(PROGRAMS)' > $@

$(BUILD)/run.iso: $(BUILD)/kernel.elf $(PRODUCT_PROGRAMS) grub.cfg tools/mkiso $(BUILD)/kcmdline \
		$(BUILD)/modules $(BUILD)/run-programs $(filter $(addprefix $(BUILD)/tests/bin/,$(PROGRAMS)),$(TEST_PROGRAMS))
	@for p in $(PROGRAMS); do [ -f $(BUILD)/tests/bin/$$p ] || \
		{ echo "PROGRAMS: no test program '$$p' (tests/programs/)" >&2; exit 2; }; done
	tools/mkiso $@ $(BUILD)/kernel.elf '$(KCMDLINE)' $(PROGRAMS)

run: deps $(RUN_ISO) $(HOST_TOOLS)
	$(QEMU)

debug: deps $(RUN_ISO) $(HOST_TOOLS)
	@echo "QEMU waits for gdb: run 'gdb -x tools/spoor.gdb' in another terminal"
	$(QEMU) -s -S

$(BUILD)/host/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c $< -o $@

# libc's host build (libc/host.mk) adds its objects, symbols renamed spoor_*;
# tests/host/*.mk add test targets of their own (HOST_EXTRA_TESTS).
-include libc/host.mk
-include $(wildcard tests/host/*.mk)

$(BUILD)/host/run_tests: $(HOST_OBJS) $(HOST_EXTRA_OBJS)
	$(CC) $(HOST_CFLAGS) -o $@ $(HOST_OBJS) $(HOST_EXTRA_OBJS)

# Each host test runs bounded in time (tests/host/bounded): one that hangs
# is stopped and named. The slowest take under half a minute alone.
HOST_TEST_SECONDS := 600
HOST_BOUNDED := tests/host/bounded $(HOST_TEST_SECONDS)

test-host: $(BUILD)/host/run_tests $(HOST_EXTRA_TESTS)
	$(HOST_BOUNDED) $(BUILD)/host/run_tests
	$(foreach t,$(HOST_EXTRA_TESTS),$(HOST_BOUNDED) $(t) &&) true

# What the system tests use, built before make test-system and make soak run
# them (the .mk files add their tools' checks).
.PHONY: system-test-needs
system-test-needs: $(BUILD)/spoor.iso $(TEST_PROGRAMS) $(BUILD)/tests/modules $(HOST_TOOLS)

# The system tests' run, which make test-system, make stress and make soak
# share: TEST_JOBS test files at once (pytest-xdist), each file's tests in
# order in one worker, so a machine a module shares is booted once for it.
# A test leaves the host's CPUs idle much of the time (it waits on a
# guest's console), so two files at once take far less than twice one's
# time on two cores (a clean clone's make test: 740 s against about 1000).
# TEST_JOBS=0 runs them in pytest's own process, one at a time (for pdb).
# Two at once needs teardowns that keep up under two machines' load: they
# take the allocators' locks once a batch of frames, not once a page
# (issue 31; test_memory counts it).
TEST_JOBS ?= 2
SYSTEM_PYTEST = $(PYTHON) -m pytest -q -n $(TEST_JOBS) --dist loadfile

test-system: system-test-needs
	@$(PYTHON) -c 'import xdist' 2>/dev/null || \
		{ echo "test-system: pytest-xdist is missing: make deps installs it" >&2; exit 2; }
	$(SYSTEM_PYTEST) tests/system

# make stress: the ring stress (tests/host/stress.mk) for STRESS_SECONDS,
# natively and under TSan, then the tests marked stress
# (tests/system/test_stress.py), which make test leaves out. STRESS_SHORT=1
# makes their every step small (.ci/run).
STRESS_SECONDS ?= 120
.PHONY: stress
stress: deps $(RING_STRESS) $(RING_STRESS_TSAN) $(BUILD)/spoor.iso $(TEST_PROGRAMS) \
		$(BUILD)/tests/modules $(HOST_TOOLS)
	$(RING_STRESS) $(STRESS_SECONDS) && $(RING_STRESS_TSAN) $(STRESS_SECONDS) && \
		$(SYSTEM_PYTEST) --stress $(if $(STRESS_SHORT),--stress-short) tests/system

# make soak: make test-system's run SOAK_ROUNDS times with two CPU-bound
# processes on the host beside it (tools/soak), stopping at the first
# failing round; make test leaves it out.
SOAK_ROUNDS ?= 5
.PHONY: soak
soak: deps system-test-needs
	tools/soak $(SOAK_ROUNDS) $(SYSTEM_PYTEST) tests/system

# The host benchmark first (bench/bench.mk: the ring writer against the
# floor and LTTng-UST), then the figures measured in QEMU.
bench: deps $(BUILD)/spoor.iso $(RINGBENCH) $(TEST_PROGRAMS) $(HOST_TOOLS)
	bench/run-ringbench $(RINGBENCH)
	$(PYTHON) tools/bench

test: deps
	$(MAKE) test-host
	$(MAKE) test-system

# tools/circles fails on two files that call or include each other, from
# the include lines and the cross references of every program's objects
# (those of the host tools of more than one file are built for it by the
# host tests' rule).
CIRCLE_TOOL_SRCS := $(foreach d,$(wildcard tools/*/),$(if $(word 2,$(wildcard $(d)*.c)),$(wildcard $(d)*.c)))
CIRCLE_OBJS := $(KERNEL_OBJS) $(LIBC_OBJS) $(USER_OBJS) \
	$(patsubst %,$(BUILD)/host/%.o,$(CIRCLE_TOOL_SRCS) $(wildcard common/*.c))

# cppcheck does not know register variables bound to registers (libc's IPC
# wrappers): the -D drops the binding and keeps the variable.
# tools/readme-shows: the README's copies of lists the code keeps (its
# usage, from spoor-trace's table of subcommands) are the code's.
lint: deps $(CIRCLE_OBJS) $(SPOOR_TRACE)
	clang-format --dry-run --Werror $(LINT_SRCS)
	tools/circles $(BUILD) abi common kernel libc servers apps tools tests/host tests/programs
	tools/readme-shows README.md $(SPOOR_TRACE) --help
	/usr/bin/python3 -m pyflakes tests/system tests/host tools/circles tools/readme-shows tools/bench tools/kinsns \
		tools/bench-linux
	cppcheck -q --error-exitcode=1 --enable=warning,portability --inline-suppr \
		--suppress=missingIncludeSystem -D__GNUC__ '-D__asm__(reg)=' \
		-Ikernel -I. -Ilibc/include \
		$(wildcard abi common kernel libc servers apps tests/host tests/programs)

clean:
	rm -rf $(BUILD)

-include $(KERNEL_OBJS:.o=.d) $(HOST_OBJS:.o=.d) $(LIBC_OBJS:.o=.d) $(USER_OBJS:.o=.d) \
	$(ABI_CHECKS:=.d)
