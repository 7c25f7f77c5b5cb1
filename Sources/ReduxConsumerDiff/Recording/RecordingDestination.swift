import Foundation
import ReduxConsumer

/// Where a ``SessionRecorder`` writes its lines: a file, an open file handle or descriptor, or
/// memory.
///
/// ```swift
/// try SessionRecorder<AppState>(to: .file(atPath: "session.jsonl"), codecs: codecs)
/// try SessionRecorder<AppState>(to: .fileHandle(.standardError), codecs: codecs)
/// let buffer = RecordingBuffer()
/// try SessionRecorder<AppState>(to: .memory(buffer), codecs: codecs)
/// ```
public struct RecordingDestination: Sendable {
    enum Target: Sendable {
        case path(String)
        case descriptor(Int32)
        case handle(FileHandle)
        case buffer(RecordingBuffer)
    }

    let target: Target

    /// A file at `path`, created, or emptied if it exists; the recorder closes it in
    /// ``SessionRecorder/close()``.
    ///
    /// - Parameter path: The file's path.
    public static func file(atPath path: String) -> RecordingDestination {
        RecordingDestination(target: .path(path))
    }

    /// An open file handle, written from its current position; the recorder does not close it.
    ///
    /// - Parameter handle: The handle to write to.
    public static func fileHandle(_ handle: FileHandle) -> RecordingDestination {
        RecordingDestination(target: .handle(handle))
    }

    /// An open file descriptor, written from its current position; the recorder does not close it.
    ///
    /// - Parameter descriptor: The descriptor to write to; it must stay open until the recorder
    ///   is closed.
    public static func fileDescriptor(_ descriptor: Int32) -> RecordingDestination {
        RecordingDestination(target: .descriptor(descriptor))
    }

    /// Memory: the recording accumulates in `buffer`, where a ``RecordingReader`` can read it.
    ///
    /// - Parameter buffer: The buffer to append to.
    public static func memory(_ buffer: RecordingBuffer) -> RecordingDestination {
        RecordingDestination(target: .buffer(buffer))
    }

    /// Opens the destination for writing.
    func open() throws(RecordingError) -> OutputChannel {
        switch target {
        case .path(let path):
            return try OutputChannel(createdAt: path)
        case .descriptor(let descriptor):
            return OutputChannel(descriptor: descriptor, closesDescriptor: false, handle: nil)
        case .handle(let handle):
            return OutputChannel(descriptor: handle.fileDescriptor, closesDescriptor: false, handle: handle)
        case .buffer(let buffer):
            return OutputChannel(buffer: buffer)
        }
    }
}

/// A recording kept in memory, filled by a ``SessionRecorder`` writing to
/// ``RecordingDestination/memory(_:)``.
///
/// The recorder appends whole lines when it flushes (every ``SessionRecorder`` flush threshold,
/// and on ``SessionRecorder/flush()`` and ``SessionRecorder/close()``). Safe to read from any
/// thread.
public final class RecordingBuffer: Sendable {
    private let storage = Lock<[UInt8]>([])

    /// Creates an empty buffer.
    public init() {}

    /// The bytes written so far: JSON Lines, UTF-8.
    public var bytes: [UInt8] {
        storage.withLock { $0 }
    }

    /// The bytes written so far, as text.
    public var text: String {
        String(decoding: bytes, as: UTF8.self)
    }

    func append(_ bytes: [UInt8]) {
        storage.withLock { $0.append(contentsOf: bytes) }
    }
}
