import ReduxConsumer

extension RecordingReader {
    /// The hash that verifies the recording's hashes: the one given, or the structural hash when
    /// the recording names it and `State` is `Encodable`.
    static func verifyingHash(
        for header: RecordingHeader,
        given: StateHash<State>?,
        source: String
    ) throws(ReplayError) -> StateHash<State>? {
        guard let recorded = header.hashName else { return nil }
        if let given {
            guard given.name == recorded else {
                throw ReplayError(.hashFunctionMismatch(recorded: recorded, given: given.name), line: 1, source: source)
            }
            return given
        }
        guard recorded == StateHash<State>.structuralName,
            let encodable = State.self as? any (Encodable & Sendable).Type
        else {
            throw ReplayError(.hashFunctionMismatch(recorded: recorded, given: nil), line: 1, source: source)
        }
        return structuralHash(encoding: encodable)
    }

    /// ``StateHash/structural`` for a `State` known to be `Encodable` only at run time.
    ///
    /// Opening the type once here spares each hash an `as? any Encodable` (a dynamic cast and an
    /// existential box per action).
    private static func structuralHash<Encoded: Encodable & Sendable>(encoding type: Encoded.Type) -> StateHash<State> {
        precondition(Encoded.self == State.self, "RecordingReader: \(Encoded.self) is not \(State.self)")
        return StateHash(name: StateHash<State>.structuralName) { state, scratch in
            // `Encoded` is `State` (checked above): the cast reinterprets a value as its own type.
            try scratch.structuralHash(of: unsafeBitCast(state, to: Encoded.self))
        }
    }

    /// Decodes recorded states when `State` is `Decodable`; `nil` otherwise.
    static func stateDecoder() -> ((_ document: JSONDocument, _ node: Int) throws -> Any)? {
        guard let decodable = State.self as? any Decodable.Type else { return nil }
        return { document, node in try document.decode(decodable, at: node) }
    }
}
