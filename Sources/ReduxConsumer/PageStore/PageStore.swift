import Dispatch

/// A small store owned by one screen, request, session or job, beside the global store: its state
/// lives exactly as long as its owner, and the global state keeps only what is truly global.
///
/// The owner creates the page from the global state, consumes the page state and the global state
/// through consumers whose lifetime is the page's, and dispatches to the global store when global
/// state must change. Here a screen watches a global flag and a count of its own at once:
///
/// ```swift
/// final class MainScreen: Sendable {
///     let page: PageStore<MainState, AppState>
///
///     init(appStore: Store<AppState>) {
///         page = PageStore(
///             global: appStore,
///             initialState: { app in MainState(count: app.auth.isLoggedIn ? 10 : 0) },
///             reducer: mainReducer
///         )
///         page.globalConsumer.add(\.foreground, owner: self) { screen, old, new in
///             print("AppState.foreground: \(old) → \(new)")
///         }
///         page.consumer.add(\.count, owner: self) { screen, old, new in
///             print("MainState.count: \(old) → \(new)")
///         }
///     }
///
///     func tap() { page.dispatch(MainAction.increment) }
///     func logOut() { page.dispatchGlobal(AuthAction.logout) }
/// }
/// ```
///
/// ## Lifetime
/// The owner holds the page; nothing else needs to. When the page is released, or ``close()`` is
/// called, everything it registered goes: its subscription on the global store, its consumers and
/// their callbacks, its action forwarding, and actions still queued for it. Consumers added with
/// the `owner:` form of `StateConsumer.add` hold their owner weakly, so the owner → page →
/// consumer → callback chain never loops back. A callback that captures its owner strongly does
/// make a cycle: use the `owner:` form.
///
/// ## Children
/// Child owners (a panel inside the screen) share the page by holding it and adding their own
/// consumers to ``consumer`` and ``globalConsumer``, with their tokens in their own
/// ``ConsumerBag``; a child that goes removes its consumers and leaves the page and the other
/// children untouched:
///
/// ```swift
/// final class CountBadge: Sendable {
///     let bag = ConsumerBag()
///
///     init(page: PageStore<MainState, AppState>) {
///         page.consumer.add(\.count, owner: self) { badge, _, new in badge.show(new) }.store(in: bag)
///     }
/// }
/// ```
///
/// A page is one subscriber of the global store once its ``globalConsumer`` is used, plus one
/// action listener per ``forwardActions(where:)`` call: a page that watches nothing global and
/// forwards nothing costs a global dispatch nothing.
///
/// ## Threads
/// Create, use, close and release a page on any thread, while the global store is dispatched from
/// others. The page's actions are ordered exactly as a ``Store``'s (it is one inside); its
/// consumers run on the thread that processes the page or the global store, or on the queue given
/// at creation.
public final class PageStore<State: Sendable, GlobalState: Sendable>: Sendable {
    /// The global store this page reads and dispatches to; the page keeps it alive.
    public let global: Store<GlobalState>

    /// Consumers of the page state, removed when the page is closed or released.
    ///
    /// Consumers added here start from the page's current state. Made and subscribed to the page
    /// on first use; after ``close()`` it is never fed.
    public var consumer: StateConsumer<State> {
        if let consumer = lifecycle.withLock({ $0.consumer }) { return consumer }
        return install(StateConsumer<State>(deliveringOn: queue), on: store, at: \.consumer)
    }

    /// Consumers of the global state whose lifetime is the page's, removed when the page is closed
    /// or released.
    ///
    /// Consumers added here start from the global store's current state. Made and subscribed to
    /// the global store on first use: a page that never uses it costs the global store nothing.
    public var globalConsumer: StateConsumer<GlobalState> {
        if let consumer = lifecycle.withLock({ $0.globalConsumer }) { return consumer }
        return install(StateConsumer<GlobalState>(deliveringOn: queue), on: global, at: \.globalConsumer)
    }

    let store: Store<State>
    private let lifecycle: Lock<Lifecycle>
    private let queue: DispatchQueue?
    private let diagnose: @Sendable (String) -> Void

    private struct Lifecycle {
        var isClosed = false
        /// Made on first use (see ``PageStore/consumer`` and ``PageStore/globalConsumer``).
        var consumer: StateConsumer<State>?
        var globalConsumer: StateConsumer<GlobalState>?
        /// Everything to cancel on close: the consumer subscriptions, the forwarding listeners.
        var registrations: [any Cancellable] = []
        /// The close, run once (see ``RunOnce``).
        var closing = RunOnce(())
    }

    /// Subscribes a new `consumer` to `store` and keeps it at `slot`, unless another thread did
    /// first (then that one is returned and this one dropped) or the page closed meanwhile (then
    /// it stays unsubscribed). The subscription is made outside the lifecycle lock: it may wait
    /// for a store that is busy with a callback which needs that lock.
    private func install<Value: Sendable>(
        _ consumer: StateConsumer<Value>,
        on store: Store<Value>,
        at slot: WritableKeyPath<Lifecycle, StateConsumer<Value>?>
    ) -> StateConsumer<Value> {
        guard !isClosed else {
            return lifecycle.withLock { lifecycle in
                if let existing = lifecycle[keyPath: slot] { return existing }
                lifecycle[keyPath: slot] = consumer
                return consumer
            }
        }
        let subscription = store.subscribe(consumer)
        let kept = lifecycle.withLock { lifecycle -> StateConsumer<Value>? in
            if let existing = lifecycle[keyPath: slot] { return existing }
            // Closed meanwhile: kept only once unsubscribed (below), so that no thread gets a
            // consumer the closed page still feeds.
            guard !lifecycle.isClosed else { return nil }
            lifecycle[keyPath: slot] = consumer
            lifecycle.registrations.append(subscription)
            return consumer
        }
        if let kept, kept === consumer {
            return kept
        }
        subscription.cancel()
        if let kept {
            return kept
        }
        return lifecycle.withLock { lifecycle in
            if let existing = lifecycle[keyPath: slot] { return existing }
            lifecycle[keyPath: slot] = consumer
            return consumer
        }
    }

    /// Creates a page store whose initial state is built from the global state.
    ///
    /// Do not create a page from inside the global store's reducer: that stops the program with a
    /// message saying so.
    ///
    /// - Parameters:
    ///   - global: The global store; the page keeps it alive.
    ///   - initialState: Builds the page's initial state from the current global state; called once,
    ///     before `init` returns.
    ///   - reducer: The page's reducer; it also receives the global actions the page forwards.
    ///   - middleware: The page's middleware, outermost first; forwarded global actions skip it.
    ///   - effects: Async work the page's actions start (see ``Effect``); cancelled when the page
    ///     closes or is released.
    ///   - queue: Where the page's consumers call back. `nil` (the default) calls them synchronously
    ///     on the thread that processes the state; see ``StateConsumer/init(deliveringOn:)``.
    ///   - diagnostics: Told about misuse that is ignored rather than trapped, such as a dispatch
    ///     after ``close()``, and about what the page's store survives, as a store's
    ///     `diagnostics` are (a runaway chain of dispatches, an effect that threw). `nil` (the
    ///     default) writes misuse to standard error in debug builds of the library only, and the
    ///     rest to standard error.
    public init(
        global: Store<GlobalState>,
        initialState: (GlobalState) -> State,
        reducer: Reducer<State>,
        middleware: [Middleware<State>] = [],
        effects: [Effect<State>] = [],
        deliveringOn queue: DispatchQueue? = nil,
        diagnostics: (@Sendable (_ message: String) -> Void)? = nil
    ) {
        requireProperUse(
            !global.drain.isReducingOnCurrentThread,
            "PageStore<\(State.self), \(GlobalState.self)> was created inside the reducer of its global store \(global): a reducer must only change the state it is given. Create pages where their owner lives (a screen, a request handler, a task), or from a middleware or a callback."
        )
        let lifecycle = Lock(Lifecycle())
        let isClosed: @Sendable () -> Bool = { lifecycle.withLock { $0.isClosed } }
        let store = Store(
            initialState: initialState(global.state),
            reducer: reducer.forPage(isClosed: isClosed),
            middleware: middleware.map { pageMiddleware($0, isClosed: isClosed) },
            effects: effects,
            // What the page's own store survives (a runaway chain, an effect that threw) goes to
            // the page's diagnostics too; without them, to standard error like any store's.
            diagnostics: diagnostics
        )
        self.global = global
        self.store = store
        self.queue = queue
        self.lifecycle = lifecycle
        self.diagnose =
            diagnostics ?? { message in
                #if DEBUG
                    writeLineToStandardError(message)
                #endif
            }
    }

    deinit {
        release()
    }

    /// The current page state: a snapshot, safe to read from any thread.
    ///
    /// After ``close()`` it stays what it was when the page closed.
    public var state: State {
        store.state
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool {
        lifecycle.withLock { $0.isClosed }
    }

    /// Sends `action` through the page's middleware to its reducer, then notifies its consumers.
    ///
    /// Ordering and re-entrancy are those of ``Store/dispatch(_:)``. After ``close()`` the action
    /// is ignored and reported to the page's diagnostics.
    ///
    /// - Parameter action: What happened on the page.
    public func dispatch(_ action: any Action) {
        guard accepts(action, in: "dispatch") else { return }
        store.dispatch(action)
    }

    /// Sends `action` to the global store, for changes to the global state.
    ///
    /// After ``close()`` the action is ignored and reported to the page's diagnostics: a page that
    /// is done no longer speaks for its owner.
    ///
    /// - Parameter action: What happened, for the global store.
    public func dispatchGlobal(_ action: any Action) {
        _ = dispatchGlobalIfOpen(action)
    }

    /// ``dispatchGlobal(_:)``, saying whether the page passed `action` on (`false`: it was closed,
    /// and the action was ignored and reported), for a test store that must tell which.
    package func dispatchGlobalIfOpen(_ action: any Action) -> Bool {
        guard accepts(action, in: "dispatchGlobal") else { return false }
        global.dispatch(action)
        return true
    }

    /// Forwards the global actions that `isForwarded` accepts into the page's reducer, from now
    /// until the page closes.
    ///
    /// The page listens to ``global`` with ``Store/observeActions(_:)``: a forwarded action reaches
    /// the page after the global store reduced it and notified its subscribers (so the page's
    /// global consumers have fired), and goes to the page's reducer only, skipping the page's
    /// middleware: a page middleware that dispatches to the global store cannot bounce a forwarded
    /// action back and forth. Global actions that a global middleware swallowed are not forwarded.
    ///
    /// ```swift
    /// page.forwardActions { $0 is AuthAction }
    /// ```
    ///
    /// Actions the global store reduces while the page is being created and before this call are
    /// neither in the initial state nor forwarded. Each call adds one listener to ``global`` (it
    /// counts in its ``Store/subscriberCount``), removed when the page closes or is released.
    ///
    /// - Parameter isForwarded: Decides which global actions the page's reducer sees; called on the
    ///   thread that processes the global store.
    public func forwardActions(where isForwarded: @escaping @Sendable (_ action: any Action) -> Bool) {
        // The page's parts, not the page: a listener that held the page while `isForwarded` runs
        // would keep it alive after its owner let go, and forward into it after the release
        // returned. Holding the parts, the page is released with its owner, and the release
        // waits for a listener call in progress before it returns (guarantee 1).
        let subscription = global.observeActions { [store, lifecycle] action in
            // Closed first: a listener registered while the page closed stays on the global store
            // until this call cancels it, after `close()` may have returned (guarantee 1).
            guard !lifecycle.withLock({ $0.isClosed }), isForwarded(action) else { return }
            store.dispatchForwarded(ForwardedAction(action: action))
        }
        let isAccepted = lifecycle.withLock { lifecycle in
            guard !lifecycle.isClosed else { return false }
            lifecycle.registrations.append(subscription)
            return true
        }
        if !isAccepted {
            subscription.cancel()
            diagnose("\(Self.self): forwardActions(where:) after close() was ignored.")
        }
    }

    /// Ends the page before its owner deinitialises (a request that finished): its subscriptions,
    /// consumers, forwarding and effects end at once, its async sequences finish, and later
    /// dispatches are ignored.
    ///
    /// Idempotent, and safe from any thread, including from inside the page's own callbacks. When
    /// it returns, no consumer of the page is called again (with the guarantees of
    /// ``StateConsumer/remove(_:)``). ``state`` keeps its last value.
    public func close() {
        release()
    }

    private func release() {
        // A later close, on another thread, returns once the first one is done (see `RunOnce`).
        lifecycle.runOnce(\.closing) { _ in
            let (registrations, globalConsumer, consumer) = lifecycle.withLock {
                lifecycle -> ([any Cancellable], StateConsumer<GlobalState>?, StateConsumer<State>?) in
                lifecycle.isClosed = true
                defer { lifecycle.registrations = [] }
                return (lifecycle.registrations, lifecycle.globalConsumer, lifecycle.consumer)
            }
            for registration in registrations {
                registration.cancel()
            }
            globalConsumer?.removeAll()
            consumer?.removeAll()
            store.tearDown()
        }
    }

    func accepts(_ action: any Action, in method: String) -> Bool {
        guard isClosed else { return true }
        diagnose("\(Self.self): \(method)(\(String(reflecting: action))) after close() was ignored.")
        return false
    }
}
