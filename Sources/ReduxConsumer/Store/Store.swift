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
/// free of deadlocks: a dispatch made from inside this store's reducer, middleware or callbacks is
/// queued and runs right after the current action; and a dispatch made from inside another
/// store's callbacks (or a consumer's queued delivery) while this store is busy on another thread
/// is queued behind the current action. Callbacks run on the thread that processes the store at
/// that moment: the dispatching thread when the store is idle, otherwise the thread already
/// processing it. No library lock is held while your reducer, middleware, selectors or callbacks
/// run.
///
/// ## Chains
/// A callback that dispatches on every change it sees makes a chain of actions, each caused by
/// the previous one. A chain longer than ``chainLimit`` is stopped: the action that would exceed
/// it is dropped and reported to the store's diagnostics, naming the action, instead of looping
/// forever.
public final class Store<State: Sendable>: Sendable, CustomStringConvertible {
    let drain = Drain()
    let host: ConsumerHost<State>
    let core: DrainBound<StoreCore<State>>
    /// The published state and the counts every thread reads, guarded by the drain's lock.
    let shared: StoreShared<State>
    private let reducer: Reducer<State>
    let diagnose: @Sendable (String) -> Void

    /// The longest chain of actions dispatched from the processing of the previous one (from a
    /// reducer, a middleware or a callback) before the store stops it: 10,000.
    public static var chainLimit: Int { 10_000 }

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - initialState: The state before any action.
    ///   - reducer: The reducer that changes the state for each action.
    ///   - middleware: Middleware, outermost first: the first one sees each action first.
    ///   - diagnostics: Told about misuse the store survives instead of trapping, such as a
    ///     runaway chain of dispatches (see ``chainLimit``). `nil` (the default) writes to standard
    ///     error.
    public init(
        initialState: State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>] = [],
        diagnostics: (@Sendable (_ message: String) -> Void)? = nil
    ) {
        self.reducer = reducer
        shared = StoreShared(state: initialState)
        let core = DrainBound(StoreCore(state: initialState, middleware: middleware), drain: drain)
        self.core = core
        // Weak: a subscribed consumer refers to the host, and the core keeps the consumer.
        host = ConsumerHost(drain: drain, storeName: "Store<\(State.self)>") { [weak core] body in
            guard let core else { return false }
            body(UnsafeMutableRawPointer(core.value.state))
            return true
        }
        diagnose = diagnostics ?? { writeLineToStandardError($0) }
        if !middleware.isEmpty {
            let chain = makeChain(middleware)
            core.setUp { $0.chain = chain }
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

    /// The current state: a snapshot, safe to read from any thread; it never waits for an action
    /// in progress (it is the state after the last action reduced).
    ///
    /// Must not be read from inside this store's own reducer, which is given the state to change.
    public var state: State {
        precondition(
            !drain.isReducingOnCurrentThread,
            "\(description).state was read inside the store's own reducer: use the reducer's `state` parameter, which is the state being changed."
        )
        return drain.locked { shared.state }
    }

    /// The number of live subscriptions: closure subscribers, consumers (each counted once, however
    /// many times it was subscribed) and action listeners. Useful in leak tests.
    public var subscriberCount: Int {
        drain.locked { shared.subscriberCount }
    }

    /// The store's type and identity, for messages: `Store<AppState>(0x…)`.
    public var description: String {
        host.description
    }

    /// Sends `action` through the middleware to the reducer, then notifies subscribers.
    ///
    /// Safe from any thread; see the type's documentation for ordering and re-entrancy.
    ///
    /// - Parameter action: What happened.
    /// - Complexity: Without contention, two lock round trips for the drain and one to publish the
    ///   state, no allocation, plus the subscribers' work.
    public func dispatch(_ action: any Action) {
        let context = ThreadContext.current
        let generation = context.isHolder ? context.generation + 1 : 0
        guard generation <= Self.chainLimit else {
            diagnose(
                "\(description): dropped \(String(reflecting: action)): it would be action number \(generation + 1) of a chain in which each action was dispatched while processing the previous one (limit \(Self.chainLimit)). A consumer, middleware or reducer that dispatches on every change?"
            )
            return
        }
        drain.submit(DispatchJob(store: self, action: action), kind: .dispatch, generation: generation)
    }

    /// Adds a middleware after creation; it becomes the innermost one (closest to the reducer).
    ///
    /// Takes effect from the next action on.
    ///
    /// - Parameter middleware: The middleware to add.
    public func addMiddleware(_ middleware: @escaping Middleware<State>) {
        perform(.dispatch) { store in
            let core = store.core.value
            core.middleware.append(middleware)
            core.chain = store.makeChain(core.middleware)
        }
    }

    /// Runs `body` as a job of this store's drain (see ``Drain`` for when).
    func perform(_ kind: Drain.Kind, _ body: @escaping @Sendable (Store) -> Void) {
        drain.submit(
            ClosureJob { [self] in body(self) },
            kind: kind,
            generation: ThreadContext.current.generation
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

    /// Runs one action: through the middleware, or straight to the reducer.
    fileprivate func process(_ action: any Action) {
        if let chain = core.value.chain {
            chain(action)
        } else {
            reduceAndNotify(action)
        }
    }

    /// The end of the middleware chain: reduce now if we are processing this store, else queue (a
    /// middleware that calls `next` later, from another thread).
    private func reduceFromChain(_ action: any Action) {
        if drain.isAccessibleFromCurrentThread {
            reduceAndNotify(action)
        } else {
            drain.submit(
                ReduceJob(store: self, action: action), kind: .dispatch, generation: ThreadContext.current.generation)
        }
    }

    fileprivate func reduceAndNotify(_ action: any Action) {
        let core = core.value
        let state = core.state
        drain.reducing { reducer.reduce(&state.pointee, action) }
        var published = state.pointee
        drain.locked { swap(&shared.state, &published) }
        // `published` now holds the state before the action: the closure subscribers' `old`.
        drain.runDeferred()
        notify(core, old: published, action: action)
    }
}

/// What a store shares with every thread: its published state and counts, guarded by the lock of
/// the store's drain.
final class StoreShared<State>: @unchecked Sendable {
    // @unchecked: every access is inside `Drain.locked` of the owning store's drain.
    var state: State
    var subscriberCount = 0
    /// The last call order handed out; closure subscribers and consumers are called in this order.
    var lastOrder: UInt64 = 0
    /// Registrations cancelled before the job that adds them ran.
    var cancelledEarly: Set<UInt64> = []

    init(state: State) {
        self.state = state
    }
}

/// An action to run through a store.
private struct DispatchJob<State: Sendable>: DrainJob {
    let store: Store<State>
    let action: any Action

    func run() {
        store.process(action)
    }
}

/// An action a middleware passed on later, from another thread: straight to the reducer.
private struct ReduceJob<State: Sendable>: DrainJob {
    let store: Store<State>
    let action: any Action

    func run() {
        store.reduceAndNotify(action)
    }
}

/// Any other work for a drain.
struct ClosureJob: DrainJob {
    let body: @Sendable () -> Void

    func run() {
        body()
    }
}
