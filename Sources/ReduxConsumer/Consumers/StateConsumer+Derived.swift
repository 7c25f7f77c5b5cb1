extension StateConsumer {
    /// Calls `callback` with the old and the new value whenever the derived value changes.
    ///
    /// ```swift
    /// consumer.add(visibleTodos) { old, new in tableView.reload(new) }
    /// ```
    ///
    /// Every member of this store's consumers watching the same ``Derived`` value shares one
    /// computation and one comparison per state.
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen and the new one.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ derived: Derived<State, Value>,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(derived, options: options, callback: .change(callback))
    }

    /// Calls `callback` with the new value whenever the derived value changes.
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the new value.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ derived: Derived<State, Value>,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ new: Value) -> Void
    ) -> ConsumerToken {
        register(derived, options: options, callback: .value(callback))
    }

    /// Calls `callback` with the old value, the new value and the whole new state whenever the
    /// derived value changes.
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value seen, the new one and the new state.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ derived: Derived<State, Value>,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value, _ state: State) -> Void
    ) -> ConsumerToken {
        register(derived, options: options, callback: .changeInState(callback))
    }

    /// Calls `callback` whenever the derived value changes according to `isEqual`, which replaces
    /// `==` (and is not consulted with ``ConsumeOptions/pulse``). The value is still computed once
    /// per change of its inputs, shared with every other member watching it.
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - isEqual: Returns `true` when two values count as the same (no callback).
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the last value delivered and the new one.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Value: Sendable>(
        _ derived: Derived<State, Value>,
        isEqual: @escaping @Sendable (Value, Value) -> Bool,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(
            .derived(derived), isEqual: options.contains(.pulse) ? nil : isEqual, options: options,
            callback: .change(callback))
    }

    /// Calls `callback` with `owner`, the old and the new value whenever the derived value
    /// changes, holding `owner` weakly (see ``add(_:owner:options:_:)-(KeyPath<State,Value>Sendable,_,_,_)``).
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - owner: The object the callback works for; held weakly.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - callback: Called with the owner, the last value seen and the new one.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Owner: AnyObject & Sendable, Value: Equatable & Sendable>(
        _ derived: Derived<State, Value>,
        owner: Owner,
        options: ConsumeOptions = [],
        _ callback: @escaping @Sendable (_ owner: Owner, _ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        let link = OwnerLink(owner)
        let token = register(derived, options: options, owner: link, callback: .change(link.forwarding(callback)))
        link.attach(token)
        return token
    }

    /// Registers a member on a derived value: it shares its evaluation with every member on it.
    @inlinable
    func register<Value: Equatable & Sendable>(
        _ derived: Derived<State, Value>,
        options: ConsumeOptions,
        owner: (any OwnerTracking)? = nil,
        callback: ConsumerCallback<State, Value>
    ) -> ConsumerToken {
        register(
            .derived(derived), key: .derived(ObjectIdentifier(derived.definition)), options: options, owner: owner,
            callback: callback)
    }
}
