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
    /// The consumers' host once made (see ``host``). Not in `shared`: the drain refers to
    /// `shared` (it publishes into it) and the host to the drain, which would close a cycle.
    // `nonisolated(unsafe)`: read and written only inside `drain.locked` (the ThreadSanitizer run
    // of the suite checks it).
    nonisolated(unsafe) private var madeHost: ConsumerHost?
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
    ///   - effects: Async work that actions start (see ``Effect``).
    ///   - diagnostics: Told about what the store survives instead of trapping: a runaway chain of
    ///     dispatches (see ``chainLimit``), an effect that threw with no handler. `nil` (the
    ///     default) writes to standard error.
    @inlinable
    public convenience init(
        initialState: State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>] = [],
        effects: [Effect<State>] = [],
        diagnostics: (@Sendable (_ message: String) -> Void)? = nil
    ) {
        self.init(
            initialState: initialState,
            reducer: reducer,
            middleware: middleware,
            effects: effects,
            diagnostics: diagnostics,
            publishing: StatePublishing(State.self)
        )
    }

    @usableFromInline
    init(
        initialState: State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>],
        effects: [Effect<State>],
        diagnostics: (@Sendable (_ message: String) -> Void)?,
        publishing: StatePublishing
    ) {
        self.reducer = reducer
        let core = DrainBound(StoreCore(state: initialState), drain: drain)
        self.core = core
        // The cells live as long as the store, and the drain publishes only during its jobs.
        let shared = StoreShared(
            state: initialState, working: core.value(unchecked: ()).state, publishing: publishing)
        self.shared = shared
        diagnose = diagnostics ?? { writeLineToStandardError($0) }
        // Under the drain's lock only moves and copies (no user code): the state replaced goes to
        // `retired`, and is released after the lock, so a `deinit` of something it held runs
        // with no lock held (guarantee 4).
        drain.setPublisher(shared)
        if !middleware.isEmpty {
            let (chain, end) = makeChain(middleware)
            core.setUp { core in
                core.chain = chain
                core.chainEnd = end
            }
        }
        if !effects.isEmpty {
            core.setUp { core in
                core.effects = effects
                core.hasEffects = true
            }
        }
    }

    deinit {
        tearDown()
        freeConsumers()
    }

    /// Ends the subscriptions of the consumers still subscribed as the store goes: a consumer that
    /// outlives its store can be subscribed to another one, or fed by hand.
    private func freeConsumers() {
        // Made with the first subscribed consumer: no host, no consumer to free.
        guard let host = drain.locked({ madeHost }) else { return }
        // The consumers are free to be subscribed elsewhere or fed by hand from now on, even when
        // the job below must wait (the host's weak reference to the store is `nil` already, see
        // `ConsumerHost.hasEnded`); their registrations follow, behind this job.
        let core = core
        let garbage = Garbage()
        // A job of the drain, as every change of the consumers is; it runs now unless a consumer's
        // add on another thread holds the drain (no job of this store's own can, since each keeps
        // the store alive).
        drain.submit(.control, generation: ThreadContext.current.generation) {
            let consumers = core.value.consumers
            core.value.consumers = [:]
            garbage.keep(Array(consumers.values))
            for consumer in consumers.values {
                garbage.keep(consumer.storeDidEnd(host))
            }
            host.endState()
        }
        withExtendedLifetime(garbage) {}
    }

    /// What ends with the store: async sequences to finish, waits to end (made on first use: a
    /// store that never streams or waits has none).
    var teardown: Teardown {
        part(\.teardown) { Teardown(isDone: $0) }
    }

    /// The effects running for the store (made on first use).
    var effects: EffectRunner {
        part(\.effects) { EffectRunner(isClosed: $0) }
    }

    /// The part of the store kept at `slot`, made by `make` on first use (told whether the store
    /// is torn down already, so that a part made late starts finished).
    private func part<Part>(
        _ slot: ReferenceWritableKeyPath<StoreShared<State>, Part?>,
        _ make: (_ isTornDown: Bool) -> Part
    ) -> Part {
        drain.locked {
            if let part = shared[keyPath: slot] { return part }
            let part = make(shared.isTornDown)
            shared[keyPath: slot] = part
            return part
        }
    }

    /// Where the store's consumers live, made when the first one subscribes: a store (a page)
    /// that never has consumers pays nothing for them.
    var host: ConsumerHost {
        drain.locked {
            if let madeHost { return madeHost }
            // The reader keeps the core, whose consumers keep the host: `freeConsumers` cuts that
            // cycle as the store goes (`endState`).
            let core = core
            let host = ConsumerHost(
                drain: drain, isStore: true, stateType: State.self, address: address, store: self
            ) { body in
                body(UnsafeMutableRawPointer(core.value.state))
            }
            madeHost = host
            return host
        }
    }

    /// The store's identity in messages.
    private var address: UInt {
        UInt(bitPattern: ObjectIdentifier(self))
    }

    /// Whether the store was released or its page closed.
    var isTornDown: Bool {
        drain.locked { shared.isTornDown }
    }

    /// Ends what ends with the store (its release, or its page's close): cancels its effects, then
    /// runs its teardown. Later effects do not start; later handlers run at once.
    func tearDown() {
        // From inside the store's own work (a page closed by its middleware): what it reduced
        // before the close is the state it keeps; anything later is never published.
        if drain.isAccessibleFromCurrentThread {
            drain.publishIfNeeded()
        }
        let (teardown, effects) = drain.locked { () -> (Teardown?, EffectRunner?) in
            shared.isTornDown = true
            return (shared.teardown, shared.effects)
        }
        effects?.close()
        teardown?.run()
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
        self.init(
            initialState: initialState,
            reducer: Reducer(reSwift: reSwiftReducer),
            middleware: middleware,
            effects: [],
            diagnostics: nil,
            publishing: StatePublishing(State.self)
        )
    }

    /// The current state: a snapshot, safe to read from any thread, that never waits for an
    /// action in progress.
    ///
    /// From another thread, it is the state after the last action reduced whose subscribers are
    /// being (or have been) notified; from inside this store's middleware and callbacks, it is the
    /// state being processed. Must not be read from inside this store's own reducer, which is given
    /// the state to change: that stops the program with a message saying so.
    public var state: State {
        if drain.isAccessibleFromCurrentThread {
            requireProperUse(
                !drain.isReducingOnCurrentThread,
                "\(description).state was read inside the store's own reducer: use the reducer's `state` parameter, which is the state being changed."
            )
            return core.value.state.pointee
        }
        return drain.locked { shared.state.pointee }
    }

    /// The number of live subscriptions: closure subscribers, consumers (each counted once, however
    /// many times it was subscribed) and action listeners. Useful in leak tests.
    public var subscriberCount: Int {
        drain.locked { shared.subscriberCount }
    }

    /// The store's type and identity, for messages: `Store<AppState>(0x…)`.
    public var description: String {
        ConsumerHost.describe(isStore: true, stateType: State.self, address: address)
    }

    /// Sends `action` through the middleware to the reducer, then notifies subscribers.
    ///
    /// Safe from any thread; see the type's documentation for ordering and re-entrancy.
    ///
    /// - Parameter action: What happened.
    /// - Complexity: Without contention and with no one to notify, two lock round trips, no
    ///   allocation, and a copy of the state's bytes that retains only the references the action
    ///   changed (once the store has published about a thousand states; a weak or unowned field
    ///   keeps the whole copy and a third round trip), plus the subscribers' work.
    public func dispatch(_ action: any Action) {
        dispatch(action, as: .dispatch)
    }

    /// Dispatches `action`, forwarded from another store (see ``Drain/Kind/forward``): the
    /// actions forwarded from one store are reduced in that store's order.
    func dispatchForwarded(_ action: ForwardedAction) {
        dispatch(action, as: .forward)
    }

    private func dispatch(_ action: any Action, as kind: Drain.Kind) {
        ThreadContext.withCurrent { context in
            guard let generation = generation(of: action, in: context) else { return }
            drain.submit(
                kind, generation: generation, context: context, { process(action, context: context) },
                queueing: { { [self] in process(action) } })
        }
    }

    /// The place in its chain of an action submitted on the thread of `context` (one more than the
    /// action being processed there, if any), or `nil`, with a diagnostic, beyond ``chainLimit``.
    // Inline, the diagnostic not: on every dispatch.
    @inline(__always)
    private func generation(of action: any Action, in context: ThreadContext) -> Int? {
        let generation = context.isHolder ? context.generation + 1 : 0
        guard generation <= Self.chainLimit else {
            diagnoseChainLimit(dropping: action, generation: generation)
            return nil
        }
        return generation
    }

    @inline(never)
    private func diagnoseChainLimit(dropping action: any Action, generation: Int) {
        diagnose(
            "\(description): dropped \(String(reflecting: action)): it would be action number \(generation + 1) of a chain in which each action was dispatched while processing the previous one (limit \(Self.chainLimit)). A consumer, middleware or reducer that dispatches on every change?"
        )
    }

    /// Adds a middleware after creation; it becomes the innermost one (closest to the reducer).
    ///
    /// Takes effect from the next action on. Only `middleware` is built (its factory called once,
    /// as every middleware's is): the middleware already there keep their closures, and what they
    /// keep in them.
    ///
    /// - Parameter middleware: The middleware to add.
    /// - Complexity: O(1) in the number of middleware the store has.
    public func addMiddleware(_ middleware: @escaping Middleware<State>) {
        perform(.dispatch) { store in
            let core = store.core.value
            let end = store.makeChainEnd()
            let added = store.build(middleware, next: store.nextFunction(running: { end.run($0) }))
            // The old end leads to the new middleware, whose `next` leads to the new end.
            if let oldEnd = core.chainEnd {
                oldEnd.lead(to: added)
            } else {
                core.chain = added
            }
            core.chainEnd = end
        }
    }

    /// Runs `body` as a job of this store's drain (see ``Drain`` for when).
    func perform(_ kind: Drain.Kind, _ body: @escaping @Sendable (Store) -> Void) {
        drain.submit(kind, generation: ThreadContext.current.generation) { [self] in body(self) }
    }

    /// The middleware chain, and its end: each middleware's `next` is a ``nextFunction(running:)``
    /// of the rest of the chain; the innermost one's leads through the end (a ``ChainEnd``, which
    /// ``addMiddleware(_:)`` re-points) to ``reduceInChain(_:)``. Calls each factory once.
    private func makeChain(_ middleware: [Middleware<State>]) -> (chain: DispatchFunction, end: ChainEnd) {
        let end = makeChainEnd()
        let innermost = nextFunction(running: { end.run($0) })
        var next = innermost
        var chain: DispatchFunction = innermost
        for (index, middleware) in middleware.enumerated().reversed() {
            chain = build(middleware, next: next)
            if index > 0 {
                next = nextFunction(running: chain)
            }
        }
        return (chain, end)
    }

    /// A chain end that leads to ``reduceInChain(_:)``.
    private func makeChainEnd() -> ChainEnd {
        ChainEnd(leadingTo: { [weak self] action in self?.reduceInChain(action) }, drain: drain)
    }

    /// Calls `middleware`'s factory with the store's `dispatch` and `getState`, then with `next`.
    private func build(_ middleware: Middleware<State>, next: @escaping DispatchFunction) -> DispatchFunction {
        let dispatch: DispatchFunction = { [weak self] action in self?.dispatch(action) }
        let getState: GetState<State> = { [weak self] in self?.state }
        return middleware(dispatch, getState)(next)
    }

    /// The `next` a middleware is given: runs `inner` (the rest of the chain) at once when called
    /// from the chain running on this store's thread; called from anywhere else (later, from
    /// another thread, or from this store's reducer or callbacks, where a middleware kept it),
    /// queues a job that runs `inner` as the store's processing of the action, as a dispatch
    /// made there would be queued: never inside the reducer or the callbacks of another action.
    private func nextFunction(running inner: @escaping DispatchFunction) -> DispatchFunction {
        { [weak self] action in self?.next(action, running: inner) }
    }

    private func next(_ action: any Action, running inner: @escaping DispatchFunction) {
        if drain.isAccessibleFromCurrentThread, !drain.isReleasingPublished, core.value.isRunningChain {
            inner(action)
            return
        }
        // A middleware that calls `next` later, from another thread, from a `deinit` the release
        // of a published state runs, or from the store's own reducer or callbacks.
        ThreadContext.withCurrent { context in
            guard let generation = generation(of: action, in: context) else { return }
            drain.submit(
                .dispatch, generation: generation, context: context, { runChain(inner, action) },
                queueing: { { [self] in runChain(inner, action) } })
        }
    }

    /// Runs one action: through the middleware, or straight to the reducer.
    ///
    /// - Parameter context: The calling thread's context, when the caller has it at hand.
    func process(_ action: any Action, context: ThreadContext = .current) {
        guard let chain = core.value.chain else {
            reduceAndNotify(action, context: context)
            return
        }
        runChain(chain, action)
    }

    /// Runs `chain` (the whole middleware chain, or the part after one middleware) for `action`,
    /// as the store's processing of it. Call from a job of the store.
    private func runChain(_ chain: DispatchFunction, _ action: any Action) {
        let core = core.value
        let isOutermost = beginAction(core)
        let wasRunningChain = core.isRunningChain
        core.isRunningChain = true
        chain(action)
        core.isRunningChain = wasRunningChain
        endAction(core, isOutermost: isOutermost)
    }

    /// Marks `core` as processing an action (see ``StoreCore/isInAction``); returns whether this
    /// is the outermost mark, the one to pass to ``endAction(_:isOutermost:)``.
    @inline(__always)
    private func beginAction(_ core: StoreCore<State>) -> Bool {
        let isOutermost = !core.isInAction
        core.isInAction = true
        return isOutermost
    }

    /// Ends the mark of ``beginAction(_:)``: the outermost one lets in the closures and listeners
    /// registered meanwhile.
    @inline(__always)
    private func endAction(_ core: StoreCore<State>, isOutermost: Bool) {
        guard isOutermost else { return }
        core.isInAction = false
        if !core.joinAfterAction.isEmpty {
            joinLateRegistrations(core)
        }
    }

    /// Registers the closures and listeners that waited for the action to end, in the order they
    /// were registered.
    private func joinLateRegistrations(_ core: StoreCore<State>) {
        let late = core.joinAfterAction
        core.joinAfterAction = []
        for register in late {
            register()
        }
    }

    /// Runs `register`, a closure subscriber's or a listener's registration, now, or once the
    /// action in progress is over (it starts with the next action).
    func registerAfterAction(_ core: StoreCore<State>, _ register: @escaping () -> Void) {
        if core.isInAction {
            core.joinAfterAction.append(register)
        } else {
            register()
        }
    }

    /// The end of the middleware chain, reached from a ``nextFunction(running:)`` while the chain
    /// runs on this store's thread: reduces and notifies. The reducer and the callbacks are not
    /// the chain: a middleware's `next` they call is queued.
    private func reduceInChain(_ action: any Action) {
        let core = core.value
        assert(core.isRunningChain, "the end of the middleware chain was reached outside the chain")
        core.isRunningChain = false
        reduceAndNotify(action, context: .current, core: core)
        core.isRunningChain = true
    }

    /// Reduces `action`, then notifies. The new state is published for other threads before anyone
    /// is notified, or, when there is no one to notify, when the job is done, in the lock round
    /// trip the drain makes then anyway.
    private func reduceAndNotify(_ action: any Action, context: ThreadContext) {
        core.withValue { reduceAndNotify(action, context: context, core: $0) }
    }

    private func reduceAndNotify(_ action: any Action, context: ThreadContext, core: StoreCore<State>) {
        let isOutermost = beginAction(core)
        defer { endAction(core, isOutermost: isOutermost) }
        let state = core.state
        // A state reduced earlier in this job, not published yet: the closure subscribers' `old`.
        drain.publishIfNeeded()
        if core.closures.isEmpty {
            drain.reducing(context: context) { reducer.reduce(&state.pointee, action) }
            drain.needsPublish()
            drain.runDeferred()
            notify(core, old: nil, action: action)
        } else {
            // Only this thread writes the published state, so it may read it without the lock.
            var old = shared.state.pointee
            drain.reducing(context: context) { reducer.reduce(&state.pointee, action) }
            drain.needsPublish()
            drain.runDeferred()
            withUnsafeMutablePointer(to: &old) { notify(core, old: UnsafeMutableRawPointer($0), action: action) }
        }
    }
}
