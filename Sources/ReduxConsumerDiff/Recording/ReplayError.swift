import ReduxConsumer

/// Why a recording could not be read or replayed, and the line where it happened.
///
/// Reading stops at the first error: every action before the line was delivered (and, in a
/// replay, applied), none after it. ``code`` names the kind in a stable, machine-readable way, and
/// the error encodes to JSON for tools:
///
/// ```json
/// {"code":"unknown-action-type","line":7,"message":"unknown action type \"countr\"…","source":"session.jsonl"}
/// ```
public struct ReplayError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable {
        /// The recording could not be read from its file or descriptor.
        case unreadable(reason: String)
        /// The first line is not a recording's header: another kind of file, or an empty one.
        case notARecording(reason: String)
        /// The recording was written in a newer major format version than this reader supports.
        case newerFormat(found: String, supported: String)
        /// The line is not JSON; `column` counts bytes from 1.
        case notJSON(column: Int, reason: String)
        /// The line is JSON but not a valid line of a recording (a missing or mistyped member,
        /// actions out of order, content after the end), or an action line whose hash disagrees
        /// with the snapshot after it (the action is then not delivered).
        case corruptedLine(reason: String)
        /// The recording ends early: a last line cut short, or no `end` line.
        case truncated(reason: String)
        /// An action type name with no codec in the reader's ``ActionCodecs``.
        case unknownActionType(String)
        /// The codec for `type` could not decode the recorded action.
        case undecodableAction(type: String, reason: String)
        /// A recorded state could not be decoded.
        case undecodableState(reason: String)
        /// The recorder stopped early with this error (its `end` line says so).
        case recorderFailed(reason: String)
        /// An action the recorder skipped (it had no codec); with
        /// ``RecordingReader/SkippedActions/stop`` a replay stops there.
        case skippedAction(index: Int, actionType: String)
        /// The recording's hashes come from another ``StateHash`` than the one given, or from one
        /// the reader cannot make (`given` is `nil`).
        case hashFunctionMismatch(recorded: String, given: String?)
        /// The recording holds no initial state (its state is not `Codable`) and none was given.
        case noInitialState
        /// Stepping back needs to read the recording again, and its source cannot seek (a pipe).
        case cannotRewind(reason: String)
        /// The replayed state differs from the recorded one.
        case diverged(ReplayDivergence)
    }

    /// What went wrong.
    public let kind: Kind
    /// The line of the recording, counted from 1.
    public let line: Int
    /// Where the recording came from: a path, `fd N`, or `recording` for bytes in memory.
    public let source: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - line: The line of the recording, from 1.
    ///   - source: Where the recording came from.
    public init(_ kind: Kind, line: Int, source: String) {
        self.kind = kind
        self.line = line
        self.source = source
    }

    /// A stable identifier of the kind, for scripts and exit codes: `unreadable`,
    /// `not-a-recording`, `newer-format`, `not-json`, `corrupted-line`, `truncated`,
    /// `unknown-action-type`, `undecodable-action`, `undecodable-state`, `recorder-failed`,
    /// `skipped-action`, `hash-function-mismatch`, `no-initial-state`, `cannot-rewind` or
    /// `diverged`.
    public var code: String {
        switch kind {
        case .unreadable: "unreadable"
        case .notARecording: "not-a-recording"
        case .newerFormat: "newer-format"
        case .notJSON: "not-json"
        case .corruptedLine: "corrupted-line"
        case .truncated: "truncated"
        case .unknownActionType: "unknown-action-type"
        case .undecodableAction: "undecodable-action"
        case .undecodableState: "undecodable-state"
        case .recorderFailed: "recorder-failed"
        case .skippedAction: "skipped-action"
        case .hashFunctionMismatch: "hash-function-mismatch"
        case .noInitialState: "no-initial-state"
        case .cannotRewind: "cannot-rewind"
        case .diverged: "diverged"
        }
    }

    /// What happened, without the location, in one line: text taken from the recording (a type
    /// name, a version, the recorder's error) shows its line breaks and other control characters
    /// escaped (`\n`, `\u{1B}`). A divergence is followed by the state diff, one change per line.
    public var message: String {
        if case .diverged(let divergence) = kind {
            return divergence.description
        }
        return summary.escapingControlCharacters()
    }

    /// The message of any kind but a divergence, with the text from the recording as it came.
    private var summary: String {
        switch kind {
        case .unreadable(let reason):
            return "cannot read the recording: \(reason)"
        case .notARecording(let reason):
            return "not a ReduxConsumer recording: \(reason)"
        case .newerFormat(let found, let supported):
            return "the recording uses format \(found), newer than this reader supports (\(supported)); "
                + "replay it with a newer version of ReduxConsumer"
        case .notJSON(let column, let reason):
            return "column \(column): not JSON: \(reason)"
        case .corruptedLine(let reason):
            return "corrupted line: \(reason)"
        case .truncated(let reason):
            return "truncated recording: \(reason)"
        case .unknownActionType(let name):
            return "unknown action type \"\(name)\": register it in the ActionCodecs given to the reader"
        case .undecodableAction(let type, let reason):
            return "cannot decode the \"\(type)\" action: \(reason)"
        case .undecodableState(let reason):
            return "cannot decode the recorded state: \(reason)"
        case .recorderFailed(let reason):
            return "the recording stopped here because the recorder failed: \(reason)"
        case .skippedAction(let index, let actionType):
            return "action \(index) (\(actionType)) was skipped when recording (it had no codec), "
                + "so the replay cannot reproduce it; replay with skippedActions: .verifyAndContinue to go on "
                + "if it did not change the state"
        case .hashFunctionMismatch(let recorded, let given):
            if let given {
                return "the recording's hashes come from StateHash \"\(recorded)\", not \"\(given)\""
            }
            return "the recording's hashes come from StateHash \"\(recorded)\"; pass it to the reader"
        case .noInitialState:
            return "the recording has no initial state (a snapshot 0); pass initialState: to the reader"
        case .cannotRewind(let reason):
            return "cannot step back: \(reason)"
        case .diverged(let divergence):
            return divergence.description
        }
    }

    /// `source:line: error: message`, as compilers print errors; the source, like the message,
    /// with its control characters escaped.
    public var description: String {
        "\(source.escapingControlCharacters()):\(line): error: \(message)"
    }
}

extension ReplayError: Encodable {
    private enum CodingKeys: String, CodingKey {
        case code, line, source, message, index, action, diff
    }

    /// Encodes `code`, `line`, `source` and `message`; for a divergence also `index`, `action`
    /// (its description) and `diff` (the recorded → replayed changes, when known).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(line, forKey: .line)
        try container.encode(source, forKey: .source)
        try container.encode(message, forKey: .message)
        if case .diverged(let divergence) = kind {
            try container.encode(divergence.index, forKey: .index)
            try container.encode(divergence.actionDescription, forKey: .action)
            try container.encodeIfPresent(divergence.diff, forKey: .diff)
        }
    }
}
