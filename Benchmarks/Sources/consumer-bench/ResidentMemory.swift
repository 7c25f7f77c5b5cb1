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

/// Hands the allocator's free memory back to the system where it can (glibc's `malloc_trim`), so
/// that resident-memory growth measured next counts what is allocated then, not pages that an
/// earlier scenario freed and that the allocator hands out again without faulting them in.
func releaseFreeMemory() {
    #if os(Linux)
        // `malloc.h` is not part of the Glibc module: look the function up by name.
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") else { return }
        // Sound: the symbol is glibc's `int malloc_trim(size_t pad)`.
        let mallocTrim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        _ = mallocTrim(0)
    #endif
}

/// The resident-memory growth per object while `count` objects made by `make` are alive, in
/// bytes, or `nan` where resident memory cannot be read; the objects are released on return.
func residentBytesPerObject<Object>(_ count: Int, _ make: () -> Object) -> Double {
    var objects: [Object] = []
    objects.reserveCapacity(count)
    releaseFreeMemory()
    let before = residentBytes()
    for _ in 0..<count {
        objects.append(make())
    }
    guard let before, let after = residentBytes() else { return .nan }
    return withExtendedLifetime(objects) { Double(after - before) / Double(count) }
}
