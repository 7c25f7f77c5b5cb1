import Foundation
import ReduxConsumer
import ReduxConsumerDiff

/// What `record` and `replay` share: the action codecs, the hash, where files are, and how a
/// replay error maps to an exit status.
enum DemoRecording {
    /// The demo's one action type, recorded through its synthesized `Codable` conformance as `app`.
    static let codecs: ActionCodecs = {
        var codecs = ActionCodecs()
        codecs.register(AppAction.self, as: "app")
        return codecs
    }()

    /// `path` resolved against the environment's ``DemoEnvironment/currentDirectory``.
    static func resolve(_ path: String, in environment: DemoEnvironment) -> String {
        guard let directory = environment.currentDirectory, !path.hasPrefix("/") else {
            return path
        }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// Opens the recording at `path` (as the user typed it) up to its first action.
    ///
    /// - Throws: ``ReplayError``, naming `path` rather than the resolved path.
    static func open(_ path: String, in environment: DemoEnvironment) throws(ReplayError) -> RecordingReader<AppState> {
        do {
            return try RecordingReader<AppState>(contentsOfFile: resolve(path, in: environment), codecs: codecs)
        } catch {
            throw naming(error, path)
        }
    }

    /// The name `replay -` gives standard input in messages, as `run -` does.
    static let standardInputName = "<stdin>"

    /// Opens the recording on standard input up to its first action: it is streamed, and cannot
    /// be read again.
    ///
    /// - Throws: ``ReplayError``, naming standard input `<stdin>`.
    static func openStandardInput(in environment: DemoEnvironment) throws(ReplayError) -> RecordingReader<AppState> {
        do {
            return try RecordingReader<AppState>(fileDescriptor: environment.standardInputDescriptor, codecs: codecs)
        } catch {
            throw naming(error, standardInputName)
        }
    }

    /// Whether the files at `path` and `other` exist and are one file: the same path, two hard
    /// links to it, or a symbolic link to the other (links are followed).
    static func isSameFile(_ path: String, _ other: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(path, &first) == 0, stat(other, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// Whether standard input is the file at `path` (`record FILE --script - < FILE`).
    static func isStandardInput(_ path: String, in environment: DemoEnvironment) -> Bool {
        var input = stat()
        var file = stat()
        guard fstat(environment.standardInputDescriptor, &input) == 0, stat(path, &file) == 0 else { return false }
        return input.st_dev == file.st_dev && input.st_ino == file.st_ino
    }

    /// `error` with `path` as its source, so messages show the path as the user typed it.
    static func naming(_ error: ReplayError, _ path: String) -> ReplayError {
        ReplayError(error.kind, line: error.line, source: path)
    }

    /// The message for `error`: `FILE:LINE: error: …`, or, for a file that cannot be read at
    /// all, the same words as `run` uses for a script.
    static func message(for error: ReplayError) -> String {
        if case .unreadable(let reason) = error.kind {
            return "consumer-demo: error: cannot read \(quoted(error.source)): \(reason)"
        }
        let description = "\(error)"
        guard let (libraryAdvice, advice) = commandLineAdvice(for: error.kind),
            description.hasSuffix(libraryAdvice)
        else { return description }
        return description.dropLast(libraryAdvice.count) + advice
    }

    /// For the errors whose message ends with advice to a program using the library (register a
    /// codec, pass an argument to the reader), that advice and what a user of this command can do
    /// instead.
    private static func commandLineAdvice(for kind: ReplayError.Kind) -> (library: String, commandLine: String)? {
        switch kind {
        case .unknownActionType:
            (
                ": register it in the ActionCodecs given to the reader",
                #": consumer-demo replays its own actions only (type "app")"#
            )
        case .skippedAction:
            (
                "; replay with skippedActions: .verifyAndContinue to go on if it did not change the state",
                ""
            )
        case .hashFunctionMismatch(_, nil):
            ("; pass it to the reader", #": consumer-demo verifies "structural64" hashes only"#)
        case .noInitialState:
            ("; pass initialState: to the reader", "; consumer-demo needs one")
        default:
            nil
        }
    }

    /// The exit status for a replay that stopped with `error`: 3 for a file that cannot be read,
    /// 5 for a divergence, 4 for anything wrong with the recording itself.
    static func exitStatus(for error: ReplayError) -> ExitStatus {
        switch error.kind {
        case .unreadable: .unreadableFile
        case .diverged: .replayDiverged
        default: .badRecording
        }
    }

    /// The structural hash of `state` in 16 hexadecimal digits, as recordings write it; `?` for a
    /// state that cannot be hashed (the demo's always can).
    static func hashText(of state: AppState) -> String {
        guard let hash = try? StateHash<AppState>.structural(state) else {
            return "?"
        }
        return hashText(hash)
    }

    /// A hash in 16 hexadecimal digits.
    static func hashText(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
