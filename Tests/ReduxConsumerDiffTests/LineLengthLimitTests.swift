import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumerDiff

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Input that never ends a line (`/dev/zero`, a damaged file) is a clear error after a bounded read,
/// not a buffer that grows until memory runs out. (Found by a red-team run: `consumer-demo replay
/// /dev/zero` spun forever.)
struct LineLengthLimitTests {
    /// A file whose first 64 KiB end no line is not a recording: said at once, without reading on.
    @Test func aFirstLineLongerThan64KiBIsNotARecording() throws {
        try withTemporaryPath { path in
            try Data(repeating: 0, count: 200_000).write(to: URL(fileURLWithPath: path))
            #expect {
                _ = try RecordingReader<AppState>(contentsOfFile: path, codecs: counterCodecs)
            } throws: { error in
                guard let error = error as? ReplayError, case .notARecording(let reason) = error.kind else {
                    return false
                }
                return error.line == 1 && reason.contains("longer than 64 KiB")
            }
        }
    }

    /// `/dev/zero` never ends: the reader stops after its first 64 KiB.
    @Test func aReplayOfAnEndlessInputStops() throws {
        let descriptor = open("/dev/zero", O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(throws: ReplayError.self) {
            _ = try RecordingReader<AppState>(fileDescriptor: descriptor, codecs: counterCodecs)
        }
    }

    /// Past the header, a line may be as long as a large snapshot, up to the reader's limit; longer,
    /// the reader throws, naming the line.
    @Test func aLineLongerThanTheLimitIsAnErrorNamingIt() throws {
        try withTemporaryPath { path in
            var bytes = Array("first line\nsecond\n".utf8)
            bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 300_000) + [0x0A]
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let descriptor = open(path, O_RDONLY)
            try #require(descriptor >= 0)
            let lines = LineReader(descriptor: descriptor, closesDescriptor: true)
            lines.maximumLineLength = 200_000
            var line: [UInt8] = []
            #expect(try lines.next(into: &line) == .line)
            #expect(try lines.next(into: &line) == .line)
            #expect {
                _ = try lines.next(into: &line)
            } throws: { error in
                (error as? LineReadError).map { $0.isTooLong && $0.message.contains("line 3") } ?? false
            }
        }
    }
}
