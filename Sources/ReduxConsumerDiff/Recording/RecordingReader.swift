import ReduxConsumer

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// Reads a recording line by line: its header and initial state at once, then one
/// ``RecordedStep`` per ``next()``, with typed errors that name the line.
///
/// ```swift
/// let reader = try RecordingReader<AppState>(contentsOfFile: "session.jsonl", codecs: codecs)
/// let store = Store(initialState: reader.initialState, reducer: appReducer)
/// try reader.replay(into: store)   // stops at the first bad line or divergence
/// ```
///
/// The reader holds one line at a time (and a 64 KiB read buffer), so a recording of millions of
/// actions replays in bounded memory; a line may be 256 MiB long at most (the header, 64 KiB). It reads what ``SessionRecorder`` writes (see
/// ``RecordingFormat``), checking every line: a line that is not JSON, a corrupted or truncated
/// file, another kind of file, an action type with no codec or a newer format stop it with a
/// ``ReplayError`` whose ``ReplayError/line`` points at the culprit. Nothing after that line is
/// delivered.
///
/// ## Verification
/// ``verify(_:after:)`` checks a replayed state against a step: the recorded hash, with the
/// ``StateHash`` the recording names (``StateHash/structural`` is found on its own when `State` is
/// `Codable`), or the snapshot when there is no hash. ``replay(into:through:)``,
/// ``ReplayCursor`` and `TestStore.replay` verify every step. A snapshot is also checked against
/// the hash on its action's line as it is read: when they disagree the recording is damaged, and
/// ``next()`` throws at that action instead of delivering it.
///
/// A reader is used by one thread at a time and is not `Sendable`.
public final class RecordingReader<State: Sendable> {
    /// What to do when the recording holds an action the recorder skipped (it had no codec).
    public enum SkippedActions: Sendable, Hashable {
        /// Stop with ``ReplayError/Kind/skippedAction(index:actionType:)``: the default, since the
        /// replay cannot reproduce the action.
        case stop
        /// Deliver the step with ``RecordedStep/Content/skipped(actionType:)``; a replay applies
        /// nothing and verifies the recorded hash against the unchanged state, so it goes on only
        /// if the skipped action changed nothing the hash covers, and otherwise stops there with
        /// a divergence.
        case verifyAndContinue
    }

    /// The recording's header.
    public let header: RecordingHeader
    /// The state the recording starts from: its snapshot 0, or the `initialState` given.
    public let initialState: State
    /// Where the recording comes from, as errors name it: a path, `fd N` or `recording`.
    public let source: String
    /// The number of the last action read; 0 before the first.
    public var lastIndex: Int { parser.lastIndex }

    /// The hash that verifies recorded hashes, or `nil` when the recording has none.
    let hash: StateHash<State>?
    private let parser: RecordingParser
    private let hashScratch = HashScratch()

    /// Opens and reads the recording at `path` up to its first action.
    ///
    /// - Parameters:
    ///   - path: The recording's path.
    ///   - codecs: The codecs of the recorded action types, under the names used when recording.
    ///   - hash: The function that verifies recorded hashes; leave `nil` for
    ///     ``StateHash/structural`` or no hashes.
    ///   - initialState: The state to start from when the recording has none (a state that is
    ///     not `Codable`); a recorded initial state wins.
    ///   - skippedActions: What to do with actions the recorder skipped.
    /// - Throws: ``ReplayError`` for a file that cannot be read, is not a recording, is of a newer
    ///   format, or has no initial state.
    public convenience init(
        contentsOfFile path: String,
        codecs: ActionCodecs,
        hash: StateHash<State>? = nil,
        initialState: State? = nil,
        skippedActions: SkippedActions = .stop
    ) throws(ReplayError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ReplayError(.unreadable(reason: systemErrorDescription(errno)), line: 0, source: path)
        }
        try self.init(
            lines: LineReader(descriptor: descriptor, closesDescriptor: true),
            source: path,
            codecs: codecs,
            hash: hash,
            initialState: initialState,
            skippedActions: skippedActions
        )
    }

    /// Reads a recording from an open file descriptor, from its current position; the reader
    /// does not close it.
    ///
    /// A descriptor that cannot seek (a pipe, standard input) reads fine, but ``ReplayCursor``
    /// cannot step back on it.
    ///
    /// - Parameters:
    ///   - descriptor: The descriptor to read.
    ///   - codecs: The codecs of the recorded action types.
    ///   - hash: The function that verifies recorded hashes; see
    ///     ``init(contentsOfFile:codecs:hash:initialState:skippedActions:)``.
    ///   - initialState: The state to start from when the recording has none.
    ///   - skippedActions: What to do with actions the recorder skipped.
    public convenience init(
        fileDescriptor descriptor: Int32,
        codecs: ActionCodecs,
        hash: StateHash<State>? = nil,
        initialState: State? = nil,
        skippedActions: SkippedActions = .stop
    ) throws(ReplayError) {
        try self.init(
            lines: LineReader(descriptor: descriptor, closesDescriptor: false),
            source: "fd \(descriptor)",
            codecs: codecs,
            hash: hash,
            initialState: initialState,
            skippedActions: skippedActions
        )
    }

    /// Reads a recording held in memory, such as a ``RecordingBuffer``'s bytes.
    ///
    /// - Parameters:
    ///   - bytes: The recording.
    ///   - codecs: The codecs of the recorded action types.
    ///   - hash: The function that verifies recorded hashes; see
    ///     ``init(contentsOfFile:codecs:hash:initialState:skippedActions:)``.
    ///   - initialState: The state to start from when the recording has none.
    ///   - skippedActions: What to do with actions the recorder skipped.
    public convenience init(
        bytes: [UInt8],
        codecs: ActionCodecs,
        hash: StateHash<State>? = nil,
        initialState: State? = nil,
        skippedActions: SkippedActions = .stop
    ) throws(ReplayError) {
        try self.init(
            lines: LineReader(bytes: bytes),
            source: "recording",
            codecs: codecs,
            hash: hash,
            initialState: initialState,
            skippedActions: skippedActions
        )
    }

    private init(
        lines: LineReader,
        source: String,
        codecs: ActionCodecs,
        hash: StateHash<State>?,
        initialState: State?,
        skippedActions: SkippedActions
    ) throws(ReplayError) {
        self.source = source
        let parser = RecordingParser(
            lines: lines,
            source: source,
            codecs: codecs,
            stopsAtSkippedActions: skippedActions == .stop,
            decodeState: Self.stateDecoder()
        )
        header = try parser.readHeader()
        let verifyingHash = try Self.verifyingHash(for: header, given: hash, source: source)
        self.hash = verifyingHash
        if let verifyingHash {
            // The reader's scratch, not the reader: the parser must not keep its reader alive.
            let scratch = hashScratch
            parser.hashSnapshot = { state in
                guard let state = state as? State else { return nil }
                return try verifyingHash.compute(state, scratch)
            }
        }
        guard let state = try parser.readInitialState() as? State ?? initialState else {
            throw parser.failureBeforeFirstAction() ?? ReplayError(.noInitialState, line: 2, source: source)
        }
        self.initialState = state
        self.parser = parser
    }

    /// Reads the next action.
    ///
    /// - Returns: The next step, or `nil` after the recording's `end` line.
    /// - Throws: ``ReplayError`` at the first line that is not a valid part of the recording, at a
    ///   skipped action (with ``SkippedActions/stop``), at an action whose recorded hash disagrees
    ///   with the snapshot after it (``ReplayError/Kind/corruptedLine(reason:)`` on the action's
    ///   line, the action not delivered), at the `end` line of a recorder that failed, or when the
    ///   recording ends without its `end` line; every later call throws the same error.
    public func next() throws(ReplayError) -> RecordedStep<State>? {
        guard let parsed = try parser.next() else { return nil }
        let content: RecordedStep<State>.Content
        switch parsed.content {
        case .action(let action): content = .action(action)
        case .skipped(let actionType): content = .skipped(actionType: actionType)
        }
        return RecordedStep(
            index: parsed.index,
            line: parsed.line,
            content: content,
            hash: parsed.hash,
            snapshot: parsed.snapshot.flatMap { $0.state as? State }
        )
    }

    /// Checks `state`, the replayed state after `step`, against the recording.
    ///
    /// Compares the state's hash with the recorded one when the recording has hashes (a match is
    /// enough), otherwise the recorded snapshot, when there is one, by ``StateDiff``. For a
    /// skipped step, `state` is the state before it, which the skipped action must have left
    /// unchanged.
    ///
    /// - Parameters:
    ///   - state: The replayed state after the step.
    ///   - step: The step, as ``next()`` returned it.
    /// - Throws: ``ReplayError/Kind/diverged(_:)`` with the recorded → replayed diff when a snapshot
    ///   is there.
    public func verify(_ state: State, after step: RecordedStep<State>) throws(ReplayError) {
        try verify(state, index: step.index, line: step.line, recordedHash: step.hash, snapshot: step.snapshot) {
            (step.action, step.actionDescription)
        }
    }

    /// Whether ``verify(_:after:)`` has anything to compare for `step`: callers skip reading the
    /// state when it has not.
    public func canVerify(_ step: RecordedStep<State>) -> Bool {
        (step.hash != nil && hash != nil) || step.snapshot != nil
    }

    // MARK: Replay loops

    /// The next step as the parser reads it: what replay loops use, without building a
    /// ``RecordedStep`` for every action.
    func nextParsed() throws(ReplayError) -> ParsedStep? {
        try parser.next()
    }

    /// ``verify(_:after:)`` for a parsed step; it reads nothing from the state when the step has
    /// nothing to compare.
    func verify(_ state: State, after step: ParsedStep) throws(ReplayError) {
        var replayedHash: UInt64?
        if step.snapshot == nil {
            guard let recordedHash = step.hash, let hash else { return }
            // The common case, a hash and no snapshot, is compared here: the general path's `State?`
            // values cost a type-metadata lookup on every call (this code is not specialized).
            let stateHash = try self.stateHash(state, with: hash, line: step.line)
            if stateHash == recordedHash { return }
            replayedHash = stateHash
        }
        try verifyInFull(state, after: step, replayedHash: replayedHash)
    }

    /// The rest of the parsed step's verification: a snapshot to compare, or a hash that differs,
    /// reported as a divergence with its diff.
    @inline(never)
    private func verifyInFull(_ state: State, after step: ParsedStep, replayedHash: UInt64?) throws(ReplayError) {
        let snapshot = step.snapshot.flatMap { $0.state as? State }
        try verify(
            state, index: step.index, line: step.line, recordedHash: step.hash, snapshot: snapshot,
            replayedHash: replayedHash
        ) {
            switch step.content {
            case .action(let action): (action, String(describing: action))
            case .skipped(let actionType): (nil, "skipped \(actionType)")
            }
        }
    }

    /// `hash` of `state`, or the error that says the state cannot be hashed.
    private func stateHash(_ state: State, with hash: StateHash<State>, line: Int) throws(ReplayError) -> UInt64 {
        do {
            return try hash.compute(state, hashScratch)
        } catch {
            throw ReplayError(
                .undecodableState(reason: "the replayed state cannot be hashed: \(describe(error))"),
                line: line,
                source: source
            )
        }
    }

    /// Compares `state` with the recorded hash (`knownHash`, when given, is its hash, computed
    /// already) or else the snapshot, and throws the divergence.
    private func verify(
        _ state: State,
        index: Int,
        line: Int,
        recordedHash: UInt64?,
        snapshot: State?,
        replayedHash knownHash: UInt64? = nil,
        action: () -> (action: (any Action)?, description: String)
    ) throws(ReplayError) {
        var replayedHash: UInt64?
        if let recordedHash, let hash {
            let stateHash: UInt64
            if let knownHash {
                stateHash = knownHash
            } else {
                stateHash = try self.stateHash(state, with: hash, line: line)
            }
            if stateHash == recordedHash { return }
            replayedHash = stateHash
        } else if snapshot == nil {
            return
        }
        let diff = snapshot.map { StateDiff(from: $0, to: state) }
        if replayedHash == nil, diff?.isEmpty ?? true { return }
        let (action, description) = action()
        let divergence = ReplayDivergence(
            index: index,
            action: action,
            actionDescription: description,
            recordedHash: replayedHash == nil ? nil : recordedHash,
            replayedHash: replayedHash,
            diff: diff
        )
        throw ReplayError(.diverged(divergence), line: line, source: source)
    }

    // MARK: Positions

    /// Whether ``seek(to:)`` works: recordings in memory or in regular files.
    var isSeekable: Bool { parser.isSeekable }

    /// The position of the next line to read, or `nil` after an error.
    var position: RecordingParser.Position? { parser.position }

    /// Continues reading at `position`.
    func seek(to position: RecordingParser.Position) throws(ReplayError) {
        try parser.seek(to: position)
    }
}

@available(*, unavailable)
extension RecordingReader: Sendable {}
