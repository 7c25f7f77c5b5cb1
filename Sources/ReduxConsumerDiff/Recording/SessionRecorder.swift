import ReduxConsumer

/// A middleware that records a session: every action the reducer receives, one JSON line each, to
/// a file, a handle or memory, so the session can be replayed elsewhere.
///
/// ```swift
/// var codecs = ActionCodecs()
/// codecs.register(CounterAction.self, as: "counter")
/// let recorder = try SessionRecorder<AppState>(
///     to: .file(atPath: "session.jsonl"),
///     codecs: codecs,
///     hash: .structural,        // fingerprint the state after every action
///     snapshotInterval: 1_000   // and record it whole every 1,000 actions
/// )
/// let store = Store(initialState: AppState(), reducer: appReducer, middleware: [logging, recorder.middleware])
/// // … the session runs …
/// try recorder.close()
/// ```
///
/// Install ``middleware`` last (innermost), so it records exactly the actions that reach the
/// reducer, after other middleware transformed or swallowed them, including the actions that
/// middleware dispatches. The recording starts with the state before its first action (when
/// `State` is `Encodable`); see ``RecordingFormat`` for the lines it writes.
///
/// ## Cost and blocking
/// Per action, on the dispatching thread: two uncontended lock round trips, the action's encoding,
/// and, when asked for, a state hash (see ``StateHash``) and every `snapshotInterval` actions a
/// snapshot. Lines accumulate in memory and are written when `flushThreshold` bytes are waiting,
/// on ``flush()`` and on ``close()``: a dispatch blocks on I/O only for that one buffered write.
/// Encoding runs outside the recorder's lock.
///
/// ## Errors
/// Recording never fails a dispatch. At the first error (an action with no codec, an encoding
/// that throws, a failed write) the recorder stops recording and keeps the error in ``failure``;
/// ``flush()`` and ``close()`` throw it. See ``RecordingError``.
///
/// ## Lifetime
/// The middleware holds the recorder, so it lives as long as the store. Call ``close()`` when the
/// session ends: it writes the `end` line, flushes, and closes a file it opened. A recorder that
/// is released unclosed closes itself, but the error, if any, is then lost. After `close()` the
/// middleware passes actions on without recording them.
///
/// One recorder records one store.
public final class SessionRecorder<State: Sendable>: Sendable {
    /// What to do with an action whose type has no codec in ``ActionCodecs``.
    public enum UnregisteredActions: Sendable, Hashable {
        /// Stop recording with ``RecordingError/Kind/noCodec(actionType:)``: the safe default.
        case fail
        /// Record a `skipped` line with the type's name and the state hash, and go on. A replay
        /// cannot reproduce that action: by default it stops there, see
        /// ``RecordingReader/SkippedActions``.
        case skip
    }

    private let codecs: ActionCodecs
    private let hash: StateHash<State>?
    private let snapshotInterval: Int?
    private let encodeState: (@Sendable (_ state: State, _ stream: EncodingStream) throws -> Void)?
    private let unregisteredActions: UnregisteredActions
    private let flushThreshold: Int
    private let output: Lock<RecorderOutput>
    /// The recorded store's state when the middleware was installed (on the first store only),
    /// until the first action records the initial state: what a recording closed before its first
    /// action records instead, even once the store is gone.
    private let stateAtInstall = Lock<State?>(nil)
    private let isInstalled = Lock(false)

    /// Creates a recorder and writes the recording's header (into its buffer).
    ///
    /// - Parameters:
    ///   - destination: Where the lines go.
    ///   - codecs: How each action type is written; see ``ActionCodecs``.
    ///   - hash: The hash recorded after every action, or `nil` for none. ``StateHash/structural``
    ///     for a `Codable` state.
    ///   - snapshotInterval: Record the whole state every this many actions (it must be
    ///     `Encodable`), or `nil` for none. The initial state is recorded whenever `State` is
    ///     `Encodable`.
    ///   - unregisteredActions: What to do with an action that has no codec.
    ///   - flushThreshold: How many bytes may wait in memory before they are written; 0 writes
    ///     after every action.
    /// - Throws: ``RecordingError/Kind/cannotOpen(path:reason:)`` when the file cannot be
    ///   created, ``RecordingError/Kind/stateNotEncodable(reason:)`` when snapshots are asked for
    ///   a state that is not `Encodable`.
    public init(
        to destination: RecordingDestination,
        codecs: ActionCodecs,
        hash: StateHash<State>? = nil,
        snapshotInterval: Int? = nil,
        unregisteredActions: UnregisteredActions = .fail,
        flushThreshold: Int = 64 * 1024
    ) throws(RecordingError) {
        requireProperUse(snapshotInterval.map { $0 > 0 } ?? true, "SessionRecorder: snapshotInterval must be positive")
        var encodeState: (@Sendable (State, EncodingStream) throws -> Void)?
        if State.self is any Encodable.Type {
            encodeState = { state, stream in
                guard let state = state as? any Encodable else { return }
                try stream.encode(state)
            }
        }
        if snapshotInterval != nil, encodeState == nil {
            throw RecordingError(.stateNotEncodable(reason: "snapshots need \(State.self) to be Encodable"))
        }
        self.codecs = codecs
        self.hash = hash
        self.snapshotInterval = snapshotInterval
        self.encodeState = encodeState
        self.unregisteredActions = unregisteredActions
        self.flushThreshold = flushThreshold
        let header = JSONBytes()
        header.appendHeader(RecordingHeader(hashName: hash?.name, snapshotInterval: snapshotInterval))
        output = Lock(RecorderOutput(channel: try destination.open(), pending: header.bytes))
    }

    deinit {
        try? close()
    }

    /// The middleware to install, last, on the store to record.
    public var middleware: Middleware<State> {
        { [self] _, getState in
            let isFirstInstall = isInstalled.withLock { isInstalled in
                defer { isInstalled = true }
                return !isInstalled
            }
            if encodeState != nil, isFirstInstall {
                // Read outside the recorder's locks (`getState` takes the store's).
                let state = getState()
                // Swapped in, so that whatever it replaces (nothing, on a first install) is
                // released after the lock: a state's last copy may run a user deinit.
                let replaced = stateAtInstall.withLock { kept in
                    defer { kept = state }
                    return kept
                }
                withExtendedLifetime(replaced) {}
            }
            return { next in
                { action in self.record(action, getState: getState, next: next) }
            }
        }
    }

    /// Passes `action` on and records it with the state it led to.
    private func record(_ action: any Action, getState: GetState<State>, next: DispatchFunction) {
        guard let lease = output.withLock({ $0.lease(wantsInitialState: encodeState != nil) }) else {
            next(action)
            return
        }
        let initialState = lease.wantsInitialState ? getState() : nil
        if lease.wantsInitialState {
            // Recorded with this action now: the copy kept for a recording without one goes.
            let kept = stateAtInstall.withLock { $0.take() }
            withExtendedLifetime(kept) {}
        }
        next(action)
        let state = hash != nil || isSnapshotDue(lease.index) ? getState() : nil
        let failure = writeLines(
            for: action, at: lease.index, initialState: initialState, state: state, into: lease.scratch)
        let threshold = flushThreshold
        output.withLock { $0.commit(lease, failure: failure, flushThreshold: threshold) }
    }

    /// The number of actions recorded so far (skipped ones included).
    public var recordedActionCount: Int {
        output.withLock { $0.recordedActionCount }
    }

    /// The error that stopped the recording, or `nil` while it is recording normally.
    public var failure: RecordingError? {
        output.withLock { $0.failure }
    }

    /// Writes the lines waiting in memory now.
    ///
    /// Safe from any thread, including while the store dispatches.
    ///
    /// - Throws: The error that stopped the recording, if any; see ``failure``.
    public func flush() throws(RecordingError) {
        if let failure = output.withLock({ $0.flush() }) {
            throw failure
        }
    }

    /// Ends the recording: writes its `end` line (naming the error that stopped it, if any),
    /// flushes, and closes a file the recorder opened. Later actions are not recorded.
    ///
    /// Calling it again does nothing more (it throws the same error, if any).
    ///
    /// - Throws: The error that stopped the recording, if any; see ``failure``.
    public func close() throws(RecordingError) {
        recordInitialStateIfNoActionWas()
        if let failure = output.withLock({ $0.close() }) {
            throw failure
        }
    }

    /// Before the end line of a recording that no action reached: the initial state (snapshot 0,
    /// which an action records before itself otherwise), so that the recording opens, and replays
    /// to that state.
    private func recordInitialStateIfNoActionWas() {
        guard encodeState != nil, let lease = output.withLock({ $0.leaseForInitialState() }) else { return }
        let state = stateAtInstall.withLock { $0.take() }
        lease.scratch.json.bytes.removeAll(keepingCapacity: true)
        // `nil` when the middleware was never installed: the recording then ends without a state.
        let failure = state.flatMap { appendSnapshot($0, at: 0, into: lease.scratch) }
        output.withLock { $0.commitInitialState(lease, failure: failure) }
    }

    private func isSnapshotDue(_ index: Int) -> Bool {
        guard let snapshotInterval else { return false }
        return index % snapshotInterval == 0
    }

    /// Builds the lines for one action in `scratch` (the initial snapshot first, when given, and
    /// a snapshot after it when one is due); returns the error that stops the recording, if any.
    private func writeLines(
        for action: any Action,
        at index: Int,
        initialState: State?,
        state: State?,
        into scratch: RecorderScratch
    ) -> RecordingError? {
        let json = scratch.json
        json.bytes.removeAll(keepingCapacity: true)
        if let initialState, let failure = appendSnapshot(initialState, at: 0, into: scratch) {
            return failure
        }
        json.append("{\"index\":")
        json.appendDecimal(UInt64(index))
        if let codec = codecs.codec(for: action) {
            json.append(",\"type\":")
            json.appendQuoted(codec.name)
            json.append(",\"action\":")
            do {
                try codec.encode(action, scratch.line)
            } catch {
                return RecordingError(
                    .encodingFailed(actionType: codec.typeName, reason: describe(error)),
                    actionIndex: index
                )
            }
        } else {
            let typeName = String(reflecting: type(of: action))
            guard unregisteredActions == .skip else {
                return RecordingError(.noCodec(actionType: typeName), actionIndex: index)
            }
            json.append(",\"skipped\":")
            json.appendQuoted(typeName)
        }
        var stateHash: UInt64?
        if let hash, let state {
            do {
                stateHash = try hash.compute(state, scratch.hash)
            } catch {
                return RecordingError(.stateNotEncodable(reason: describe(error)), actionIndex: index)
            }
        }
        json.appendLineEnd(hash: stateHash)
        if isSnapshotDue(index), let state, let failure = appendSnapshot(state, at: index, into: scratch) {
            return failure
        }
        return nil
    }

    private func appendSnapshot(_ state: State, at index: Int, into scratch: RecorderScratch) -> RecordingError? {
        guard let encodeState else { return nil }
        scratch.json.append("{\"snapshot\":")
        scratch.json.appendDecimal(UInt64(index))
        scratch.json.append(",\"state\":")
        do {
            try encodeState(state, scratch.line)
        } catch {
            return RecordingError(.stateNotEncodable(reason: describe(error)), actionIndex: index == 0 ? nil : index)
        }
        scratch.json.append("}\n")
        return nil
    }
}

/// The encoders a recorder reuses from action to action; lent to one action at a time.
final class RecorderScratch {
    /// The lines being built.
    let json = JSONBytes()
    /// Encodes values into `json`.
    let line: EncodingStream
    let hash = HashScratch()

    init() {
        line = EncodingStream(sink: json, maximumLevel: EncodingStream.recordableLevel)
    }
}

/// An error as one line of text: a `DecodingError`'s or `EncodingError`'s debug description, or
/// the error's own description.
func describe(_ error: any Error) -> String {
    switch error {
    case EncodingError.invalidValue(_, let context):
        return context.debugDescription
    case let error as DecodingError:
        return describe(decodingError: error)
    default:
        return String(describing: error)
    }
}

/// A `DecodingError` in one line, with the path of the value that failed: `at set._0: expected a
/// number, found a string`.
func describe(decodingError error: DecodingError) -> String {
    let context: DecodingError.Context
    switch error {
    case .typeMismatch(_, let errorContext), .valueNotFound(_, let errorContext), .keyNotFound(_, let errorContext),
        .dataCorrupted(let errorContext):
        context = errorContext
    @unknown default:
        return String(describing: error)
    }
    let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    let location = path.isEmpty ? "" : "at \(path.hasPrefix(".") ? String(path.dropFirst()) : path): "
    return location + context.debugDescription
}
