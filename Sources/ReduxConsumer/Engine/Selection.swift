/// How a consumer reads its value from a state that lives in memory.
///
/// Passes hand the state around by address, so a read never copies the state. Built and used
/// inside `@inlinable` code, so it is specialised in the caller's module for concrete types.
@usableFromInline
enum Selection<State: Sendable, Value: Sendable> {
    /// A stored property at a fixed byte offset inside `State`: one load. A `KeyPath` subscript
    /// costs several times a closure call (it walks the key path's components at run time), and
    /// most selected values are stored properties.
    case offset(Int)
    /// Any other key path (computed properties, class references, optional chaining).
    case keyPath(KeyPath<State, Value>)
    /// A closure selector.
    case closure(@Sendable (State) -> Value)
    /// A derived value, memoised per engine (see ``Derived``).
    case derived(Derived<State, Value>)

    /// Reads `keyPath` by offset when it names stored properties of structs, by key path otherwise.
    @inlinable
    init(_ keyPath: KeyPath<State, Value>) {
        if let offset = MemoryLayout<State>.offset(of: keyPath) {
            self = .offset(offset)
        } else {
            self = .keyPath(keyPath)
        }
    }

    /// The selected value of the state at `state`.
    ///
    /// - Parameters:
    ///   - cache: The engine's memory of derived values, for a ``derived(_:)`` selection.
    ///   - memo: Where the caller keeps a derived value's memo between reads (an evaluation keeps
    ///     it in its cell, so it is looked up once).
    @inlinable
    func read(_ state: UnsafeMutablePointer<State>, cache: DerivationCache, memo: inout AnyObject?) -> Value {
        switch self {
        case .offset(let offset): return UnsafeRawPointer(state).load(fromByteOffset: offset, as: Value.self)
        case .keyPath(let keyPath): return state.pointee[keyPath: keyPath]
        case .closure(let select): return Self.call(select, with: &state.pointee)
        case .derived(let derived): return derived.read(state, cache: cache, memo: &memo)
        }
    }

    /// The selected value of a plain selection (not ``derived(_:)``), which needs no cache.
    @inlinable
    func read(_ state: UnsafeMutablePointer<State>) -> Value {
        switch self {
        case .offset(let offset): return UnsafeRawPointer(state).load(fromByteOffset: offset, as: Value.self)
        case .keyPath(let keyPath): return state.pointee[keyPath: keyPath]
        case .closure(let select): return Self.call(select, with: &state.pointee)
        case .derived:
            preconditionFailure("a derived value was read without its engine's cache")
        }
    }

    /// Calls a closure selector with the state in place. `inout`, never written: an `inout`
    /// argument is passed by address, while passing `pointee` itself would copy the whole state
    /// (and retain everything in it) before every call.
    @inlinable
    static func call(_ select: (State) -> Value, with state: inout State) -> Value {
        select(state)
    }
}

/// What selections that may share one evaluation have in common: the same stored property (same
/// offset, same type: the same bytes read the same way), the same key path, or the same derived
/// selector.
///
/// An offset and a type hash in a few instructions; hashing a key path walks its components, the
/// largest single cost of adding a consumer.
@usableFromInline
enum GroupKey: Hashable {
    case offset(Int, type: ObjectIdentifier)
    case keyPath(AnyKeyPath)
    /// A derived selector, by the identity of its shared definition.
    case derived(ObjectIdentifier)

    @inlinable
    init<State: Sendable, Value: Sendable>(_ selection: Selection<State, Value>, keyPath: AnyKeyPath) {
        if case .offset(let offset) = selection {
            self = .offset(offset, type: ObjectIdentifier(Value.self))
        } else {
            self = .keyPath(keyPath)
        }
    }

    /// One word into the hasher for an offset or a derived selector, not the synthesized three
    /// (case, offset, type): every add looks its key up, and each word costs a round of SipHash.
    /// Keys of different cases may hash alike; `==` tells them apart.
    @usableFromInline
    func hash(into hasher: inout Hasher) {
        switch self {
        case .offset(let offset, let type):
            hasher.combine(UInt(bitPattern: type) ^ (UInt(bitPattern: offset) &* 0x9E37_79B9_7F4A_7C15))
        case .keyPath(let keyPath):
            hasher.combine(keyPath)
        case .derived(let definition):
            hasher.combine(definition)
        }
    }
}
