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
        guard recorded == StateHash<State>.structuralName, State.self is any Encodable.Type else {
            throw ReplayError(.hashFunctionMismatch(recorded: recorded, given: nil), line: 1, source: source)
        }
        return StateHash(name: recorded) { state, scratch in
            guard let state = state as? any Encodable else { return 0 }
            return try scratch.structuralHash(of: state)
        }
    }

    /// Decodes recorded states when `State` is `Decodable`; `nil` otherwise.
    static func stateDecoder() -> ((_ document: JSONDocument, _ node: Int) throws -> Any)? {
        guard let decodable = State.self as? any Decodable.Type else { return nil }
        return { document, node in try document.decode(decodable, at: node) }
    }
}
