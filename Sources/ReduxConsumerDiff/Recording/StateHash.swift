import ReduxConsumer

/// How a recording fingerprints the state after each action, so a replay can tell the moment it
/// stops reproducing the recorded session.
///
/// The hash must be the same for equal states in every process and on every platform, so it is
/// never Swift's `Hasher` (seeded per process). Use ``structural`` for a `Codable` state, or give
/// your own function, for example over the few fields that matter or a version counter you keep:
///
/// ```swift
/// let recorder = try SessionRecorder<AppState>(to: .file(atPath: path), codecs: codecs, hash: .structural)
/// let cheap = StateHash<AppState>(name: "app-revision") { state in UInt64(state.revision) }
/// ```
///
/// The recording names the function in its header; a replay verifies hashes only with a function
/// of the same name.
///
/// ## Cost
/// The function runs after every recorded action and again after every replayed one. The
/// structural hash walks the whole state through its `Encodable` conformance: about 10–40 ns per
/// stored value (a 3-field struct costs well under a microsecond, a state holding 10,000 strings
/// about a few hundred microseconds), so for large states prefer a function over a part of the
/// state, or record without hashes (`hash: nil`) and rely on snapshots.
public struct StateHash<State: Sendable>: Sendable {
    /// The name written in the recording's header, checked when it is replayed.
    public let name: String
    let compute: @Sendable (_ state: State, _ scratch: HashScratch) throws -> UInt64

    /// The name of ``structural`` in recordings.
    static var structuralName: String { "structural64" }

    /// A hash computed by your function.
    ///
    /// - Parameters:
    ///   - name: Identifies the function in recordings; change it whenever the function changes.
    ///     Must not be empty or `structural64` (the name of ``structural``).
    ///   - hash: Returns the same value for equal states in every process. Called on the thread
    ///     that dispatches, outside any lock.
    public init(name: String, _ hash: @escaping @Sendable (_ state: State) -> UInt64) {
        requireProperUse(
            !name.isEmpty && name != Self.structuralName, "StateHash: choose a name other than \"\(name)\"")
        self.name = name
        compute = { state, _ in hash(state) }
    }

    init(name: String, compute: @escaping @Sendable (_ state: State, _ scratch: HashScratch) throws -> UInt64) {
        self.name = name
        self.compute = compute
    }

    /// The hash of `state`, as a recording holds it for the state after an action.
    ///
    /// Compare the state a replay ends in with the one a recording ended in, or print it:
    ///
    /// ```swift
    /// let hash = try StateHash<AppState>.structural(store.state)
    /// ```
    ///
    /// - Parameter state: The state to hash.
    /// - Returns: The hash, the same for equal states in every process.
    /// - Throws: The error of a state ``structural`` cannot encode (an `encode(to:)` that throws,
    ///   or a state nested deeper than a recording can hold). A NaN does not throw: every NaN
    ///   hashes alike.
    public func callAsFunction(_ state: State) throws -> UInt64 {
        try compute(state, HashScratch())
    }
}

extension StateHash where State: Encodable {
    /// A 64-bit hash of the state's `Encodable` structure, the same in every process.
    ///
    /// Field order, dictionary order and set order do not matter; values, keys and array order do.
    /// Scalars are compared as JSON would hold them (an `Int8` and an `Int` with the same value hash
    /// alike). Its cost is linear in the size of the state; see the type's documentation.
    ///
    /// A state nested deeper than a recording's snapshot can hold (511 levels of containers, as
    /// its JSON would be), or with more than 1,024 values wrapped one inside another in
    /// single-value containers, is an `EncodingError` that says so, never a stack overflow: a
    /// snapshot has the same limits, and recording stops there with
    /// ``RecordingError/Kind/stateNotEncodable(reason:)``.
    public static var structural: StateHash<State> {
        StateHash(name: structuralName) { state, scratch in try scratch.structuralHash(of: state) }
    }
}

/// The reusable buffers of the structural hash; one per recorder or reader, used by one thread
/// at a time.
final class HashScratch {
    private let sink = StructuralHash()
    private let stream: EncodingStream

    init() {
        // The limit of a snapshot: a state is hashed only as deep as a recording can hold it,
        // and deeper is an error rather than a recursion as deep as the state.
        stream = EncodingStream(sink: sink, maximumLevel: EncodingStream.recordableLevel)
    }

    func structuralHash<Value: Encodable>(of value: Value) throws -> UInt64 {
        sink.reset()
        try stream.encode(value)
        return sink.result
    }
}
