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

    /// Calls `callback` whenever the value at `keyPath` changes according to `isEqual` (the seed's
    /// "predict" consumer): for values that are not `Equatable`, or that need another notion of
    /// equality. `isEqual` is the only judge; `==` is not consulted.
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
    /// `isEqual` is the only judge; `==` is not consulted.
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

    /// Registers a key-path consumer: grouped with the others on the same key path.
    @inlinable
    func register<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions,
        callback: ConsumerCallback<State, Value>
    ) -> ConsumerToken {
        let selection = Selection(keyPath)
        return register(selection, key: GroupKey(selection, keyPath: keyPath), options: options, callback: callback)
    }

    /// Registers a consumer compared with `==`; `key` (a key path) lets it share a group.
    @inlinable
    func register<Value: Equatable & Sendable>(
        _ selection: Selection<State, Value>,
        key: GroupKey?,
        options: ConsumeOptions,
        callback: ConsumerCallback<State, Value>
    ) -> ConsumerToken {
        guard !options.contains(.pulse) else {
            return register(selection, isEqual: nil, options: options, callback: callback)
        }
        return enroll(
            Enrollment(
                id: reserveID(),
                key: key,
                admit: { state, address, candidate in
                    let value = selection.read(&state, at: address)
                    // Join only a group whose last value is this member's starting value: the member
                    // then fires exactly as it would alone.
                    if let candidate, let group = candidate.typed as? SelectorGroup<State, Value>, group.last == value {
                        group.callbacks.append(callback)
                        return Admission(group: candidate, evaluator: nil)
                    }
                    return SelectorGroup.equatable(selection, key: key, baseline: value, callback: callback)
                },
                fireInstantly: Self.instantCall(selection, options: options, callback: callback)
            )
        )
    }

    /// Registers a consumer compared with `isEqual`, or (`nil`) fired for every state; such a
    /// consumer never shares its group.
    @inlinable
    func register<Value: Sendable>(
        _ selection: Selection<State, Value>,
        isEqual: (@Sendable (Value, Value) -> Bool)?,
        options: ConsumeOptions,
        callback: ConsumerCallback<State, Value>
    ) -> ConsumerToken {
        enroll(
            Enrollment(
                id: reserveID(),
                key: nil,
                admit: { state, address, _ in
                    SelectorGroup.custom(
                        selection,
                        isEqual: isEqual,
                        baseline: selection.read(&state, at: address),
                        callback: callback
                    )
                },
                fireInstantly: Self.instantCall(selection, options: options, callback: callback)
            )
        )
    }

    /// The call made at admission for ``ConsumeOptions/instantly``, with `old == new`.
    @inlinable
    static func instantCall<Value: Sendable>(
        _ selection: Selection<State, Value>,
        options: ConsumeOptions,
        callback: ConsumerCallback<State, Value>
    ) -> ((inout State, UnsafeRawPointer, Delivery, UInt64) -> Void)? {
        guard options.contains(.instantly) else { return nil }
        return { state, address, delivery, member in
            let value = selection.read(&state, at: address)
            callback.deliver(old: value, new: value, state: address, via: delivery, member: member)
        }
    }
}
