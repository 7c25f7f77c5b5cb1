#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// Writes one line to standard error, unbuffered, so diagnostics appear even if the process dies.
package func writeLineToStandardError(_ message: String) {
    var line = message
    line.append("\n")
    line.withUTF8 { bytes in
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(STDERR_FILENO, base + offset, bytes.count - offset)
            guard written > 0 else { return }
            offset += written
        }
    }
}
