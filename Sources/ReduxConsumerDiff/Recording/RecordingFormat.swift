/// The layout of a recording: JSON Lines, one object per line, each line ending in `\n`.
///
/// ```text
/// {"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev","hash":"structural64"}
/// {"snapshot":0,"state":{"counter":0,"works":[]}}
/// {"index":1,"type":"counter","action":{"increment":{}},"hash":"5be4c2fa0b1d93e7"}
/// {"index":2,"skipped":"MyApp.AnalyticsAction","hash":"5be4c2fa0b1d93e7"}
/// {"snapshot":2,"state":{"counter":1,"works":[]}}
/// {"end":2}
/// ```
///
/// - The header comes first (see ``RecordingHeader``).
/// - `snapshot` lines hold the state after that many actions: 0 is the initial state, then every
///   ``RecordingHeader/snapshotInterval`` actions.
/// - Action lines are numbered from 1 without gaps; `type` is the name from ``ActionCodecs`` and
///   `hash` (16 hexadecimal digits) the ``StateHash`` of the state after the action: on every
///   action line when the header names a hash, on none otherwise. A snapshot after an action
///   must hash to that action's hash: a reader refuses the action when they disagree.
/// - A `skipped` line stands for an action of a type with no codec, recorded with
///   ``SessionRecorder/UnregisteredActions/skip``; it keeps the numbering and the hash.
/// - The `end` line, written by ``SessionRecorder/close()``, holds the number of actions, and an
///   `error` member when the recorder stopped early. A recording without it is truncated.
public enum RecordingFormat {
    /// The version of ReduxConsumer written in headers.
    public static let libraryVersion = "0.1.0-dev"

    /// The value of the header's `recording` member, which marks a file as a recording.
    static let marker = "ReduxConsumer"
}

extension JSONBytes {
    /// Appends the header line.
    func appendHeader(_ header: RecordingHeader) {
        append("{\"recording\":")
        appendQuoted(RecordingFormat.marker)
        append(",\"format\":")
        appendQuoted(header.formatVersion)
        append(",\"library\":")
        appendQuoted(header.libraryVersion)
        if let hashName = header.hashName {
            append(",\"hash\":")
            appendQuoted(hashName)
        }
        if let interval = header.snapshotInterval {
            append(",\"snapshotInterval\":")
            appendDecimal(UInt64(interval))
        }
        append("}\n")
    }

    /// Appends the end line.
    func appendEnd(actionCount: Int, error: String?) {
        append("{\"end\":")
        appendDecimal(UInt64(actionCount))
        if let error {
            append(",\"error\":")
            appendQuoted(error)
        }
        append("}\n")
    }

    /// Appends `,"hash":"…"}` and the newline that close an action or skipped line.
    func appendLineEnd(hash: UInt64?) {
        if let hash {
            append(",\"hash\":")
            appendQuotedHash(hash)
        }
        append("}\n")
    }
}
