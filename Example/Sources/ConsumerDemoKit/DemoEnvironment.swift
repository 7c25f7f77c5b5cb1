import Foundation
import ReduxConsumer

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Everything `consumer-demo` needs from its process: input, output, files, environment variables
/// and whether it talks to a terminal.
///
/// ``process`` is the real process. Tests build their own to run the demo in-process:
///
/// ```swift
/// var environment = DemoEnvironment.process
/// environment.isOutputTerminal = false
/// environment.write = { text in recorder.append(text) }  // any Sendable sink
/// let status = runDemo(arguments: ["run", "tour.txt"], environment: environment)
/// ```
///
/// Output is written as it is produced (the interactive prompt needs it), so the sinks are
/// closures rather than `inout` streams; they are called on the calling thread.
public struct DemoEnvironment: Sendable {
    /// The environment variables; `NO_COLOR` turns colors off.
    public var variables: [String: String]

    /// Whether standard input is a terminal: `consumer-demo run` without a file then prompts.
    public var isInputTerminal: Bool

    /// Whether standard output is a terminal: colors are on by default only then.
    public var isOutputTerminal: Bool

    /// Reads one line of standard input without its line ending, or `nil` at the end.
    public var readLine: @Sendable () -> String?

    /// The descriptor of standard input as bytes, from which `replay -` streams a recording
    /// (byte for byte, which ``readLine`` would not keep); the process's by default. The demo
    /// does not close it.
    public var standardInputDescriptor: Int32 = STDIN_FILENO

    /// Reads a whole file as text; invalid UTF-8 is replaced with `U+FFFD`.
    public var readFile: @Sendable (_ path: String) throws(FileReadError) -> String

    /// Writes text to standard output, as is.
    public var write: @Sendable (_ text: String) -> Void

    /// Writes text to standard error, as is.
    public var writeError: @Sendable (_ text: String) -> Void

    /// Why writing to standard output failed, if it did (such as `Broken pipe`): the demo then
    /// says so and ends with ``ExitStatus/unreadableFile``. `nil` by default.
    public var outputError: @Sendable () -> String? = { nil }

    /// The directory that relative paths of recordings (`record FILE`, `replay FILE`) are resolved
    /// against, or `nil` for the process's current directory.
    ///
    /// Recordings are streamed from and to their files rather than through ``readFile``; tests set
    /// this to a directory of their own, so messages show paths as the user typed them.
    public var currentDirectory: String?

    /// Creates an environment from its parts.
    ///
    /// - Parameters:
    ///   - variables: The environment variables.
    ///   - isInputTerminal: Whether standard input is a terminal.
    ///   - isOutputTerminal: Whether standard output is a terminal.
    ///   - readLine: Reads one line of standard input, or `nil` at the end.
    ///   - readFile: Reads a whole file as text.
    ///   - write: Writes to standard output.
    ///   - writeError: Writes to standard error.
    public init(
        variables: [String: String],
        isInputTerminal: Bool,
        isOutputTerminal: Bool,
        readLine: @escaping @Sendable () -> String?,
        readFile: @escaping @Sendable (_ path: String) throws(FileReadError) -> String,
        write: @escaping @Sendable (_ text: String) -> Void,
        writeError: @escaping @Sendable (_ text: String) -> Void
    ) {
        self.variables = variables
        self.isInputTerminal = isInputTerminal
        self.isOutputTerminal = isOutputTerminal
        self.readLine = readLine
        self.readFile = readFile
        self.write = write
        self.writeError = writeError
    }

    /// The running process: its standard streams, its files and its environment variables.
    ///
    /// A write to standard output that fails (a closed pipe, a full disk) is remembered in
    /// ``outputError``, and nothing more is written there. The process must ignore `SIGPIPE` (as
    /// `consumer-demo` does) for a closed pipe to be such a failure rather than the end of it.
    public static var process: DemoEnvironment {
        let outputFailure = Lock<String?>(nil)
        var environment = DemoEnvironment(
            variables: ProcessInfo.processInfo.environment,
            isInputTerminal: isatty(STDIN_FILENO) == 1,
            isOutputTerminal: isatty(STDOUT_FILENO) == 1,
            readLine: { Swift.readLine(strippingNewline: true) },
            readFile: readWholeFile,
            // Unbuffered, so the prompt shows at once and stdout and stderr stay in order.
            write: { text in
                guard outputFailure.withLock({ $0 == nil }) else { return }
                if let error = writeAll(text, to: STDOUT_FILENO) {
                    outputFailure.withLock { $0 = $0 ?? String(cString: strerror(error)) }
                }
            },
            // Nowhere to report a failure of standard error itself.
            writeError: { text in _ = writeAll(text, to: STDERR_FILENO) }
        )
        environment.outputError = { outputFailure.withLock { $0 } }
        return environment
    }
}

/// Why a file could not be read, such as `No such file or directory`.
public struct FileReadError: Error, Equatable, Sendable {
    /// The reason, as the operating system words it.
    public var reason: String

    /// Creates an error.
    ///
    /// - Parameter reason: The reason, such as `No such file or directory`.
    public init(reason: String) {
        self.reason = reason
    }
}

/// Writes all of `text` to `descriptor`; returns the error (`errno`) that stopped it, if any.
private func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
    var text = text
    return text.withUTF8 { bytes -> Int32? in
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? errno : EIO }
            offset += written
        }
        return nil
    }
}

/// The largest script the demo reads (64 MiB, millions of lines): a file that never ends, such as
/// `/dev/zero`, is an error rather than memory that runs out.
let maximumScriptSize = 64 * 1024 * 1024

private func readWholeFile(_ path: String) throws(FileReadError) -> String {
    guard let file = fopen(path, "rb") else {
        throw FileReadError(reason: String(cString: strerror(errno)))
    }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        bytes.append(contentsOf: chunk[..<count])
        if bytes.count > maximumScriptSize {
            throw FileReadError(reason: "it is larger than 64 MiB, the largest script the demo reads")
        }
        if count < chunk.count {
            if ferror(file) != 0 {
                throw FileReadError(reason: String(cString: strerror(errno)))
            }
            break
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
