extension PageStore {
    /// Sends `action` to the page, suspending instead of blocking while it is busy on another
    /// thread (see ``Store/send(_:isolation:)``). After ``close()`` the action is ignored and
    /// reported to the page's diagnostics.
    ///
    /// - Parameters:
    ///   - action: What happened on the page.
    ///   - isolation: The caller's isolation; leave the default.
    public func send(_ action: any Action, isolation: isolated (any Actor)? = #isolation) async {
        guard accepts(action, in: "send") else { return }
        await store.send(action)
    }

    /// Sends `action` to the global store, suspending instead of blocking (see
    /// ``Store/send(_:isolation:)``). After ``close()`` the action is ignored and reported.
    ///
    /// - Parameters:
    ///   - action: What happened, for the global store.
    ///   - isolation: The caller's isolation; leave the default.
    public func sendGlobal(_ action: any Action, isolation: isolated (any Actor)? = #isolation) async {
        _ = await sendGlobalIfOpen(action)
    }

    /// ``sendGlobal(_:isolation:)``, saying whether the page passed `action` on (`false`: it was
    /// closed, and the action was ignored and reported), for a test store that must tell which.
    package func sendGlobalIfOpen(_ action: any Action, isolation: isolated (any Actor)? = #isolation) async -> Bool {
        guard accepts(action, in: "sendGlobal") else { return false }
        await global.send(action)
        return true
    }

    /// The changes of the page state's value at `keyPath`, as an async sequence that finishes when
    /// the page closes (see ``Store/changes(of:options:buffering:)-(KeyPath<State,Value>Sendable,_,_)``).
    ///
    /// - Parameters:
    ///   - keyPath: The watched property of the page state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func changes<Value: Equatable & Sendable>(
        of keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        pageStore.changes(of: keyPath, options: options, buffering: buffering)
    }

    /// The changes of the value a closure computes from the page state (see
    /// ``Store/changes(of:options:buffering:)-((State)->Value,_,_)``).
    ///
    /// - Parameters:
    ///   - selector: Computes the watched value; a pure function of the page state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func changes<Value: Equatable & Sendable>(
        of selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        pageStore.changes(of: selector, options: options, buffering: buffering)
    }

    /// The changes of a derived value of the page state, as an async sequence that finishes when
    /// the page closes (see ``Store/changes(of:options:buffering:)-(Derived<State,Value>,_,_)``).
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func changes<Value: Equatable & Sendable>(
        of derived: Derived<State, Value>,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        pageStore.changes(of: derived, options: options, buffering: buffering)
    }

    /// The changes of the global state's value at `keyPath`, for as long as the page is open: the
    /// sequence finishes when the page closes (or the global store is released).
    ///
    /// - Parameters:
    ///   - keyPath: The watched property of the global state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func globalChanges<Value: Equatable & Sendable>(
        of keyPath: any KeyPath<GlobalState, Value> & Sendable,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        globalChanges(buffering: buffering, post: StoreStream.changePoster(options: options)) { consumer, post in
            consumer.add(keyPath, options: options, post)
        }
    }

    /// The changes of the value `selector` computes from the global state, for as long as the page
    /// is open.
    ///
    /// - Parameters:
    ///   - selector: Computes the watched value; a pure function of the global state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func globalChanges<Value: Equatable & Sendable>(
        of selector: @escaping @Sendable (GlobalState) -> Value,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        globalChanges(buffering: buffering, post: StoreStream.changePoster(options: options)) { consumer, post in
            consumer.add(selector, options: options, post)
        }
    }

    /// The changes of a derived value of the global state, for as long as the page is open.
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func globalChanges<Value: Equatable & Sendable>(
        of derived: Derived<GlobalState, Value>,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        globalChanges(buffering: buffering, post: StoreStream.changePoster(options: options)) { consumer, post in
            consumer.add(derived, options: options, post)
        }
    }

    /// The store that holds the page state, for the inlined stream methods above.
    @usableFromInline
    var pageStore: Store<State> { store }

    /// A sequence of changes of the global state, fed by a consumer that `add` sets up, ending
    /// when the page closes; `post` comes from the caller's inlined code (specialised).
    @usableFromInline
    func globalChanges<Value: Sendable>(
        buffering: StreamBuffering,
        post: @escaping @Sendable (StreamChannel<Change<Value>>, Value, Value) -> Void,
        add: @escaping @Sendable (StateConsumer<GlobalState>, @escaping @Sendable (Value, Value) -> Void) -> Void
    ) -> StoreStream<Change<Value>> {
        .changes(of: global, endingWith: [store.teardown], buffering: buffering, post: post, add: add)
    }

    /// Every new page state with the one before it (see ``Store/states``).
    public var states: StoreStream<Change<State>> {
        store.states
    }

    /// Every action the page's reducer reduces, forwarded global actions included (see
    /// ``Store/actions``).
    public var actions: StoreStream<any Action> {
        store.actions
    }

    /// Waits until the page state satisfies `predicate` (see ``Store/wait(until:timeout:)``); throws
    /// ``StoreWaitError/storeGone`` if the page closes first.
    ///
    /// - Parameters:
    ///   - predicate: The condition to wait for.
    ///   - timeout: The longest to wait, in seconds; `nil` or `.infinity` waits as long as it takes;
    ///     zero, a negative value or NaN checks the current state only.
    /// - Returns: The first page state that satisfies `predicate`.
    public func wait(
        until predicate: @escaping @Sendable (State) -> Bool,
        timeout: Double? = nil
    ) async throws -> State {
        try await store.wait(until: predicate, timeout: timeout)
    }

    /// Waits until none of the page's effects runs.
    public func effectsIdle() async {
        await store.effectsIdle()
    }

    /// Cancels the page's running effect named `id`, if any.
    ///
    /// - Parameter id: The effect's `id`.
    public func cancelEffects(id: some Hashable & Sendable) {
        store.cancelEffects(id: id)
    }

    /// Waits as ``effectsIdle()`` does, without keeping the page alive while it waits (see
    /// ``Store/effectsIdleWithoutTheStore``).
    package var effectsIdleWithoutThePage: @Sendable () async -> Void {
        store.effectsIdleWithoutTheStore
    }
}
