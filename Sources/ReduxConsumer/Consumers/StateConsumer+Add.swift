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
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(groupKey: keyPath, select: { $0[keyPath: keyPath] }, isEqual: { $0 == $1 }, options: options) {
            old,
            new,
            _ in callback(old, new)
        }
    }

    /// Calls `callback` with the new value whenever the value at `keyPath` changes.
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the new value.
    /// - Returns: A token to remove this consumer.
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ new: Value) -> Void
    ) -> ConsumerToken {
        register(groupKey: keyPath, select: { $0[keyPath: keyPath] }, isEqual: { $0 == $1 }, options: options) {
            _,
            new,
            _ in callback(new)
        }
    }

    /// Calls `callback` with the old value, the new value and the whole new state whenever the
    /// value at `keyPath` changes.
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen, the new one and the new state.
    /// - Returns: A token to remove this consumer.
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value, _ state: State) -> Void
    ) -> ConsumerToken {
        register(
            groupKey: keyPath,
            select: { $0[keyPath: keyPath] },
            isEqual: { $0 == $1 },
            options: options,
            callback: callback
        )
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
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(groupKey: nil, select: selector, isEqual: { $0 == $1 }, options: options) { old, new, _ in
            callback(old, new)
        }
    }

    /// Calls `callback` with the new value whenever the value `selector` computes changes.
    ///
    /// - Parameters:
    ///   - selector: Computes the selected value; must be a pure function of the state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the new value.
    /// - Returns: A token to remove this consumer.
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ new: Value) -> Void
    ) -> ConsumerToken {
        register(groupKey: nil, select: selector, isEqual: { $0 == $1 }, options: options) { _, new, _ in
            callback(new)
        }
    }

    /// Calls `callback` with the old value, the new value and the whole new state whenever the
    /// value `selector` computes changes.
    ///
    /// - Parameters:
    ///   - selector: Computes the selected value; must be a pure function of the state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen, the new one and the new state.
    /// - Returns: A token to remove this consumer.
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value, _ state: State) -> Void
    ) -> ConsumerToken {
        register(groupKey: nil, select: selector, isEqual: { $0 == $1 }, options: options, callback: callback)
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
    @discardableResult
    public func add<Value: Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        isEqual: @escaping @Sendable (Value, Value) -> Bool,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(groupKey: nil, select: { $0[keyPath: keyPath] }, isEqual: isEqual, options: options) {
            old,
            new,
            _ in callback(old, new)
        }
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
    @discardableResult
    public func add<Value: Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        isEqual: @escaping @Sendable (Value, Value) -> Bool,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(groupKey: nil, select: selector, isEqual: isEqual, options: options) { old, new, _ in
            callback(old, new)
        }
    }
}
