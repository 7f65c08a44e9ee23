#ifndef LECTERN_SYSTEM_SHIM_H
#define LECTERN_SYSTEM_SHIM_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
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
#endif
