import Dispatch

/// The typed half of a consumer group: the last selected value and the members' callbacks.
///
/// The engine sees groups only through ``MemberGroup``, whose closures are made here by
/// `@inlinable` code. When a client module adds a consumer, those closures are therefore compiled
/// for its concrete `State` and `Value`: comparing an `Int` is a compare instruction, not a call
/// through a witness table. Confined to the owning consumer's drain.
@usableFromInline
final class SelectorGroup<State: Sendable, Value: Sendable>: @unchecked Sendable {
    // @unchecked: confined to the owning StateConsumer's drain (see ``Confined``).

    // `@exclusivity(unchecked)`: these are read on every pass, and the dynamic exclusivity check
    // Swift adds to class properties costs more than the comparison itself. Confinement to the
    // drain already rules out overlapping accesses, and no access spans a user callback.

    /// The value the members saw last.
    @exclusivity(unchecked) @usableFromInline var last: Value
    /// The value before `last`, handed to callbacks as `old` while a pass delivers.
    @exclusivity(unchecked) @usableFromInline var previous: Value
    /// Parallel to ``MemberGroup/memberIDs``; `nil` for a removed member.
    @exclusivity(unchecked) @usableFromInline var callbacks: [ConsumerCallback<State, Value>?] = []
    /// The closure selector of a group made for one. Kept here so the evaluator captures the
    /// group alone: a closure whose only capture is one object uses that object as its context,
    /// so the pass finds the selector and the last value in one object instead of two.
    @usableFromInline let select: (@Sendable (State) -> Value)?

    @inlinable
    init(baseline: Value, callback: ConsumerCallback<State, Value>, select: (@Sendable (State) -> Value)? = nil) {
        last = baseline
        previous = baseline
        callbacks = [callback]
        self.select = select
    }

    /// Records `value` as the new last value; returns `true` (the group fired).
    @inlinable
    func advance(to value: Value) -> Bool {
        previous = last
        last = value
        return true
    }

    /// Wraps this group for the engine, with `evaluate` as its per-state check.
    @inlinable
    func admission(key: GroupKey?, evaluate: @escaping (inout State, UnsafeRawPointer) -> Bool) -> Admission<State> {
        let group = MemberGroup(
            key: key,
            typed: self,
            deliver: { [self] slot, state, delivery, member in
                callbacks[slot]?.deliver(old: previous, new: last, state: state, via: delivery, member: member)
            },
            edit: { [self] edit in
                switch edit {
                case .remove(let slot): callbacks[slot] = nil
                case .compact: callbacks.removeAll { $0 == nil }
                case .removeAll: callbacks = Array(repeating: nil, count: callbacks.count)
                }
            }
        )
        return Admission(group: group, evaluator: Evaluator(evaluate))
    }
}

extension SelectorGroup where Value: Equatable {
    /// A new group compared with `==`, which specialisation turns into a plain compare for simple
    /// values.
    @inlinable
    static func equatable(
        _ selection: Selection<State, Value>,
        key: GroupKey?,
        baseline: Value,
        callback: ConsumerCallback<State, Value>
    ) -> Admission<State> {
        // One closure per kind of selection rather than a `switch` inside one closure: the
        // common case (a stored property) compiles to a load and a compare.
        switch selection {
        case .offset(let offset):
            let group = SelectorGroup(baseline: baseline, callback: callback)
            return group.admission(key: key) { [group] _, address in
                let value = address.load(fromByteOffset: offset, as: Value.self)
                return value == group.last ? false : group.advance(to: value)
            }
        case .closure(let select):
            // The selector stored in the group (see ``select``), not taken out of `selection` on
            // every call, which would retain and release it each time.
            let group = SelectorGroup(baseline: baseline, callback: callback, select: select)
            return group.admission(key: key) { [group] state, _ in
                let value = group.select.unsafelyUnwrapped(state)
                return value == group.last ? false : group.advance(to: value)
            }
        case .keyPath(let keyPath):
            let group = SelectorGroup(baseline: baseline, callback: callback)
            return group.admission(key: key) { [group] state, _ in
                let value = state[keyPath: keyPath]
                return value == group.last ? false : group.advance(to: value)
            }
        }
    }
}

extension SelectorGroup {
    /// A new group compared with `isEqual`, or (`nil`) one that fires for every state.
    @inlinable
    static func custom(
        _ selection: Selection<State, Value>,
        isEqual: (@Sendable (Value, Value) -> Bool)?,
        baseline: Value,
        callback: ConsumerCallback<State, Value>
    ) -> Admission<State> {
        let group = SelectorGroup(baseline: baseline, callback: callback)
        guard let isEqual else {
            return group.admission(key: nil) { [group] state, address in
                group.advance(to: selection.read(&state, at: address))
            }
        }
        return group.admission(key: nil) { [group] state, address in
            let value = selection.read(&state, at: address)
            return isEqual(group.last, value) ? false : group.advance(to: value)
        }
    }
}
