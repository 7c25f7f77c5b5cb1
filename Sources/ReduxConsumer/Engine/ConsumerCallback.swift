/// The three callback shapes of `StateConsumer.add`, stored as they were given: wrapping them in
/// one closure shape would allocate a context per consumer.
@usableFromInline
enum ConsumerCallback<State: Sendable, Value: Sendable>: Sendable {
    case change(@Sendable (_ old: Value, _ new: Value) -> Void)
    case value(@Sendable (_ new: Value) -> Void)
    case changeInState(@Sendable (_ old: Value, _ new: Value, _ state: State) -> Void)
    /// A callback isolated to an actor: posted to the consumer's actor gate and called there (the
    /// closure hops to the actor, then takes the member's call from the gate, makes it and ends
    /// it, see ``DeliveryGate`` and ``IsolatedDelivery``).
    case isolated(@Sendable (_ gate: DeliveryGate, _ member: UInt64) async -> Void)

    /// Whether the callback needs the whole state (so a queued delivery must keep a copy).
    @inlinable
    var needsState: Bool {
        if case .changeInState = self { return true }
        return false
    }

    /// Whether the callback runs on an actor (it is posted to the consumer's actor gate).
    @inlinable
    var isIsolated: Bool {
        if case .isolated = self { return true }
        return false
    }

    /// Calls the callback; `state` is the new state.
    @inlinable
    func call(old: Value, new: Value, state: UnsafeMutablePointer<State>) {
        switch self {
        case .change(let callback): callback(old, new)
        case .value(let callback): callback(new)
        case .changeInState(let callback): Self.call(callback, old: old, new: new, state: &state.pointee)
        case .isolated: assertionFailure("an actor's member is posted, never called in place")
        }
    }

    /// Calls a whole-state callback with the state in place (see ``Selection/call(_:with:)``).
    @inlinable
    static func call(
        _ callback: (Value, Value, State) -> Void,
        old: Value,
        new: Value,
        state: inout State
    ) {
        callback(old, new, state)
    }

    /// Calls the callback with a state value (a queued delivery's copy).
    @inlinable
    func call(old: Value, new: Value, state: State?) {
        switch self {
        case .change(let callback): callback(old, new)
        case .value(let callback): callback(new)
        case .changeInState(let callback):
            // A queued delivery keeps the state for this shape (see `needsState`).
            if let state { callback(old, new, state) }
        case .isolated: assertionFailure("an actor's member runs through its gate")
        }
    }
}
