extension StateConsumer {
    /// Calls `callback` with the old and the new value whenever the value at `keyPath` changes.
    ///
    /// ```swift
    /// consumer.add(\.counter) { old, new in label.text = "\(new)" }
    /// ```
    ///
    /// Consumers on the same key path share one read and one comparison per state.
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen and the new one.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(keyPath, options: options, callback: .change(callback))
    }

    /// Calls `callback` with the new value whenever the value at `keyPath` changes.
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the new value.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ new: Value) -> Void
    ) -> ConsumerToken {
        register(keyPath, options: options, callback: .value(callback))
    }

    /// Calls `callback` with the old value, the new value and the whole new state whenever the
    /// value at `keyPath` changes.
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen, the new one and the new state.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value, _ state: State) -> Void
    ) -> ConsumerToken {
        register(keyPath, options: options, callback: .changeInState(callback))
    }

    /// Calls `callback` with the old and the new value whenever the value `selector` computes
    /// changes.
    ///
    /// ```swift
    /// consumer.add({ $0.works.count }) { old, new in print("works: \(old) → \(new)") }
    /// ```
    ///
    /// Prefer a key path where one will do: closure selectors cannot share work.
    ///
    /// - Parameters:
    ///   - selector: Computes the selected value; must be a pure function of the state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen and the new one.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(.closure(selector), key: nil, options: options, callback: .change(callback))
    }

    /// Calls `callback` with the new value whenever the value `selector` computes changes.
    ///
    /// - Parameters:
    ///   - selector: Computes the selected value; must be a pure function of the state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the new value.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ new: Value) -> Void
    ) -> ConsumerToken {
        register(.closure(selector), key: nil, options: options, callback: .value(callback))
    }

    /// Calls `callback` with the old value, the new value and the whole new state whenever the
    /// value `selector` computes changes.
    ///
    /// - Parameters:
    ///   - selector: Computes the selected value; must be a pure function of the state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen, the new one and the new state.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value, _ state: State) -> Void
    ) -> ConsumerToken {
        register(.closure(selector), key: nil, options: options, callback: .changeInState(callback))
    }

    /// Calls `callback` whenever the value at `keyPath` changes according to `isEqual`, a predicate
    /// of your own: for values that are not `Equatable`, or that need another notion of
    /// equality. `isEqual` replaces `==`, which is not consulted. With ``ConsumeOptions/pulse``,
    /// `.pulse` wins: the member fires for every new state and `isEqual` is not consulted either.
    ///
    /// Make `isEqual` an equivalence (reflexive, symmetric, transitive), as `==` is: a consumer
    /// with a queue merges changes that arrive faster than the queue runs and compares the first
    /// `old` with the latest `new` once, so with a looser predicate ("within 5 of each other") it
    /// can skip a change that a member called in place hears.
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - isEqual: Returns `true` when two values count as the same (no callback).
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen and the new one.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Value: Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        isEqual: @escaping @Sendable (Value, Value) -> Bool,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(
            Selection(keyPath), isEqual: options.contains(.pulse) ? nil : isEqual, options: options,
            callback: .change(callback))
    }

    /// Calls `callback` whenever the value `selector` computes changes according to `isEqual`.
    /// `isEqual` replaces `==`, which is not consulted. With ``ConsumeOptions/pulse``, `.pulse`
    /// wins: the member fires for every new state and `isEqual` is not consulted either.
    ///
    /// - Parameters:
    ///   - selector: Computes the selected value; must be a pure function of the state.
    ///   - isEqual: Returns `true` when two values count as the same (no callback).
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen and the new one.
    /// - Returns: A token to remove this consumer.
    @inlinable
    @discardableResult
    public func add<Value: Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        isEqual: @escaping @Sendable (Value, Value) -> Bool,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(
            .closure(selector), isEqual: options.contains(.pulse) ? nil : isEqual, options: options,
            callback: .change(callback))
    }
}

extension StateConsumer {
    // The registration helpers below are `@inlinable`, like the public `add` methods, so the
    // closures they build (read, compare, call) are compiled in the caller's module for its
    // concrete `State` and `Value`; the engine then runs specialised code for every group without
    // being generic over the value itself.

    /// Registers a key-path member: it shares its evaluation with every member on the same key path.
    @inlinable
    func register<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions,
        owner: (any OwnerTracking)? = nil,
        callback: ConsumerCallback<State, Value>
    ) -> ConsumerToken {
        let selection = Selection(keyPath)
        return register(
            selection, key: GroupKey(selection, keyPath: keyPath), options: options, owner: owner, callback: callback)
    }

    /// Registers a member compared with `==`; `key` lets it share its evaluation.
    @inlinable
    func register<Value: Equatable & Sendable>(
        _ selection: Selection<State, Value>,
        key: GroupKey?,
        options: ConsumeOptions,
        owner: (any OwnerTracking)? = nil,
        callback: ConsumerCallback<State, Value>
    ) -> ConsumerToken {
        guard !options.contains(.pulse) else {
            return register(selection, isEqual: nil, options: options, owner: owner, callback: callback)
        }
        let reserved = reserveMember(owner: owner, isIsolated: callback.isIsolated)
        let isSame: @Sendable (Value, Value) -> Bool = { $0 == $1 }
        // Made once, for the add admitted at once and for the one kept alike.
        let fireInstantly = Self.instantCall(id: reserved.id, options: options, callback: callback)
        return enroll(
            reserved,
            key: key,
            fireInstantly: fireInstantly,
            place: { placement in
                Self.place(
                    placement, id: reserved.id, key: key, selection: selection,
                    // A function reference, no context: the evaluation is made with the member's group.
                    makeEvaluator: TypedGroup<State, Value>.evaluator(_:), isSame: isSame, callback: callback)
            },
            keeping: {
                Self.enrollment(
                    id: reserved.id, key: key, selection: selection,
                    makeEvaluator: TypedGroup<State, Value>.evaluator(_:), isSame: isSame,
                    fireInstantly: fireInstantly, callback: callback)
            }
        )
    }

    /// Registers a member compared with `isEqual`, or (`nil`) fired for every state; such a member
    /// never shares its evaluation.
    @inlinable
    func register<Value: Sendable>(
        _ selection: Selection<State, Value>,
        isEqual: (@Sendable (Value, Value) -> Bool)?,
        options: ConsumeOptions,
        owner: (any OwnerTracking)? = nil,
        callback: ConsumerCallback<State, Value>
    ) -> ConsumerToken {
        let reserved = reserveMember(owner: owner, isIsolated: callback.isIsolated)
        let fireInstantly = Self.instantCall(id: reserved.id, options: options, callback: callback)
        return enroll(
            reserved,
            key: nil,
            fireInstantly: fireInstantly,
            place: { placement in
                Self.place(
                    placement, id: reserved.id, key: nil, selection: selection,
                    makeEvaluator: { TypedGroup<State, Value>.evaluator($0, isEqual: isEqual) }, isSame: isEqual,
                    callback: callback)
            },
            keeping: {
                Self.enrollment(
                    id: reserved.id, key: nil, selection: selection,
                    makeEvaluator: { TypedGroup<State, Value>.evaluator($0, isEqual: isEqual) }, isSame: isEqual,
                    fireInstantly: fireInstantly, callback: callback)
            }
        )
    }

    /// What the engine needs to admit one member (see ``Enrollment``), kept: for an add that waits
    /// (queued behind another thread's work, or for a first state).
    @inlinable
    static func enrollment<Value: Sendable>(
        id: UInt64,
        key: GroupKey?,
        selection: Selection<State, Value>,
        makeEvaluator: @escaping (Selection<State, Value>) -> MemberGroup.Evaluation,
        isSame: (@Sendable (Value, Value) -> Bool)?,
        fireInstantly: ((MemberGroup, UnsafeMutableRawPointer, Drain) -> Void)?,
        callback: ConsumerCallback<State, Value>
    ) -> Enrollment {
        Enrollment(
            id: id,
            key: key,
            place: { placement in
                place(
                    placement, id: id, key: key, selection: selection, makeEvaluator: makeEvaluator,
                    isSame: isSame, callback: callback)
            },
            fireInstantly: fireInstantly
        )
    }

    /// Places a member (see ``Enrollment/place``): joins `placement`'s group, or makes the
    /// member's group with it inside.
    @inlinable
    static func place<Value: Sendable>(
        _ placement: Enrollment.Placement,
        id: UInt64,
        key: GroupKey?,
        selection: Selection<State, Value>,
        makeEvaluator: (Selection<State, Value>) -> MemberGroup.Evaluation,
        isSame: (@Sendable (Value, Value) -> Bool)?,
        callback: ConsumerCallback<State, Value>
    ) -> MemberGroup? {
        switch placement {
        case .join(let group):
            TypedGroup<State, Value>.typed(group).members.insert(callback, identifier: id)
            return nil
        case .newGroup(let state, let cell, let routes, let tag, let cache):
            // A shared node's cell (same key: same selection and comparison) holds the same
            // evaluation as one made here would.
            let cell =
                cell.map { unsafeDowncast($0, to: ValueCell<Value>.self) }
                ?? Self.cell(
                    for: selection, state: state.assumingMemoryBound(to: State.self), cache: cache,
                    evaluation: makeEvaluator(selection))
            let typed = TypedGroup<State, Value>(cell: cell, routes: routes, tag: tag, isSame: isSame)
            typed.members.insert(callback, identifier: id)
            return typed.memberGroup(key: key)
        }
    }

    /// The member's `.instantly` call (once, with `old == new`, the group's current value), or
    /// `nil` without that option.
    @inlinable
    static func instantCall<Value: Sendable>(
        id: UInt64,
        options: ConsumeOptions,
        callback: ConsumerCallback<State, Value>
    ) -> ((MemberGroup, UnsafeMutableRawPointer, Drain) -> Void)? {
        guard options.contains(.instantly) else { return nil }
        return { group, state, drain in
            let typed = TypedGroup<State, Value>.typed(group)
            let value = typed.cell.last
            typed.deliver(
                callback, member: id, old: value, new: value,
                state: state.assumingMemoryBound(to: State.self), drain: drain, isInstant: true)
        }
    }

    /// A new evaluation cell starting from the state's value (and, for a derived value, its memo),
    /// of the kind the selection's evaluation reads (see ``ValueCell``), holding `evaluation`.
    @inlinable
    static func cell<Value>(
        for selection: Selection<State, Value>,
        state: UnsafeMutablePointer<State>,
        cache: DerivationCache,
        evaluation: @escaping MemberGroup.Evaluation
    ) -> ValueCell<Value> {
        var memo: AnyObject?
        let baseline = selection.read(state, cache: cache, memo: &memo)
        let cell: ValueCell<Value>
        switch selection {
        case .offset(let offset): cell = OffsetCell(baseline: baseline, offset: offset, evaluation: evaluation)
        case .closure(let select): cell = SelectorCell(baseline: baseline, select: select, evaluation: evaluation)
        case .derived: cell = DerivedCell(baseline: baseline, memo: memo, evaluation: evaluation)
        case .keyPath: cell = ValueCell(baseline: baseline, evaluation: evaluation)
        }
        return cell
    }
}
