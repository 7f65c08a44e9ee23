#ifndef LECTERN_SYSTEM_SHIM_H
#define LECTERN_SYSTEM_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stddef.h>
#include <unistd.h>

// syncfs(2) flushes one file system's dirty data in one call; Swift's Glibc module does not
// export it. Elsewhere, fall back to sync(2).
static inline int lectern_syncfs(int fd) {
#if defined(__linux__)
    return syncfs(fd);
#else
    (void)fd;
    sync();
    return 0;
#endif
}

// Adds "close every descriptor from `from` up" to a spawn's file actions (`actions` points to a
// posix_spawn_file_actions_t), so that a long-lived child (the local model server) inherits none
// of Lectern's files and sockets. glibc 2.34 has posix_spawn_file_actions_addclosefrom_np, which
// Swift's Glibc module does not export; elsewhere ENOSYS, and the caller closes the descriptors
// it can list. Declared here rather than through <spawn.h>, whose definitions under _GNU_SOURCE
// clash with Swift's Glibc module.
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
extern int posix_spawn_file_actions_addclosefrom_np(void *actions, int from);
#endif
static inline int lectern_spawn_close_from(void *actions, int from) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
#else
    (void)actions;
    (void)from;
    return ENOSYS;
#endif
}

#if defined(__linux__)
// accept(2) whose descriptor closes on exec, atomically (accept4 is not in Swift's Glibc module),
// so no child started meanwhile keeps a connection open. Declared here rather than through
// <sys/socket.h>, whose definitions under _GNU_SOURCE clash with Swift's Glibc module.
struct sockaddr;
extern int accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);
static inline int lectern_accept_cloexec(int listener) {
    return accept4(listener, NULL, NULL, 02000000 /* SOCK_CLOEXEC */);
}
#endif
#if defined(__linux__)
// An open-file-description lock on one byte of `fd` (Linux's F_OFD_SETLK, 3.15 and later): held
// by this descriptor, not the process, so it conflicts with any other open of the file — another
// `lectern` on the same cache — and closing another descriptor of the file does not drop it.
// `lock`: 1 takes it without waiting (-1 and errno EAGAIN when another holds it), 0 releases it.
// The struct is `struct flock`'s layout, declared here rather than through <fcntl.h>, whose
// definitions under _GNU_SOURCE clash with Swift's Glibc module.
struct lectern_flock {
    short l_type;
    short l_whence;
    long long l_start;
    long long l_len;
    int l_pid;
};
extern int fcntl(int fd, int cmd, ...);
static inline int lectern_lock_byte(int fd, long long offset, int lock) {
    struct lectern_flock fl = {lock ? 1 /* F_WRLCK */ : 2 /* F_UNLCK */, 0 /* SEEK_SET */, offset, 1, 0};
    return fcntl(fd, 37 /* F_OFD_SETLK */, &fl);
}
#endif
#endif
