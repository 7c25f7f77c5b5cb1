import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// An opened ``RecordingDestination``: where a recorder's buffered bytes go when it flushes.
struct OutputChannel {
    private enum Target {
        case descriptor(Int32, closes: Bool, handle: FileHandle?)
        case buffer(RecordingBuffer)
        case closed
    }

    private var target: Target

    init(createdAt path: String) throws(RecordingError) {
        let descriptor = path.withCString { systemOpen($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        guard descriptor >= 0 else {
            throw RecordingError(.cannotOpen(path: path, reason: systemErrorDescription(errno)))
        }
        target = .descriptor(descriptor, closes: true, handle: nil)
    }

    init(descriptor: Int32, closesDescriptor: Bool, handle: FileHandle?) {
        target = .descriptor(descriptor, closes: closesDescriptor, handle: handle)
    }

    init(buffer: RecordingBuffer) {
        target = .buffer(buffer)
    }

    /// Writes all of `bytes`, retrying after interrupted and partial writes.
    func write(_ bytes: [UInt8]) throws(RecordingError) {
        switch target {
        case .buffer(let buffer):
            buffer.append(bytes)
        case .descriptor(let descriptor, _, _):
            let failure = bytes.withUnsafeBytes { raw -> Int32? in
                var offset = 0
                while offset < raw.count {
                    let written = systemWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return nil
            }
            if let failure {
                throw RecordingError(.writeFailed(reason: systemErrorDescription(failure)))
            }
        case .closed:
            throw RecordingError(.writeFailed(reason: "the recording is closed"))
        }
    }

    /// Closes a file the channel opened itself; leaves handles and descriptors it was given open.
    mutating func close() {
        if case .descriptor(let descriptor, true, _) = target {
            _ = systemClose(descriptor)
        }
        target = .closed
    }
}

// The C library's functions, reached from file scope where the channel's own `write` and `close`
// do not hide them.

private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

private func systemClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}

/// The text of a system error number: `No space left on device (errno 28)`.
func systemErrorDescription(_ code: Int32) -> String {
    "\(String(cString: strerror(code))) (errno \(code))"
}
