extension Store {
    /// Calls `callback` with the old and the new state after every action.
    ///
    /// The callback is not called for the state current at subscription time; the first call comes
    /// with the next action (a closure subscribed from inside one of this store's actions starts
    /// with the action after it). Subscribers (closures and consumers) are called in the order
    /// they subscribed. Prefer a ``StateConsumer`` to react to parts of the state that changed:
    /// this callback runs for every action, even one that changed nothing.
    ///
    /// - Parameter callback: Called with the state before and after each action.
    /// - Returns: The subscription: notifications stop when it is cancelled (dropping it changes
    ///   nothing; see ``Cancellable``).
    @discardableResult
    public func subscribe(_ callback: @escaping @Sendable (_ old: State, _ new: State) -> Void) -> Subscription {
        let (registration, subscription, _) = closureSubscription(callback)
        perform(.control, registration)
        return subscription
    }

    /// A closure subscription: the job that registers it, its handle, and its tag (for
    /// ``callAsSubscriber(tag:_:)``).
    func closureSubscription(
        _ callback: @escaping @Sendable (State, State) -> Void
    ) -> (registration: @Sendable (Store) -> Void, subscription: Subscription, tag: UInt) {
        let subscriber = Subscriber(callback)
        let order = takeOrder()
        let tag = subscriber.tag
        let registration: @Sendable (Store) -> Void = { store in
            let core = store.core.value
            store.registerAfterAction(core) {
                guard !store.wasCancelledEarly(order) else { return }
                // Unretained in the list the pass walks: `subscribers` owns it.
                core.closures.insert(Unmanaged.passUnretained(subscriber as AnyObject), identifier: order)
                core.subscribers[order] = subscriber
            }
        }
        return (registration, Subscription { [weak self] in self?.removeClosure(order, tag: tag) }, tag)
    }

    /// Runs `body` on the drain's owner as a call of the closure subscription `tag`: a removal on
    /// another thread waits for it to return, and once that removal is marked `body` is skipped.
    /// Returns whether `body` ran.
    func callAsSubscriber(tag: UInt, _ body: () -> Void) -> Bool {
        guard drain.willCall(tag: tag, member: 0) else { return false }
        body()
        drain.didCall()
        return true
    }

    /// Feeds `consumer` with this store's states: the current one at once, then every new one.
    ///
    /// At once, every member compares the value it last saw with the current state and is called
    /// if it changed; members that never saw a state start from the current one (a member with
    /// ``ConsumeOptions/instantly`` fires then, once in its life: not again on a later
    /// subscription). While subscribed, members added to `consumer` start from this store's current
    /// state. From inside another store's callbacks while this store is busy on a third thread,
    /// the feeding starts right after this store's current action; for a consumer that left
    /// another store from inside that store's callbacks, once that store's action is over.
    ///
    /// A consumer belongs to one store at a time: subscribing it to a second store while it is
    /// subscribed to this one stops the program with a message naming both. Subscribing it again
    /// to the same store is harmless: the consumer is fed once and counted once in
    /// ``subscriberCount``; each call returns a handle of that one subscription, which ends when
    /// every handle is cancelled.
    ///
    /// The store keeps `consumer` alive until the subscription ends.
    ///
    /// - Parameter consumer: The consumer to feed.
    /// - Returns: A handle of the subscription (see above).
    @discardableResult
    public func subscribe(_ consumer: StateConsumer<State>) -> Subscription {
        let (registration, subscription) = consumerSubscription(consumer)
        if let registration {
            perform(.control, registration)
        }
        return subscription
    }

    /// A consumer's subscription: the job that attaches it (`nil` when it is subscribed already, or
    /// when the store it leaves attaches it, see below), and its handle.
    func consumerSubscription(
        _ consumer: StateConsumer<State>
    ) -> (registration: (@Sendable (Store) -> Void)?, subscription: Subscription) {
        let host = host
        let (epoch, isFirst) = consumer.beginSubscription(to: host)
        let subscription = Subscription { [weak self, weak consumer] in
            guard let self, let consumer else { return }
            unsubscribe(consumer, epoch: epoch)
        }
        guard isFirst else { return (nil, subscription) }
        let order = takeOrder()
        @Sendable func attach(_ store: Store, isRetry: Bool = false) {
            let host = store.host
            guard consumer.arrive(at: host, epoch: epoch) else { return }
            guard consumer.registration(in: host).engine == nil else {
                // Still in the engine for an earlier subscription, whose removal is queued on this
                // drain, behind this job that its owner ran at once: attach after that removal
                // (once: the removal is among the jobs queued before the retry).
                assert(!isRetry, "a consumer still attached after the removal queued before its attachment")
                guard !isRetry else { return }
                store.drain.queueBehindQueuedJobs(generation: ThreadContext.current.generation) {
                    attach(store, isRetry: true)
                }
                return
            }
            let core = store.core.value
            core.consumers[ObjectIdentifier(consumer)] = consumer
            let engine = host.engine.value
            if core.engine == nil {
                core.adopt(engine)
                // Subscribed from inside a pass's calls: `.instantly` calls of members added
                // during it wait for its end, as with an engine that took part in it. Not from a
                // listener: the pass's `endPass()` is behind it, and would never release them.
                engine.holdsInstantCalls = core.isCallingConsumers
            }
            engine.attach(
                consumer.registration(in: host),
                order: order,
                state: UnsafeMutableRawPointer(core.state)
            )
        }
        let registration: @Sendable (Store) -> Void = { attach($0) }
        if let from = consumer.move(to: host, epoch: epoch) {
            // Still on the drain of a store whose subscription was cancelled while it was busy on
            // another thread (its removal is queued there), or of its own host when this thread
            // cannot wait for it: handed over there, after that removal, then attached here,
            // without waiting for that drain.
            from.drain.runOrQueue(generation: ThreadContext.current.generation) { [self] in
                let garbage = consumer.handOver(from: from, to: host, epoch: epoch)
                perform(.control, registration)
                withExtendedLifetime(garbage) {}
            }
            return (nil, subscription)
        }
        return (registration, subscription)
    }

    /// Calls `listener` with every action the reducer reduces from now on.
    ///
    /// The listener is called once per reduced action, after the store's subscribers (closures and
    /// consumers) were notified of that action; actions that a middleware swallowed (never passed
    /// on to the reducer) are not heard. Listeners are called in the order they were added, on the
    /// thread that processes the store at that moment, outside any lock: they may dispatch (the
    /// action is queued and runs after the current one), subscribe or cancel. A listener added
    /// from inside one of this store's actions starts with the next action.
    ///
    /// ```swift
    /// let subscription = appStore.observeActions { action in
    ///     if action is AuthAction { analytics.track(action) }
    /// }
    /// ```
    ///
    /// The listener counts in ``subscriberCount`` while it is registered.
    ///
    /// - Parameter listener: Called with each reduced action.
    /// - Returns: The subscription; the listener is removed when it is cancelled, with the
    ///   guarantees of ``Subscription/cancel()``.
    @discardableResult
    public func observeActions(_ listener: @escaping @Sendable (_ action: any Action) -> Void) -> Subscription {
        let (registration, subscription) = actionSubscription(listener)
        perform(.control, registration)
        return subscription
    }

    /// An action listener: the job that registers it, and its handle.
    func actionSubscription(
        _ listener: @escaping @Sendable (any Action) -> Void
    ) -> (registration: @Sendable (Store) -> Void, subscription: Subscription) {
        let order = takeOrder()
        let listener = Listener(listener)
        let tag = listener.tag
        let registration: @Sendable (Store) -> Void = { store in
            let core = store.core.value
            store.registerAfterAction(core) {
                guard !store.wasCancelledEarly(order) else { return }
                core.listeners.insert(listener, identifier: order)
            }
        }
        return (registration, Subscription { [weak self] in self?.removeListener(order, tag: tag) })
    }

    /// A new call order, for a new subscription counted from now on.
    private func takeOrder() -> UInt64 {
        drain.locked {
            shared.subscriberCount += 1
            shared.lastOrder += 1
            return shared.lastOrder
        }
    }

    /// Whether the registration `order` was cancelled before the job adding it ran (and forgets it).
    private func wasCancelledEarly(_ order: UInt64) -> Bool {
        drain.locked { shared.cancelledEarly.remove(order) != nil }
    }

    private func removeClosure(_ order: UInt64, tag: UInt) {
        drain.locked { shared.subscriberCount -= 1 }
        let garbage = Garbage()
        remove(tag: tag) { store in
            let core = store.core.value
            guard core.closures.remove(order) != nil, let subscriber = core.subscribers.removeValue(forKey: order)
            else {
                store.forgetEarly(order)
                return
            }
            if core.isNotifying {
                // The pass borrows its subscribers: keep this one alive until the pass is over.
                core.retired.append(subscriber)
            } else {
                garbage.keep([subscriber])
            }
        }
        withExtendedLifetime(garbage) {}
    }

    private func removeListener(_ order: UInt64, tag: UInt) {
        drain.locked { shared.subscriberCount -= 1 }
        let garbage = Garbage()
        remove(tag: tag) { store in
            guard let listener = store.core.value.listeners.remove(order) else {
                store.forgetEarly(order)
                return
            }
            garbage.keep([listener])
        }
        withExtendedLifetime(garbage) {}
    }

    /// Runs a removal of the registration `tag` with the guarantees of ``Drain/remove(tag:_:_:)``.
    private func remove(tag: UInt, _ body: @escaping @Sendable (Store) -> Void) {
        drain.remove(tag: tag, .registration) { [self] in body(self) }
    }

    /// A registration cancelled before the job that adds it ran: that job will skip it.
    private func forgetEarly(_ order: UInt64) {
        drain.locked { _ = shared.cancelledEarly.insert(order) }
    }

    private func unsubscribe(_ consumer: StateConsumer<State>, epoch: UInt64) {
        let garbage = Garbage()
        let job: @Sendable () -> Void = { [self] in
            let core = core.value
            if let removed = core.consumers.removeValue(forKey: ObjectIdentifier(consumer)) {
                garbage.keep([removed])
            }
            garbage.keep(consumer.leave(host))
        }
        // The job withdraws the calls posted to the consumer's queue or actors (see
        // `StateConsumer.leave`). Queued behind another thread's work, it runs later: the calls
        // pending are withdrawn here meanwhile (a new subscription begun since included, whose
        // attachment waits behind it), unless it has run or handed the registration on by then.
        var hasLeft: Lock<Bool>?
        let admitted = consumer.endSubscription(epoch: epoch) {
            drain.admitRemoval(tag: consumer.members.tag, .registration) {
                let flag = Lock(false)
                hasLeft = flag
                return {
                    job()
                    flag.withLock { $0 = true }
                }
            }
        }
        guard let admission = admitted else { return }
        drain.locked { shared.subscriberCount -= 1 }
        drain.finishRemoval(admission, job)
        if let hasLeft { consumer.withdrawBeforeLeaving(host, hasLeft: hasLeft) }
        consumer.routes.waitForCallsInProgress()
        withExtendedLifetime(garbage) {}
    }
}
