import ConsumerDemoKit
import Foundation
import ReduxConsumer

/// What one in-process run of `consumer-demo` produced.
struct DemoRun {
    var status: ExitStatus
    var output: String
    var errors: String
}

/// The repository root, found from this file's path, so tests read the real scripts and goldens.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Support
    .deletingLastPathComponent()  // ConsumerDemoTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()

/// Runs `consumer-demo` in-process with `arguments`, feeding `input` as standard input.
///
/// Relative paths of scripts are read from the repository root, so messages show them as a user
/// running from a clone would see them (`Example/scripts/errors.txt:4:5: …`); relative paths of
/// recordings (`record FILE`, `replay FILE`) are resolved against `currentDirectory`.
/// `inputBytes`, when given, is what standard input holds as bytes (`replay -`), through a pipe;
/// at most 16 KiB.
func runInProcess(
    _ arguments: [String],
    input: [String] = [],
    inputBytes: [UInt8]? = nil,
    isInputTerminal: Bool = false,
    isOutputTerminal: Bool = false,
    variables: [String: String] = [:],
    currentDirectory: String? = nil
) -> DemoRun {
    let output = Lock("")
    let errors = Lock("")
    let lines = Lock(input[...])
    var environment = DemoEnvironment(
        variables: variables,
        isInputTerminal: isInputTerminal,
        isOutputTerminal: isOutputTerminal,
        readLine: { lines.withLock { $0.popFirst() } },
        readFile: { path throws(FileReadError) in
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : packageRoot.appendingPathComponent(path)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw FileReadError(reason: "No such file or directory")
            }
            return String(decoding: data, as: UTF8.self)
        },
        write: { text in output.withLock { $0 += text } },
        writeError: { text in errors.withLock { $0 += text } }
    )
    environment.currentDirectory = currentDirectory
    if let inputBytes {
        // Written whole before the run, so no writer is left blocked or writing to a closed pipe:
        // it must fit in the pipe's buffer (16 KiB at least on every platform).
        precondition(inputBytes.count <= 16_384, "standard input of \(inputBytes.count) bytes does not fit a pipe")
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(inputBytes))
        try? pipe.fileHandleForWriting.close()
        environment.standardInputDescriptor = pipe.fileHandleForReading.fileDescriptor
        defer { try? pipe.fileHandleForReading.close() }
        let status = ConsumerDemoKit.runDemo(arguments: arguments, environment: environment)
        return DemoRun(status: status, output: output.withLock { $0 }, errors: errors.withLock { $0 })
    }
    let status = ConsumerDemoKit.runDemo(arguments: arguments, environment: environment)
    return DemoRun(status: status, output: output.withLock { $0 }, errors: errors.withLock { $0 })
}

/// Runs `body` with a new, empty temporary directory, removed when it returns.
func withTemporaryDirectory<Result>(_ body: (String) throws -> Result) rethrows -> Result {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("consumer-demo-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
}
