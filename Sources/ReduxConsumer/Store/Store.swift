/// The single source of truth: a state, the reducer that changes it, and the middleware around it.
///
/// `Store` is a reference type holding a value-type state. Every change goes through
/// ``dispatch(_:)``:
///
/// ```swift
/// let store = Store(initialState: AppState(), reducer: appReducer)
/// store.dispatch(CounterAction.increment)
/// print(store.state.counter)  // 1
/// ```
///
/// ## Threading and order
/// Dispatch from any thread. Actions are reduced one at a time, in one global order, and
/// subscribers are notified in that order, once per state. ``dispatch(_:)`` returns after its
/// action was reduced and every subscriber was notified, with two exceptions that keep the store
/// free of deadlocks: a dispatch made from inside this store's reducer, middleware or subscriber
/// callbacks is queued and runs right after the current action; and a dispatch made from inside
/// another store's callbacks while this store is busy on a third thread is queued behind the
/// current action. Callbacks run on the thread that processes the store at that moment: the
/// dispatching thread when the store is idle, otherwise the thread already processing it.
public final class Store<State: Sendable>: Sendable {
    private let reducer: Reducer<State>
    private let core: Lock<Core>
    /// Apart from `core`: a reducer holds `core`'s lock, and may subscribe or cancel.
    private let counters = Lock(ObserverCounters())
    private let drain = Drain(level: .store)
    // The confined tables are non-generic types (or generic only in their element): the store's
    // code runs unspecialised, and a non-generic table costs no runtime metadata lookup per pass.
    private let observers = Confined(StoreObservers())
    private let chain = Confined<DispatchFunction?>(nil)
    private let middleware: Confined<[Middleware<State>]>

    private struct Core {
        var state: State
    }

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - initialState: The state before any action.
    ///   - reducer: The reducer that changes the state for each action.
    ///   - middleware: Middleware, outermost first: the first one sees each action first.
    public init(initialState: State, reducer: Reducer<State>, middleware: [Middleware<State>] = []) {
        self.reducer = reducer
        core = Lock(Core(state: initialState))
        self.middleware = Confined(middleware)
        if !middleware.isEmpty {
            chain.value = makeChain(middleware)
        }
    }

    /// Creates a store from a ReSwift-style reducer, `(Action, State?) -> State`.
    ///
    /// When `state` is `nil`, the reducer builds the initial state from a ``StoreInit`` action,
    /// as in ReSwift.
    ///
    /// - Parameters:
    ///   - reSwiftReducer: The reducer, unchanged from ReSwift.
    ///   - state: The initial state, or `nil` to let the reducer build it.
    ///   - middleware: Middleware, outermost first.
    public convenience init(
        reSwiftReducer: @escaping @Sendable (_ action: any Action, _ state: State?) -> State,
        state: State?,
        middleware: [Middleware<State>] = []
    ) {
        let initialState = state ?? reSwiftReducer(StoreInit(), nil)
        self.init(initialState: initialState, reducer: Reducer(reSwift: reSwiftReducer), middleware: middleware)
    }

    /// The current state: a snapshot, safe to read from any thread.
    ///
    /// Must not be read from inside this store's reducer (the reducer is given the state).
    public var state: State {
        precondition(
            ThreadContext.current.reducingStore != ObjectIdentifier(self),
            "Store.state was read from inside the store's own reducer; use the reducer's state parameter."
        )
        return core.withLock { $0.state }
    }

    /// The number of live subscriptions (closures, consumers and action listeners). Useful in leak
    /// tests.
    public var subscriberCount: Int {
        counters.withLock { $0.subscriberCount }
    }

    /// Sends `action` through the middleware to the reducer, then notifies subscribers.
    ///
    /// Safe from any thread; see the type's documentation for ordering and re-entrancy.
    ///
    /// - Parameter action: What happened.
    /// - Complexity: Without contention, two lock round trips for the drain and one for the state,
    ///   no allocation, plus the subscribers' work.
    public func dispatch(_ action: any Action) {
        drain.submit({ runThroughChain(action) }, queueing: { { [self] in runThroughChain(action) } })
    }

    /// Adds a middleware after creation; it becomes the innermost one (closest to the reducer).
    ///
    /// Takes effect from the next action on.
    ///
    /// - Parameter middleware: The middleware to add.
    public func addMiddleware(_ middleware: @escaping Middleware<State>) {
        perform { [self] in
            self.middleware.value.append(middleware)
            chain.value = makeChain(self.middleware.value)
        }
    }

    /// Calls `callback` with the old and the new state after every action.
    ///
    /// The callback is not called for the state current at subscription time; the first call comes
    /// with the next action. Subscribers are called in the order they subscribed. Prefer a
    /// ``StateConsumer`` to react to parts of the state that changed.
    ///
    /// - Parameter callback: Called with the state before and after each action.
    /// - Returns: The subscription; notifications stop when it is cancelled or released.
    public func subscribe(_ callback: @escaping @Sendable (_ old: State, _ new: State) -> Void) -> Subscription {
        register(StoreRegistration(target: Subscriber(callback), detach: nil), isConsumer: false, attach: nil)
    }

    /// Feeds `consumer` with this store's states: the current one at once (its consumers learn
    /// their starting values, and `instantly` consumers fire), then every new one.
    ///
    /// While subscribed, consumers added to `consumer` take their starting value from this store.
    ///
    /// - Parameter consumer: The consumer to feed.
    /// - Returns: The subscription; feeding stops when it is cancelled or released.
    public func subscribe(_ consumer: StateConsumer<State>) -> Subscription {
        let id = ObjectIdentifier(self)
        return register(
            StoreRegistration(target: consumer, detach: { consumer.detach(sourceID: id) }),
            isConsumer: true,
            attach: { [self] in
                consumer.attach(
                    source: StateSource(id: id) { [weak self] body in
                        guard let self else { return false }
                        var state = self.state
                        body(&state)
                        return true
                    }
                )
                consumer.consume(newState: core.withLock { $0.state })
            }
        )
    }

    /// Calls `listener` with every action the reducer reduces from now on.
    ///
    /// The listener is called once per reduced action, after the store's subscribers (closures and
    /// consumers) were notified of that action; actions that a middleware swallowed (never passed
    /// on to the reducer) are not heard. Listeners are called in the order they were added, on the
    /// thread that processes the store at that moment, outside the store's locks: they may
    /// dispatch (the action is queued and runs after the current one), subscribe or cancel. A
    /// listener added from inside one of this store's actions starts with the next action.
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
    /// - Returns: The subscription; the listener is removed when it is cancelled or released, with
    ///   the guarantees of ``Subscription/cancel()``.
    public func observeActions(_ listener: @escaping @Sendable (_ action: any Action) -> Void) -> Subscription {
        let id = nextRegistrationID()
        let job: @Sendable () -> Void = { [self] in
            guard counters.withLock({ $0.cancelledBeforeRegistration.remove(id) == nil }) else { return }
            observers.value.actionListeners.append(listener, identifier: id)
        }
        // Queued like a closure subscriber: a listener added during an action waits for the next.
        drain.submit(job, queueing: { job })
        return Subscription { [weak self] in self?.unregister(id) }
    }

    /// Counts a new registration and returns its identifier.
    private func nextRegistrationID() -> UInt64 {
        counters.withLock { counters in
            counters.nextObserverID += 1
            counters.subscriberCount += 1
            return counters.nextObserverID
        }
    }

    private func register(
        _ registration: StoreRegistration,
        isConsumer: Bool,
        attach: (@Sendable () -> Void)?
    ) -> Subscription {
        let id = nextRegistrationID()
        let job: @Sendable () -> Void = { [self] in
            guard counters.withLock({ $0.cancelledBeforeRegistration.remove(id) == nil }) else { return }
            let target = Unmanaged<AnyObject>.passUnretained(registration.target)
            observers.value.slots.append(StoreObserver(target: target, isConsumer: isConsumer), identifier: id)
            observers.value.registrations[id] = registration
            if !isConsumer { observers.value.oldStateReaders += 1 }
            attach?()
        }
        if isConsumer {
            perform(job)
        } else {
            // Queued, not run at once, when subscribed from inside this store's own action: the
            // pass already chose whether to copy the old state (and how to call its observers), so
            // a closure subscriber added in the middle of it must wait for the next action.
            drain.submit(job, queueing: { job })
        }
        return Subscription { [weak self] in self?.unregister(id) }
    }

    private func unregister(_ id: UInt64) {
        perform { [self] in
            if let listener = observers.value.actionListeners.remove(id) {
                counters.withLock { $0.subscriberCount -= 1 }
                // Released here, outside the access to `observers`: its captures' deinits may
                // cancel another subscription.
                withExtendedLifetime(listener) {}
                return
            }
            guard let observer = observers.value.slots.remove(id),
                let registration = observers.value.registrations.removeValue(forKey: id)
            else {
                // Cancelled before its queued registration ran: the registration will skip it.
                counters.withLock { counters in
                    counters.cancelledBeforeRegistration.insert(id)
                    counters.subscriberCount -= 1
                }
                return
            }
            counters.withLock { $0.subscriberCount -= 1 }
            if !observer.isConsumer { observers.value.oldStateReaders -= 1 }
            if observers.value.slots.iterationDepth > 0 {
                // A pass holds no reference to the target: keep it alive until the pass is over.
                observers.value.retired.append(registration)
            }
            registration.detach?()
        }
    }

    /// Runs `body` as a job of this store's drain (at once when called from inside it).
    private func perform(_ body: @escaping @Sendable () -> Void) {
        drain.perform(body, queueing: { body })
    }

    private func makeChain(_ middleware: [Middleware<State>]) -> DispatchFunction {
        let dispatch: DispatchFunction = { [weak self] action in self?.dispatch(action) }
        let getState: GetState<State> = { [weak self] in self?.state }
        let last: DispatchFunction = { [weak self] action in self?.reduceFromChain(action) }
        return middleware.reversed().reduce(last) { next, middleware in
            middleware(dispatch, getState)(next)
        }
    }

    private func runThroughChain(_ action: any Action) {
        if let chain = chain.value {
            chain(action)
        } else {
            reduceAndNotify(action)
        }
    }

    /// The end of the middleware chain: reduce now if we are processing this store, else queue.
    private func reduceFromChain(_ action: any Action) {
        if drain.isCurrentThreadDraining {
            reduceAndNotify(action)
        } else {
            drain.submit({ reduceAndNotify(action) }, queueing: { { [self] in reduceAndNotify(action) } })
        }
    }

    private func reduceAndNotify(_ action: any Action) {
        if observers.value.slots.isEmpty {
            // No subscriber: reduce in place and copy nothing out.
            reduceInPlace(action)
        } else if observers.value.oldStateReaders > 0 {
            // Only the drainer writes the state, so the state read before `reduce` is the one the
            // action starts from. Copy it only when a closure subscriber asks for it.
            let old = core.withLock { $0.state }
            // `let`s: a closure subscriber then gets the store's copies as they are.
            let new = reduceAndCopy(action)
            forEachObserver { observer in
                if observer.isConsumer {
                    consumer(observer)._withUnsafeGuaranteedRef { $0.consume(newState: new) }
                } else {
                    subscriber(observer)._withUnsafeGuaranteedRef { $0.callback(old, new) }
                }
            }
        } else {
            // Consumers only: `new` is `inout` so they get it by address, without a copy; nothing
            // writes it.
            var new = reduceAndCopy(action)
            forEachObserver { observer in
                consumer(observer)._withUnsafeGuaranteedRef { $0.consume(state: &new) }
            }
        }
        // Action listeners need the action, not the state: they never make the store copy it.
        if !observers.value.actionListeners.isEmpty {
            notifyActionListeners(action)
        }
    }

    /// Runs the reducer in place, under the lock.
    private func reduceInPlace(_ action: any Action) {
        let context = ThreadContext.current
        let id = ObjectIdentifier(self)
        core.withLock { core in
            context.reducingStore = id
            reducer.reduce(&core.state, action)
            context.reducingStore = nil
        }
        runDispatchesMadeByTheReducer(context)
    }

    /// Runs the reducer in place, under the lock, and returns a copy of the new state.
    private func reduceAndCopy(_ action: any Action) -> State {
        let context = ThreadContext.current
        let id = ObjectIdentifier(self)
        let new = core.withLock { core in
            context.reducingStore = id
            reducer.reduce(&core.state, action)
            context.reducingStore = nil
            return core.state
        }
        runDispatchesMadeByTheReducer(context)
        return new
    }

    /// Dispatches a reducer made, now that it has returned and the lock is free; a dispatch to
    /// this store joins its queue and runs after the current action.
    @inline(__always)
    private func runDispatchesMadeByTheReducer(_ context: ThreadContext) {
        guard !context.dispatchesAfterReduce.isEmpty else { return }
        let dispatches = context.dispatchesAfterReduce
        context.dispatchesAfterReduce.removeAll()
        for dispatch in dispatches { dispatch() }
    }

    /// Calls `body` with every observer, in the order they subscribed.
    ///
    /// Observers' targets are borrowed, unretained (`_withUnsafeGuaranteedRef` in the callers):
    /// `registrations` owns them, and `unregister` keeps a target removed during the pass alive
    /// in `retired` until the pass is over. A retain/release pair per observer per action was the
    /// largest cost of a fan-out after the callbacks themselves.
    @inline(__always)
    private func forEachObserver(_ body: (StoreObserver) -> Void) {
        observers.value.slots.iterationDepth += 1
        let end = observers.value.slots.slotCount
        for slot in 0..<end {
            // Read the slot afresh each time: a callback may have cancelled a later subscriber.
            if let observer = observers.value.slots[slot: slot] {
                body(observer)
            }
        }
        observers.value.slots.iterationDepth -= 1
        observers.value.slots.compactIfWorthIt()
        if observers.value.slots.iterationDepth == 0, !observers.value.retired.isEmpty {
            // Released outside the access to `observers`: a deinit may cancel another subscription.
            let retired = observers.value.retired
            observers.value.retired = []
            withExtendedLifetime(retired) {}
        }
    }

    /// Calls every action listener with `action`, in the order they were added.
    private func notifyActionListeners(_ action: any Action) {
        observers.value.actionListeners.iterationDepth += 1
        let end = observers.value.actionListeners.slotCount
        for slot in 0..<end {
            // Read the slot afresh each time: a listener may have cancelled a later one. The copy
            // keeps the closure alive while it runs, even if it cancels itself.
            if let listener = observers.value.actionListeners[slot: slot] {
                listener(action)
            }
        }
        observers.value.actionListeners.iterationDepth -= 1
        observers.value.actionListeners.compactIfWorthIt()
    }

    // The two functions below retype the unretained target without a check: `register` stored
    // exactly these types, and a checked cast would cost a runtime call per observer and per
    // action. They stay `Unmanaged` (an `unsafeDowncast` returns an owned reference, which costs a
    // retain/release pair per call).

    private func consumer(_ observer: StoreObserver) -> Unmanaged<StateConsumer<State>> {
        Unmanaged.fromOpaque(observer.target.toOpaque())
    }

    private func subscriber(_ observer: StoreObserver) -> Unmanaged<Subscriber<State>> {
        Unmanaged.fromOpaque(observer.target.toOpaque())
    }
}

/// A store's subscription bookkeeping; not nested, so it is not generic.
private struct ObserverCounters {
    var subscriberCount = 0
    var nextObserverID: UInt64 = 0
    /// Subscriptions cancelled while their registration was still queued.
    var cancelledBeforeRegistration: Set<UInt64> = []
}
