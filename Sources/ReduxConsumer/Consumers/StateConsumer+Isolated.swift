@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
extension StateConsumer {
    /// Calls `callback` on `actor` with the old and the new value whenever the value at `keyPath`
    /// changes: for a `@MainActor` screen or model, or any global actor, checked by the compiler.
    ///
    /// ```swift
    /// @MainActor final class CounterScreen {
    ///     let label = Label()
    ///     func bind(_ consumer: StateConsumer<AppState>) {
    ///         consumer.add(\.counter, on: MainActor.shared) { @MainActor old, new in
    ///             self.label.text = "\(new)"
    ///         }.store(in: bag)
    ///     }
    /// }
    /// ```
    ///
    /// Write the closure isolated to `actor` (`@MainActor`, `@SomeGlobalActor`): it then runs
    /// there, and may touch that actor's state. A closure isolated to no actor runs off every
    /// actor instead, on the global concurrent executor, with the same order and removal rules. Calls are posted to the actor as the store's thread
    /// sees the changes and made there in order, each with `old` equal to the previous call's
    /// `new`; an actor that falls behind gets changes merged (the first `old`, the latest `new`).
    /// Removal is final as for any member: a call not begun on the actor when removal returns never
    /// begins.
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - actor: Where the callback runs; the closure must be isolated to it, or to no actor (see above).
    ///   - callback: Called on `actor` with the last value seen and the new one.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        on actor: any Actor,
        _ callback: @escaping @isolated(any) @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(keyPath, options: options, callback: Self.isolated(callback, on: actor))
    }

    /// Calls `callback` on `actor` whenever the value `selector` computes changes (see
    /// ``add(_:options:on:_:)-(KeyPath<State,Value>Sendable,_,_,_)``).
    ///
    /// - Parameters:
    ///   - selector: Computes the selected value; must be a pure function of the state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - actor: Where the callback runs; the closure must be isolated to it, or to no actor (see above).
    ///   - callback: Called on `actor` with the last value seen and the new one.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        on actor: any Actor,
        _ callback: @escaping @isolated(any) @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(.closure(selector), key: nil, options: options, callback: Self.isolated(callback, on: actor))
    }

    /// Calls `callback` on `actor` whenever the derived value changes (see
    /// ``add(_:options:on:_:)-(KeyPath<State,Value>Sendable,_,_,_)``).
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - actor: Where the callback runs; the closure must be isolated to it, or to no actor (see above).
    ///   - callback: Called on `actor` with the last value seen and the new one.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Value: Equatable & Sendable>(
        _ derived: Derived<State, Value>,
        options: ConsumeOptions = [],
        on actor: any Actor,
        _ callback: @escaping @isolated(any) @Sendable (_ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        register(derived, options: options, callback: Self.isolated(callback, on: actor))
    }

    /// Calls `callback` on `actor` with `owner`, the old and the new value whenever the value at
    /// `keyPath` changes, holding `owner` weakly: the form for a `@MainActor` screen that owns its
    /// consumers.
    ///
    /// ```swift
    /// page.consumer.add(\.count, owner: self, on: MainActor.shared) { @MainActor screen, old, new in
    ///     screen.countLabel.text = "\(new)"
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: The selected property.
    ///   - owner: The object the callback works for; held weakly.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - actor: Where the callback runs; the closure must be isolated to it, or to no actor (see above).
    ///   - callback: Called on `actor` with the owner, the last value seen and the new one.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Owner: AnyObject & Sendable, Value: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, Value> & Sendable,
        owner: Owner,
        options: ConsumeOptions = [],
        on actor: any Actor,
        _ callback: @escaping @isolated(any) @Sendable (_ owner: Owner, _ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        let link = OwnerLink(owner)
        let token = register(keyPath, options: options, owner: link, callback: Self.isolated(callback, link, on: actor))
        link.attach(token)
        return token
    }

    /// Calls `callback` on `actor` with `owner`, the old and the new value whenever the derived
    /// value changes, holding `owner` weakly (see
    /// ``add(_:owner:options:on:_:)-(KeyPath<State,Value>Sendable,_,_,_,_)``).
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - owner: The object the callback works for; held weakly.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - actor: Where the callback runs; the closure must be isolated to it, or to no actor (see above).
    ///   - callback: Called on `actor` with the owner, the last value seen and the new one.
    /// - Returns: A token to remove this member.
    @inlinable
    @discardableResult
    public func add<Owner: AnyObject & Sendable, Value: Equatable & Sendable>(
        _ derived: Derived<State, Value>,
        owner: Owner,
        options: ConsumeOptions = [],
        on actor: any Actor,
        _ callback: @escaping @isolated(any) @Sendable (_ owner: Owner, _ old: Value, _ new: Value) -> Void
    ) -> ConsumerToken {
        let link = OwnerLink(owner)
        let token = register(derived, options: options, owner: link, callback: Self.isolated(callback, link, on: actor))
        link.attach(token)
        return token
    }

    /// Wraps an isolated callback of the `owner:` form for the engine: as
    /// ``isolated(_:on:)``, handing it the owner, and removing the member instead once the owner
    /// is gone.
    ///
    /// The owner is taken on the actor, once the call began there, not before the hop: a call
    /// waiting for a busy actor holds the owner weakly, so an owner released meanwhile is freed at
    /// once and its member never called (the lifetime rule, and guarantee 1).
    @inlinable
    static func isolated<Owner: AnyObject & Sendable, Value: Sendable>(
        _ callback: @escaping @isolated(any) @Sendable (Owner, Value, Value) -> Void,
        _ link: OwnerLink<Owner>,
        on actor: any Actor
    ) -> ConsumerCallback<State, Value> {
        let isolation = isolation(of: callback.isolation, on: actor)
        return .isolated { gate, member in
            guard !link.isOwnerGone else {
                link.removeMember()
                return
            }
            let isMade = await IsolatedDelivery.run(
                on: isolation, gate: gate, member: member, State.self, callback
            ) { old, new in
                link.owner.map { owner in (owner, old, new) }
            }
            if !isMade { link.removeMember() }
        }
    }

    /// Wraps an isolated callback for the engine: posted to the consumer's actor gate, then taken
    /// from it and run on its actor (see ``IsolatedDelivery``).
    @inlinable
    static func isolated<Value: Sendable>(
        _ callback: @escaping @isolated(any) @Sendable (Value, Value) -> Void,
        on actor: any Actor
    ) -> ConsumerCallback<State, Value> {
        let isolation = isolation(of: callback.isolation, on: actor)
        return .isolated { gate, member in
            await IsolatedDelivery.run(on: isolation, gate: gate, member: member, State.self, callback) { old, new in
                (old, new)
            }
        }
    }

    /// The actor a callback runs on: its own isolation, which must be `actor`, or `nil` for a
    /// callback isolated to no actor (it then runs off every actor, see ``IsolatedDelivery``).
    @inlinable
    static func isolation(of callbackIsolation: (any Actor)?, on actor: any Actor) -> (any Actor)? {
        if let callbackIsolation {
            requireProperUse(
                callbackIsolation === actor,
                "StateConsumer<\(State.self)>.add(_:on:): the callback is isolated to \(type(of: callbackIsolation)), not to \(type(of: actor)) given in `on:`; isolate it to that actor (for example `{ @MainActor old, new in … }` with `on: MainActor.shared`)."
            )
        }
        return callbackIsolation
    }
}

/// Runs a member's call on its actor.
@usableFromInline
enum IsolatedDelivery {
    /// Hops to `actor`, then takes the member's call from the gate and begins it (the gate refuses
    /// a member removed meanwhile), makes it, and ends it: all on the actor (the callback is
    /// isolated to it, so calling it from here does not hop again), so a removal made on the actor
    /// itself never waits for it. Taken only there, the call has merged every change posted while
    /// the actor was busy. With `actor` `nil` (a callback isolated to no actor) all of it runs off
    /// every actor, on one thread of the global executor: the call never needs an actor to end,
    /// so a removal that holds one while it waits for the call cannot deadlock.
    ///
    /// The action the change came from has a place in its dispatch chain: an action the callback
    /// dispatches continues that chain by one link, as it would if called on the store's thread,
    /// so a member that dispatches on every change stops at ``Store/chainLimit``.
    ///
    /// - Parameters:
    ///   - actor: Where the call runs.
    ///   - gate: The consumer's actor gate, which holds the member's call.
    ///   - member: The member.
    ///   - state: The consumer's state type, which the member's calls are typed with.
    ///   - callback: The member's callback.
    ///   - arguments: The callback's arguments for a change from `old` to `new`, made on the
    ///     actor once the call began; `nil` when the call is not to be made (an `owner:` member
    ///     whose owner is gone).
    /// - Returns: `false` when `arguments` gave `nil`, so that the call was not made; `true`
    ///   otherwise (made, or not the member's to make: removed, or merged back to no change).
    @usableFromInline
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @discardableResult
    static func run<State: Sendable, Value: Sendable, each Argument: Sendable>(
        on actor: isolated (any Actor)?,
        gate: DeliveryGate,
        member: UInt64,
        _ state: State.Type,
        _ callback: @isolated(any) @Sendable (repeat each Argument) -> Void,
        arguments: (_ old: Value, _ new: Value) -> (repeat each Argument)?
    ) async -> Bool {
        guard let change = PendingChange<State, Value>.takeAndBegin(member, of: gate) else { return true }
        guard !change.cameBack else {
            gate.carry(change.old, of: member)
            gate.end(member)
            return true
        }
        // The call is synchronous from `begin` to `end`: it stays on this thread.
        let context = ThreadContext.current
        let outer = context.generation
        context.generation = change.generation
        guard let values = arguments(change.old, change.new) else {
            context.generation = outer
            gate.end(member)
            return false
        }
        await callback(repeat each values)
        assert(ThreadContext.current === context, "an actor member's call moved to another thread while it ran")
        context.generation = outer
        gate.end(member)
        return true
    }
}
