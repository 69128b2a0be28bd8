# libc for the host unit tests; the Makefile includes this file.
#
# libc's pure sources (those that reach the kernel only through the hooks
# of libc/src/internal.h) are compiled natively with HOST_CFLAGS' checks
# and sanitizers, against libc's own headers as on Spoor, and linked into
# one relocatable object. Every global symbol that object defines is then
# renamed spoor_<name> (strlen -> spoor_strlen, also where libc's own
# files call each other), so none meets the host C library or the ASan
# interceptors of the same name. The hooks stay undefined: the tests in
# tests/host/test_libc_*.c supply them, and call the spoor_* names
# declared in tests/host/libc_host.h (checked against libc's headers
# below). The files that make system calls (crt0, hooks, start, exit,
# assert, thread) are Spoor-only.

LIBC_HOST_SRCS := libc/src/ctype/ctype.c libc/src/errno/strerror.c libc/src/stdio/file.c \
	libc/src/stdio/printf.c libc/src/stdlib/abs.c libc/src/stdlib/malloc.c \
	libc/src/stdlib/qsort.c libc/src/stdlib/strtol.c libc/src/string/mem.c \
	libc/src/string/str.c
LIBC_HOST_OBJS := $(patsubst libc/%,$(BUILD)/host/libc/%.o,$(LIBC_HOST_SRCS))
LIBC_HOST_CFLAGS := $(filter-out -I%,$(HOST_CFLAGS)) -ffreestanding \
	-fno-tree-loop-distribute-patterns -nostdinc -isystem $(shell $(CC) -print-file-name=include) \
	-Ilibc/include -I.
LIBC_HOST := $(BUILD)/host/libc/libc

$(LIBC_HOST_OBJS): $(BUILD)/host/libc/%.o: libc/% libc/host.mk
	@mkdir -p $(dir $@)
	$(CC) $(LIBC_HOST_CFLAGS) -c $< -o $@

$(LIBC_HOST).o: $(LIBC_HOST_OBJS)
	$(LD) -r -o $(LIBC_HOST).unrenamed.o $(LIBC_HOST_OBJS)
	nm --defined-only --extern-only $(LIBC_HOST).unrenamed.o | \
		awk '{ print $$3, "spoor_" $$3 }' > $(LIBC_HOST).syms
	objcopy --redefine-syms=$(LIBC_HOST).syms $(LIBC_HOST).unrenamed.o $@

HOST_EXTRA_OBJS += $(LIBC_HOST).o

# tests/host/libc_host.h writes libc's prototypes out again under the
# spoor_ names; this checks them at build time. The renaming list, read
# backwards, becomes a header of "#define spoor_strlen strlen" lines (C
# names only: ASan adds symbols such as __odr_asan.errno), and
# tests/host/libc/libc_host_check.c compiles libc_host.h after it and
# libc's own headers, so each of its declarations redeclares libc's:
# a prototype that differs is a compile error, and run_tests waits for it.
LIBC_HOST_CHECK := $(BUILD)/host/libc/libc_host_check.o

$(LIBC_HOST).unrename.h: $(LIBC_HOST).o
	awk '$$1 ~ /^[A-Za-z_][A-Za-z0-9_]*$$/ { print "#define", $$2, $$1 }' $(LIBC_HOST).syms > $@

$(LIBC_HOST_CHECK): tests/host/libc/libc_host_check.c $(LIBC_HOST).unrename.h libc/host.mk
	@mkdir -p $(dir $@)
	$(CC) $(LIBC_HOST_CFLAGS) -include $(LIBC_HOST).unrename.h -c $< -o $@

$(BUILD)/host/run_tests: $(LIBC_HOST_CHECK)

-include $(LIBC_HOST_OBJS:.o=.d) $(LIBC_HOST_CHECK:.o=.d)
