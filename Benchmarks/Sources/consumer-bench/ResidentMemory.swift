#if os(Linux)
    import Glibc
#endif

/// The resident memory of this process, in bytes, or `nil` where it cannot be read.
///
/// Read from `/proc/self/statm` on Linux (resident pages times the page size); other platforms
/// report `nil` and the memory scenarios say so instead of printing a number.
func residentBytes() -> Int? {
    #if os(Linux)
        guard let file = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(file) }
        var size = 0
        var resident = 0
        guard
            withUnsafeMutablePointer(
                to: &size,
                { sizePointer in
                    withUnsafeMutablePointer(to: &resident) { residentPointer in
                        withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
                    }
                }) == 2
        else { return nil }
        return resident * sysconf(Int32(_SC_PAGESIZE))
    #else
        return nil
    #endif
}
