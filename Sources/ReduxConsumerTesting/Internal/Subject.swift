import ReduxConsumer

/// The store a test store drives: a plain ``Store``, or a ``PageStore`` (whose global state type
/// the test store does not carry, so its page-only operations are kept here as closures).
struct Subject<State: Sendable>: Sendable {
    /// The page under test, for ``TestStore/page(of:)``; `nil` for a plain store.
    let page: (any Sendable & AnyObject)?
    let state: @Sendable () -> State
    let dispatch: @Sendable (any Action) -> Void
    let send: @Sendable (any Action) async -> Void
    let effectsIdle: @Sendable () async -> Void
    /// What the running effects were started by, oldest first.
    let runningEffects: @Sendable () -> [String]
    let isClosed: @Sendable () -> Bool
    /// The page's operations on its global store, and its `close()`; `nil` for a plain store.
    let pageOperations: PageOperations?

    struct PageOperations: Sendable {
        /// Whether the page passed the action on (`false`: it was closed).
        let dispatchGlobal: @Sendable (any Action) -> Bool
        /// Whether the page passed the action on (`false`: it was closed).
        let sendGlobal: @Sendable (any Action) async -> Bool
        let close: @Sendable () -> Void
    }

    init(store: Store<State>) {
        page = nil
        state = { store.state }
        dispatch = { store.dispatch($0) }
        send = { await store.send($0) }
        // Weak: a test store that stops waiting for effects that never end must not keep its store
        // alive through the wait it gave up on.
        effectsIdle = { [weak store] in
            guard let wait = store?.effectsIdleWithoutTheStore else { return }
            await wait()
        }
        runningEffects = { store.runningEffects }
        isClosed = { false }
        pageOperations = nil
    }

    init<GlobalState>(page: PageStore<State, GlobalState>) {
        self.page = page
        state = { page.state }
        dispatch = { page.dispatch($0) }
        send = { await page.send($0) }
        effectsIdle = { [weak page] in
            guard let wait = page?.effectsIdleWithoutThePage else { return }
            await wait()
        }
        runningEffects = { page.runningEffects }
        isClosed = { page.isClosed }
        pageOperations = PageOperations(
            dispatchGlobal: { page.dispatchGlobalIfOpen($0) },
            sendGlobal: { await page.sendGlobalIfOpen($0) },
            close: { page.close() }
        )
    }
}

extension PageStore {
    /// What the page's running effects were started by, oldest first.
    ///
    /// `PageStore` does not expose its inner store's `runningEffects` (a `package` property of
    /// `Store`), so it is read through reflection of the page's stored `store`. Invariant: the page
    /// keeps its inner `Store<State>` in a stored property named `store`; the test
    /// `finishNamesAnEffectStillRunningOnThePage` fails if that changes. Replace this with
    /// `runningEffects` once `PageStore` has it.
    var runningEffects: [String] {
        guard let store = Mirror(reflecting: self).descendant("store") as? Store<State> else {
            assertionFailure("PageStore no longer keeps its inner store in `store`: update TestStore's bridge")
            return []
        }
        return store.runningEffects
    }
}
