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
    private let drain = Drain<Job>(level: .store)
    private let engine: Confined<Engine>

    private struct Core {
        var state: State
        var subscriberCount = 0
        var nextObserverID: UInt64 = 0
    }

    private enum Job: Sendable {
        /// Through the middleware chain, then the reducer.
        case dispatch(any Action)
        /// Straight to the reducer: `next` called by the last middleware from outside the drain.
        case reduce(any Action)
    }

    private enum Observer {
        case closure(@Sendable (State, State) -> Void)
        case consumer(StateConsumer<State>)
    }

    /// What only the drain touches: observers, middleware chain.
    private struct Engine {
        var observers = OrderedSlots<Observer>()
        var wholeStateObservers = 0
        var middleware: [Middleware<State>] = []
        var chain: DispatchFunction?
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
        engine = Confined(Engine())
        if !middleware.isEmpty {
            engine.value.middleware = middleware
            engine.value.chain = makeChain(middleware)
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

    /// The number of live subscriptions (closures and consumers). Useful in leak tests.
    public var subscriberCount: Int {
        core.withLock { $0.subscriberCount }
    }

    /// Sends `action` through the middleware to the reducer, then notifies subscribers.
    ///
    /// Safe from any thread; see the type's documentation for ordering and re-entrancy.
    ///
    /// - Parameter action: What happened.
    public func dispatch(_ action: any Action) {
        let context = ThreadContext.current
        if context.reducingStore != nil {
            // A reducer dispatched: wait until it has returned and released its store's lock.
            context.dispatchesAfterReduce.append { [self] in dispatch(action) }
            return
        }
        drain.submit(.dispatch(action), process: process)
    }

    /// Adds a middleware after creation; it becomes the innermost one (closest to the reducer).
    ///
    /// Takes effect from the next action on.
    ///
    /// - Parameter middleware: The middleware to add.
    public func addMiddleware(_ middleware: @escaping Middleware<State>) {
        drain.perform(
            { [self] in
                engine.value.middleware.append(middleware)
                engine.value.chain = makeChain(engine.value.middleware)
            },
            process: process
        )
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
        register(.closure(callback))
    }

    /// Feeds `consumer` with this store's states: the current one at once (its consumers learn
    /// their starting values, and `instantly` consumers fire), then every new one.
    ///
    /// While subscribed, consumers added to `consumer` take their starting value from this store.
    ///
    /// - Parameter consumer: The consumer to feed.
    /// - Returns: The subscription; feeding stops when it is cancelled or released.
    public func subscribe(_ consumer: StateConsumer<State>) -> Subscription {
        register(.consumer(consumer))
    }

    private func register(_ observer: Observer) -> Subscription {
        let id = core.withLock { core in
            core.nextObserverID += 1
            core.subscriberCount += 1
            return core.nextObserverID
        }
        drain.perform(
            { [self] in
                engine.value.observers.append(observer, identifier: id)
                switch observer {
                case .closure:
                    engine.value.wholeStateObservers += 1
                case .consumer(let consumer):
                    consumer.attach(source: StateSource(id: ObjectIdentifier(self)) { [weak self] in self?.state })
                    consumer.consume(newState: core.withLock { $0.state })
                }
            },
            process: process
        )
        return Subscription { [weak self] in self?.unregister(id) }
    }

    private func unregister(_ id: UInt64) {
        drain.perform(
            { [self] in
                guard let observer = engine.value.observers.remove(id) else { return }
                core.withLock { $0.subscriberCount -= 1 }
                switch observer {
                case .closure:
                    engine.value.wholeStateObservers -= 1
                case .consumer(let consumer):
                    consumer.detach(sourceID: ObjectIdentifier(self))
                }
            },
            process: process
        )
    }

    private func makeChain(_ middleware: [Middleware<State>]) -> DispatchFunction {
        let dispatch: DispatchFunction = { [weak self] action in self?.dispatch(action) }
        let getState: GetState<State> = { [weak self] in self?.state }
        let last: DispatchFunction = { [weak self] action in self?.reduceFromChain(action) }
        return middleware.reversed().reduce(last) { next, middleware in
            middleware(dispatch, getState)(next)
        }
    }

    private func process(_ job: Job) {
        switch job {
        case .dispatch(let action):
            if let chain = engine.value.chain {
                chain(action)
            } else {
                reduceAndNotify(action)
            }
        case .reduce(let action):
            reduceAndNotify(action)
        }
    }

    /// The end of the middleware chain: reduce now if we are processing this store, else queue.
    private func reduceFromChain(_ action: any Action) {
        if drain.isCurrentThreadDraining {
            reduceAndNotify(action)
        } else {
            drain.submit(.reduce(action), process: process)
        }
    }

    private func reduceAndNotify(_ action: any Action) {
        let needsOldState = engine.value.wholeStateObservers > 0
        let context = ThreadContext.current
        let id = ObjectIdentifier(self)
        var old: State?
        let new = core.withLock { core in
            if needsOldState { old = core.state }
            context.reducingStore = id
            reducer.reduce(&core.state, action)
            context.reducingStore = nil
            return core.state
        }
        if !context.dispatchesAfterReduce.isEmpty {
            let dispatches = context.dispatchesAfterReduce
            context.dispatchesAfterReduce.removeAll()
            for dispatch in dispatches { dispatch() }
        }
        notify(old: old, new: new)
    }

    private func notify(old: State?, new: State) {
        engine.value.observers.iterationDepth += 1
        let end = engine.value.observers.slotCount
        for slot in 0..<end {
            switch engine.value.observers[slot: slot] {
            case .closure(let callback):
                if let old { callback(old, new) }
            case .consumer(let consumer):
                consumer.consume(newState: new)
            case nil:
                continue
            }
        }
        engine.value.observers.iterationDepth -= 1
        engine.value.observers.compactIfWorthIt()
    }
}
