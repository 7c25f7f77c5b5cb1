import Dispatch

/// How a consumer reads its value from a state that lives in memory.
///
/// Passes hand the state around as a pointer, so a read never copies the state. Built and used
/// inside `@inlinable` code, so it is specialised in the caller's module for concrete types.
@usableFromInline
enum Selection<State, Value> {
    /// A stored property at a fixed byte offset inside `State`: one load. A `KeyPath` subscript
    /// costs several times a closure call (it walks the key path's components at run time), and
    /// most selected values are stored properties.
    case offset(Int)
    /// Any other key path (computed properties, class references, optional chaining).
    case keyPath(KeyPath<State, Value>)
    /// A closure selector.
    case closure(@Sendable (State) -> Value)

    /// Reads `keyPath` by offset when it names stored properties of structs, by key path otherwise.
    @inlinable
    init(_ keyPath: KeyPath<State, Value>) {
        if let offset = MemoryLayout<State>.offset(of: keyPath) {
            self = .offset(offset)
        } else {
            self = .keyPath(keyPath)
        }
    }

    /// The selected value of `state`, which lives at `address`.
    ///
    /// Both are given because each is free where the other is not: a stored property is one load
    /// from the address, while a closure must get the state itself (turning the address back into
    /// an argument, `address.pointee`, would copy the whole state before every call). The state is
    /// `inout`, never written, because `inout` is always passed by address: compiled for a
    /// concrete `State`, a borrowed parameter would be loaded into registers and stored back to
    /// memory (two copies of the whole state) around every selector call.
    @inlinable
    func read(_ state: inout State, at address: UnsafeRawPointer) -> Value {
        switch self {
        case .offset(let offset): return address.load(fromByteOffset: offset, as: Value.self)
        case .keyPath(let keyPath): return state[keyPath: keyPath]
        case .closure(let select): return select(state)
        }
    }
}

/// What consumers that may share a group have in common: the same stored property (same offset,
/// same type: the same bytes read the same way) or else the same key path.
///
/// An offset and a type hash in a few instructions; hashing a key path walks its components, the
/// largest single cost of adding a consumer.
@usableFromInline
enum GroupKey: Hashable {
    case offset(Int, type: ObjectIdentifier)
    case keyPath(AnyKeyPath)

    @inlinable
    init<State, Value>(_ selection: Selection<State, Value>, keyPath: AnyKeyPath) {
        if case .offset(let offset) = selection {
            self = .offset(offset, type: ObjectIdentifier(Value.self))
        } else {
            self = .keyPath(keyPath)
        }
    }
}

/// The three callback shapes of `StateConsumer.add`, stored as they were given: wrapping them in
/// one closure shape would allocate a context per consumer.
@usableFromInline
enum ConsumerCallback<State: Sendable, Value: Sendable>: Sendable {
    case change(@Sendable (_ old: Value, _ new: Value) -> Void)
    case value(@Sendable (_ new: Value) -> Void)
    case changeInState(@Sendable (_ old: Value, _ new: Value, _ state: State) -> Void)

    /// Calls the callback; `state` points to the new state.
    @inlinable
    func call(old: Value, new: Value, state: UnsafeRawPointer) {
        switch self {
        case .change(let callback): callback(old, new)
        case .value(let callback): callback(new)
        case .changeInState(let callback): callback(old, new, state.assumingMemoryBound(to: State.self).pointee)
        }
    }

    /// Delivers one call: at once, or on a queue (with a copy of the state, as the pass will be
    /// over by then) guarded so that a member removed meanwhile is not called.
    @inlinable
    func deliver(old: Value, new: Value, state: UnsafeRawPointer, via delivery: Delivery, member: UInt64) {
        switch delivery {
        case .inline:
            call(old: old, new: new, state: state)
        case .queue(let queue, let guardedRun):
            let state = state.assumingMemoryBound(to: State.self).pointee
            queue.async { guardedRun(member) { call(old: old, new: new, state: state) } }
        }
    }

    /// Calls the callback with a state value.
    @inlinable
    func call(old: Value, new: Value, state: State) {
        switch self {
        case .change(let callback): callback(old, new)
        case .value(let callback): callback(new)
        case .changeInState(let callback): callback(old, new, state)
        }
    }
}
