# gdb script for `make debug`: symbols of the kernel, attached to QEMU's stub.
set architecture i386:x86-64
file build/kernel.elf
target remote localhost:1234
