import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether the tests run under ThreadSanitizer or AddressSanitizer, which make every memory access
/// several times slower: heavy suites scale themselves down then.
///
/// Detected from the sanitizer runtimes' own entry points (linked into the test binary by
/// `swift test --sanitize=…`), or forced by the `REDUX_CONSUMER_SANITIZER` environment variable.
package let isRunningUnderSanitizer: Bool = {
    if ProcessInfo.processInfo.environment["REDUX_CONSUMER_SANITIZER"] != nil { return true }
    let process = dlopen(nil, RTLD_NOW)
    defer { if let process { dlclose(process) } }
    return dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
}()

/// `normal` in an ordinary run, `sanitized` under a sanitizer (see ``isRunningUnderSanitizer``).
package func scaled<Value>(_ normal: Value, sanitized: Value) -> Value {
    isRunningUnderSanitizer ? sanitized : normal
}
