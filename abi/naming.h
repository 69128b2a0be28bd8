/*
 * Naming: init's name service. Every program init starts finds a
 * call-only endpoint to it in CAP_SLOT_NAMESERVER; a lookup there returns
 * a capability to call the named server.
 *
 * Lookup: call with label NAMING_LOOKUP and the name (no NUL) as the
 * message buffer, with room to receive a capability. The reply's word 0 is
 * 0 and the capability arrives (ipc_extra.recv_cap), or word 0 is -ENOENT
 * (no such server) or -EINVAL (a malformed request).
 */
#ifndef SPOOR_ABI_NAMING_H
#define SPOOR_ABI_NAMING_H

#define NAMING_LOOKUP	1
#define NAMING_NAME_MAX 31

/*
 * The exit status of a server that has nothing to serve on this machine
 * (traced when the kernel has no trace area): init does not restart it.
 */
#define SERVICE_EXIT_UNAVAILABLE 69

#endif
