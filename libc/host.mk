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
# declared in tests/host/libc_host.h. The files that make system calls
# (crt0, hooks, start, exit, assert, thread) are Spoor-only.

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

-include $(LIBC_HOST_OBJS:.o=.d)
