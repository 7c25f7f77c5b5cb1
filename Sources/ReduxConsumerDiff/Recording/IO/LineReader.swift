#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// Reads a recording line by line from a file descriptor (in 64 KiB chunks) or from bytes in
/// memory, keeping only the current chunk: memory stays bounded however long the recording is.
///
/// A line longer than a chunk (a large snapshot) grows the buffer to hold it, up to
/// ``maximumLineLength``: input that never ends a line (`/dev/zero`, a damaged file) is an error,
/// not a buffer that grows until memory runs out.
final class LineReader {
    /// How a call to ``next(into:)`` ended.
    enum Outcome {
        /// A line ending in `\n` (not copied).
        case line
        /// The last line of the input, without its `\n`: the input was cut short.
        case unterminated
        /// Nothing is left.
        case endOfInput
    }

    private let descriptor: Int32?
    private let closesDescriptor: Bool
    // `@exclusivity(unchecked)` on the buffer and its bounds: a line reader belongs to one
    // `RecordingReader`, which is not `Sendable` (the compiler keeps it on one thread at a time),
    // and no method calls out while it holds an access; the dynamic checks cost about as much as
    // finding a short line.
    @exclusivity(unchecked) private var buffer: [UInt8]
    /// The first unread byte of `buffer`.
    @exclusivity(unchecked) private var start = 0
    /// The end of the bytes read into `buffer`.
    @exclusivity(unchecked) private var end = 0
    /// The offset in the input of `buffer[0]`.
    private var bufferOffset = 0
    private var isAtEndOfInput = false
    /// The number of the last line returned, from 1.
    private(set) var lineNumber = 0
    /// Whether ``seek(toOffset:lineNumber:)`` works: bytes in memory and regular files, not pipes.
    let isSeekable: Bool

    static let chunkSize = 64 * 1024

    /// The longest line read from a file descriptor (256 MiB, a snapshot of a very large state),
    /// unless a caller sets ``maximumLineLength`` lower for a while (a header is one short line).
    static let defaultMaximumLineLength = 256 * 1024 * 1024

    /// The longest line ``next(into:)`` reads from a file descriptor before it throws
    /// ``LineReadError/isTooLong`` (bytes in memory are read whole already).
    var maximumLineLength = defaultMaximumLineLength

    init(bytes: [UInt8]) {
        descriptor = nil
        closesDescriptor = false
        buffer = bytes
        end = bytes.count
        isAtEndOfInput = true
        isSeekable = true
    }

    init(descriptor: Int32, closesDescriptor: Bool) {
        self.descriptor = descriptor
        self.closesDescriptor = closesDescriptor
        buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        isSeekable = lseek(descriptor, 0, SEEK_CUR) >= 0
        if isSeekable {
            bufferOffset = Int(lseek(descriptor, 0, SEEK_CUR))
        }
    }

    deinit {
        if closesDescriptor, let descriptor {
            _ = close(descriptor)
        }
    }

    /// The offset in the input of the next line.
    var offset: Int {
        bufferOffset + start
    }

    /// Copies the next line, without its `\n`, into `line`.
    ///
    /// - Throws: A system error description when reading fails.
    func next(into line: inout [UInt8]) throws(LineReadError) -> Outcome {
        var scanned = start
        while true {
            if let newline = firstNewline(from: scanned) {
                copy(start..<newline, into: &line)
                start = newline + 1
                lineNumber += 1
                return .line
            }
            scanned = end
            if isAtEndOfInput {
                guard start < end else { return .endOfInput }
                copy(start..<end, into: &line)
                start = end
                lineNumber += 1
                return .unterminated
            }
            scanned -= start
            try readMore()
        }
    }

    /// Continues reading at `offset`, the start of line `lineNumber + 1`.
    func seek(toOffset offset: Int, lineNumber: Int) throws(LineReadError) {
        if let descriptor {
            guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
                throw LineReadError(message: systemErrorDescription(errno))
            }
            bufferOffset = offset
            start = 0
            end = 0
            isAtEndOfInput = false
        } else {
            start = offset
        }
        self.lineNumber = lineNumber
    }

    private func firstNewline(from position: Int) -> Int? {
        guard position < end else { return nil }
        // The pointer stays in the closure, and `position..<end` lies inside the buffer.
        return buffer.withUnsafeBufferPointer { bytes -> Int? in
            guard let base = bytes.baseAddress, let found = memchr(base + position, 0x0A, end - position) else {
                return nil
            }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    private func copy(_ range: Range<Int>, into line: inout [UInt8]) {
        // The pointer stays in the closure; `range` lies inside the buffer's filled part.
        buffer.withUnsafeBufferPointer {
            line.replaceSubrange(line.indices, with: UnsafeBufferPointer(rebasing: $0[range]))
        }
    }

    /// Moves the unread bytes to the front (growing the buffer when a line fills it) and reads.
    private func readMore() throws(LineReadError) {
        guard let descriptor else {
            isAtEndOfInput = true
            return
        }
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { bytes in
                guard let base = bytes.baseAddress else { return }
                memmove(base, base + start, end - start)
            }
            bufferOffset += start
            end -= start
            start = 0
        }
        if end == buffer.count {
            guard end < maximumLineLength else {
                throw LineReadError(
                    message: "line \(lineNumber + 1) is longer than \(maximumLineLength) bytes", isTooLong: true)
            }
            buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, maximumLineLength - end)))
        }
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { bytes in
                read(descriptor, bytes.baseAddress! + end, bytes.count - end)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw LineReadError(message: systemErrorDescription(errno))
            }
            if count == 0 {
                isAtEndOfInput = true
            }
            end += count
            return
        }
    }
}

/// A failure to read or seek the input.
struct LineReadError: Error {
    let message: String
    /// Whether a line was longer than the reader's ``LineReader/maximumLineLength``.
    var isTooLong = false
}
