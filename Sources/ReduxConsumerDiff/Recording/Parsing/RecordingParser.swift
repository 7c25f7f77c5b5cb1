import ReduxConsumer

/// The line-level work behind a ``RecordingReader``: reading lines, parsing them, checking that
/// each is a valid next line of a recording, and decoding actions and snapshots.
///
/// It reads one line ahead after each action, to hand the action over together with the snapshot
/// recorded right after it; an error met on that line is kept and thrown by the next call, so
/// every action before a bad line is still delivered; a snapshot that disagrees with its action's
/// hash is the exception, thrown with the action, which is not delivered. The first error is
/// final: every later call throws it again, so nothing after a bad line is delivered.
final class RecordingParser {
    let source: String
    private(set) var lastIndex = 0
    let codecs: ActionCodecs
    let stopsAtSkippedActions: Bool
    /// Decodes a recorded state, or `nil` when the state is not `Decodable` (snapshots are then
    /// checked but not read).
    let decodeState: ((_ document: JSONDocument, _ node: Int) throws -> Any)?
    let lines: LineReader
    let document = JSONDocument()
    // `@exclusivity(unchecked)` on the look-ahead: a parser belongs to one `RecordingReader`, which
    // is not `Sendable` (the compiler keeps it on one thread at a time), and no method calls out
    // while it holds an access to them.

    /// A line read ahead (looking for a snapshot after an action) and not yet delivered: the
    /// document holds line `number`, which starts at `offset`.
    @exclusivity(unchecked) var lookaheadLine: (number: Int, offset: Int)?
    /// The look-ahead line as ``classifyLine()`` read it, when it was parsed already: a line the
    /// recorder does not write in its action layout, parsed once whether it is a snapshot or not.
    @exclusivity(unchecked) var classifiedLookahead: Line? {
        didSet { hasClassifiedLookahead = classifiedLookahead != nil }
    }
    /// Whether there is a `classifiedLookahead`: checked for every line, where reading the optional
    /// would copy it.
    @exclusivity(unchecked) private(set) var hasClassifiedLookahead = false
    /// Whether the snapshot after action ``lastIndex`` was read: a recorder writes one at most.
    @exclusivity(unchecked) var hasSnapshot = false
    /// The first error met, reading ahead or not: thrown when its line is due and by every call
    /// after that, until a ``seek(to:)``.
    @exclusivity(unchecked) var failure: ReplayError? {
        didSet { hasFailed = failure != nil }
    }
    /// Whether there is a `failure`: checked for every line, where reading the optional would copy
    /// the (large) error.
    @exclusivity(unchecked) private(set) var hasFailed = false
    var hasEnded = false
    /// Hashes a decoded snapshot with the recording's hash function (`nil` for a snapshot of
    /// another type), so that a snapshot can be checked against the hash on its action's line; set
    /// by the reader, which knows the state type, when the recording has hashes.
    var hashSnapshot: ((_ state: Any) throws -> UInt64?)?
    /// The codec of the last action read: consecutive actions are often of one type.
    var lastCodec: ActionCodecs.Codec?
    /// The actions decoded from recent payloads, reused for identical payloads.
    let decodedPayloads = DecodedPayloads()

    init(
        lines: LineReader,
        source: String,
        codecs: ActionCodecs,
        stopsAtSkippedActions: Bool,
        decodeState: ((_ document: JSONDocument, _ node: Int) throws -> Any)?
    ) {
        self.lines = lines
        self.source = source
        self.codecs = codecs
        self.stopsAtSkippedActions = stopsAtSkippedActions
        self.decodeState = decodeState
    }

    /// Whether the header names a hash: the recorder then writes one on every action line, and
    /// otherwise on none.
    private var recordsHashes = false

    /// Reads the header on the first line.
    func readHeader() throws(ReplayError) -> RecordingHeader {
        let header = try Self.readHeader(lines: lines, document: document, source: source)
        recordsHashes = header.hashName != nil
        return header
    }

    /// Reads the snapshot 0 after the header, if there is one (and `State` is `Decodable`);
    /// otherwise keeps the line for ``next()``.
    ///
    /// - Throws: ``ReplayError`` when the second line is missing or invalid.
    func readInitialState() throws(ReplayError) -> Any? {
        let offset = lines.offset
        guard try readLine() else {
            throw error(.truncated(reason: "the recording ends after its header"), line: 2)
        }
        let line = try classifyLine()
        if case .snapshot(0, let node) = line, let state = try decodeSnapshot(at: node) {
            hasSnapshot = true
            return state
        }
        lookaheadLine = (lines.lineNumber, offset)
        classifiedLookahead = line
        return nil
    }

    /// The error of a recorder that stopped before its first action, when the line after the
    /// header is its `end` line: why the recording has no initial state.
    func failureBeforeFirstAction() -> ReplayError? {
        guard let lookaheadLine, case .end(_, let failure?) = classifiedLookahead else { return nil }
        return error(.recorderFailed(reason: failure), line: lookaheadLine.number)
    }

    /// Reads the next action; see ``RecordingReader/next()``.
    func next() throws(ReplayError) -> ParsedStep? {
        do {
            return try readNext()
        } catch {
            // Kept so that asking again cannot read past the bad line.
            failure = error
            throw error
        }
    }

    private func readNext() throws(ReplayError) -> ParsedStep? {
        guard !hasEnded else { return nil }
        while true {
            let line: Line
            if try takeLookahead() {
                line = try classifyLookahead()
            } else if try readLine() {
                line = try classifyLine()
            } else {
                throw error(
                    .truncated(
                        reason: "the recording ends after action \(lastIndex) without its end line "
                            + "(the recorder was not closed; the process may have stopped)"
                    ),
                    line: lines.lineNumber + 1
                )
            }
            let lineNumber = lines.lineNumber
            switch line {
            case .action(let index, let content, let hash):
                // Before `lastIndex` moves: a replay that stops here applied the actions before it.
                // A damaged `hash` member, here or in the header, must not turn verification off.
                guard (hash != nil) == recordsHashes else {
                    throw error(
                        .corruptedLine(
                            reason: recordsHashes
                                ? "action \(index) has no \"hash\", but the header names a hash function"
                                : "action \(index) has a \"hash\", but the header names no hash function"),
                        line: lineNumber)
                }
                if case .skipped(let actionType) = content, stopsAtSkippedActions {
                    throw error(.skippedAction(index: index, actionType: actionType), line: lineNumber)
                }
                let previousIndex = lastIndex
                lastIndex = index
                hasSnapshot = false
                let snapshot = snapshotFollowing(index)
                if let snapshot, let hash {
                    do {
                        try checkSnapshot(snapshot, after: index, against: hash, actionLine: lineNumber)
                    } catch {
                        // The step is refused whole: a replay that stops here applied the actions
                        // before it, not this one.
                        lastIndex = previousIndex
                        throw error
                    }
                }
                return ParsedStep(
                    index: index,
                    line: lineNumber,
                    content: consume content,
                    hash: hash,
                    snapshot: snapshot
                )
            case .snapshot(let index, _):
                // Snapshots are read with the action before them (or as the initial state): one
                // here is out of place, repeated, or one of a state that is not decoded.
                guard index == lastIndex else {
                    throw error(
                        .corruptedLine(reason: "a snapshot after \(index) actions follows action \(lastIndex)"),
                        line: lineNumber)
                }
                guard !hasSnapshot else {
                    throw error(
                        .corruptedLine(reason: "a second snapshot after \(index) actions: lines are repeated"),
                        line: lineNumber)
                }
                hasSnapshot = true
            case .end(let count, let failure):
                guard count == lastIndex else {
                    throw error(
                        .corruptedLine(reason: "the end line counts \(count) actions, but \(lastIndex) were read"),
                        line: lineNumber)
                }
                if let failure {
                    throw error(.recorderFailed(reason: failure), line: lineNumber)
                }
                if try readLine() {
                    throw error(
                        .corruptedLine(reason: "content after the end of the recording"), line: lines.lineNumber)
                }
                hasEnded = true
                return nil
            }
        }
    }

    /// Checks that `snapshot`, just read after action `index`, hashes to `recordedHash`, the hash on
    /// the action's line: both describe the state after the action, so a recording in which they
    /// differ is damaged, and which of the two lines is wrong cannot be told.
    private func checkSnapshot(
        _ snapshot: ParsedStep.Snapshot,
        after index: Int,
        against recordedHash: UInt64,
        actionLine: Int
    ) throws(ReplayError) {
        guard let hashSnapshot else { return }
        let snapshotLine = lines.lineNumber
        let snapshotHash: UInt64?
        do {
            snapshotHash = try hashSnapshot(snapshot.state)
        } catch {
            throw self.error(
                .undecodableState(reason: "the snapshot on line \(snapshotLine) cannot be hashed: \(describe(error))"),
                line: actionLine)
        }
        guard let snapshotHash, snapshotHash != recordedHash else { return }
        throw self.error(
            .corruptedLine(
                reason: "action \(index) records the state hash \(hexadecimal(recordedHash)), but the snapshot "
                    + "after it (line \(snapshotLine)) hashes to \(hexadecimal(snapshotHash)): "
                    + "one of the two lines is damaged"),
            line: actionLine)
    }

    // MARK: Positions

    /// Where the parser stands: enough to come back to this point with ``seek(to:)``.
    struct Position {
        let offset: Int
        let lineNumber: Int
        let lastIndex: Int
        let hasSnapshot: Bool
    }

    var isSeekable: Bool { lines.isSeekable }

    var position: Position? {
        if hasFailed {
            return nil
        }
        if let (number, offset) = lookaheadLine {
            return Position(offset: offset, lineNumber: number - 1, lastIndex: lastIndex, hasSnapshot: hasSnapshot)
        }
        return Position(
            offset: lines.offset, lineNumber: lines.lineNumber, lastIndex: lastIndex, hasSnapshot: hasSnapshot)
    }

    func seek(to position: Position) throws(ReplayError) {
        do {
            try lines.seek(toOffset: position.offset, lineNumber: position.lineNumber)
        } catch {
            throw self.error(.cannotRewind(reason: error.message), line: position.lineNumber)
        }
        lookaheadLine = nil
        classifiedLookahead = nil
        failure = nil
        lastIndex = position.lastIndex
        hasSnapshot = position.hasSnapshot
        hasEnded = false
    }
}

/// One action line as the parser read it, before the reader gives it its state type.
struct ParsedStep {
    enum Content {
        case action(any Action)
        case skipped(actionType: String)
    }

    let index: Int
    let line: Int
    let content: Content
    let hash: UInt64?
    /// The recorded state after the action, decoded, when a snapshot follows it.
    let snapshot: Snapshot?

    /// A decoded snapshot, boxed: a step is checked for one after every action, and testing an
    /// `Any?` for `nil` copies it.
    final class Snapshot {
        let state: Any

        init(_ state: Any) {
            self.state = state
        }
    }
}
