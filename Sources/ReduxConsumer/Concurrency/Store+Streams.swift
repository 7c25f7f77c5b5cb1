extension Store {
    /// The changes of the value at `keyPath`, as an async sequence of ``Change``s.
    ///
    /// ```swift
    /// for await change in store.changes(of: \.requestCount) {
    ///     metrics.record(change.new)
    /// }
    /// ```
    ///
    /// Follows the consumer rules: an element only when the value changed, `nil` transitions
    /// included; with `.instantly` the first element is the value when the iteration starts,
    /// with `old == new`. See ``StoreStream`` for lifetime and cancellation.
    ///
    /// - Parameters:
    ///   - keyPath: The watched property.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func changes<Value: Equatable & Sendable>(
        of keyPath: any KeyPath<State, Value> & Sendable,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        .changes(of: self, buffering: buffering, post: StoreStream.changePoster(options: options)) { consumer, post in
            consumer.add(keyPath, options: options, post)
        }
    }

    /// The changes of the value `selector` computes, as an async sequence of ``Change``s.
    ///
    /// - Parameters:
    ///   - selector: Computes the watched value; a pure function of the state.
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func changes<Value: Equatable & Sendable>(
        of selector: @escaping @Sendable (State) -> Value,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        .changes(of: self, buffering: buffering, post: StoreStream.changePoster(options: options)) { consumer, post in
            consumer.add(selector, options: options, post)
        }
    }

    /// The changes of a derived value, as an async sequence of ``Change``s; the value is computed
    /// once per change of its inputs, shared with every consumer of this store watching it.
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
        .changes(of: self, buffering: buffering, post: StoreStream.changePoster(options: options)) { consumer, post in
            consumer.add(derived, options: options, post)
        }
    }

    /// The changes of the value at `keyPath` according to `isEqual`, which replaces `==`.
    ///
    /// - Parameters:
    ///   - keyPath: The watched property.
    ///   - isEqual: Returns `true` when two values count as the same (no element).
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func changes<Value: Sendable>(
        of keyPath: any KeyPath<State, Value> & Sendable,
        isEqual: @escaping @Sendable (Value, Value) -> Bool,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        .changes(
            of: self, buffering: buffering,
            post: StoreStream.changePoster(isSame: options.contains(.pulse) ? nil : isEqual)
        ) { consumer, post in
            consumer.add(keyPath, isEqual: isEqual, options: options, post)
        }
    }

    /// The changes of the value `selector` computes according to `isEqual`, which replaces `==`.
    ///
    /// - Parameters:
    ///   - selector: Computes the watched value; a pure function of the state.
    ///   - isEqual: Returns `true` when two values count as the same (no element).
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func changes<Value: Sendable>(
        of selector: @escaping @Sendable (State) -> Value,
        isEqual: @escaping @Sendable (Value, Value) -> Bool,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        .changes(
            of: self, buffering: buffering,
            post: StoreStream.changePoster(isSame: options.contains(.pulse) ? nil : isEqual)
        ) { consumer, post in
            consumer.add(selector, isEqual: isEqual, options: options, post)
        }
    }

    /// The changes of a derived value according to `isEqual`, which replaces `==`; the value is
    /// still computed once per change of its inputs, shared with every consumer watching it.
    ///
    /// - Parameters:
    ///   - derived: The derived value.
    ///   - isEqual: Returns `true` when two values count as the same (no element).
    ///   - options: ``ConsumeOptions/instantly``, ``ConsumeOptions/pulse``.
    ///   - buffering: How a reader that falls behind is served; merged changes by default.
    /// - Returns: The sequence.
    @inlinable
    public func changes<Value: Sendable>(
        of derived: Derived<State, Value>,
        isEqual: @escaping @Sendable (Value, Value) -> Bool,
        options: ConsumeOptions = [],
        buffering: StreamBuffering = .coalescing
    ) -> StoreStream<Change<Value>> {
        .changes(
            of: self, buffering: buffering,
            post: StoreStream.changePoster(isSame: options.contains(.pulse) ? nil : isEqual)
        ) { consumer, post in
            consumer.add(derived, isEqual: isEqual, options: options, post)
        }
    }

    /// Every new state with the one before it, as an async sequence of ``Change``s: one element
    /// per action (merged when the reader falls behind), like ``subscribe(_:)-((State,State)->Void)``.
    public var states: StoreStream<Change<State>> {
        states(buffering: .coalescing)
    }

    /// Every new state with the one before it, buffered as `buffering` says.
    ///
    /// - Parameter buffering: How a reader that falls behind is served.
    /// - Returns: The sequence.
    public func states(buffering: StreamBuffering) -> StoreStream<Change<State>> {
        StoreStream<Change<State>>(buffering: buffering) { [weak self] channel in
            guard let self else {
                channel.finish()
                return
            }
            // Made and registered in one job: once `subscriberCount` counts it, it hears every
            // action after.
            await performAsync { store in
                let (registration, feed, _) = store.closureSubscription { old, new in
                    // Every action is an element, changed or not: nothing is dropped when merged.
                    channel.postChange(from: old, to: new, cameBack: nil)
                }
                channel.attach(feed: feed, teardowns: [store.teardown])
                registration(store)
            }
        }
    }

    /// Every action the reducer reduces, as an async sequence, like ``observeActions(_:)``; nothing
    /// is dropped for a reader that falls behind.
    public var actions: StoreStream<any Action> {
        actions(buffering: .unbounded)
    }

    /// Every action the reducer reduces, buffered as `buffering` says (coalescing keeps the latest
    /// action only).
    ///
    /// - Parameter buffering: How a reader that falls behind is served.
    /// - Returns: The sequence.
    public func actions(buffering: StreamBuffering) -> StoreStream<any Action> {
        StoreStream<any Action>(buffering: buffering) { [weak self] channel in
            guard let self else {
                channel.finish()
                return
            }
            // Made and registered in one job, as for `states`.
            await performAsync { store in
                let (registration, feed) = store.actionSubscription { action in
                    channel.post(action) { _, newer in newer }
                }
                channel.attach(feed: feed, teardowns: [store.teardown])
                registration(store)
            }
        }
    }
}
