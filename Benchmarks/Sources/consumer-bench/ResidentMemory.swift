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

/// Hands the allocator's free memory back to the system where it can (glibc's `malloc_trim`).
///
/// Call it before each reading of ``residentBytes()`` around a measurement: before, so that pages
/// an earlier scenario freed are not handed out again without being faulted in (growth too low);
/// after, so that buffers freed during the measurement (a table's storage before it grew) do not
/// stay resident (growth too high). The growth is then close to the memory still in use.
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
    releaseFreeMemory()
    guard let before, let after = residentBytes() else { return .nan }
    return withExtendedLifetime(objects) { Double(after - before) / Double(count) }
}
