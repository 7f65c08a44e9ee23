import CLecternSystem

/// Returning freed memory to the system. glibc's allocator keeps the pages a program frees for
/// its next allocations, in one arena per thread that contended for one; after a long generation
/// that is tens of megabytes the rest of the run does not reuse.
enum MemoryRelease {
    /// Gives back the free pages of every arena (`malloc_trim(0)`); elsewhere, nothing.
    static func returnFreedPages() {
        lectern_return_freed_pages()
    }
}
