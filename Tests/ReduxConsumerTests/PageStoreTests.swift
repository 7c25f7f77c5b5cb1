import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct PageStoreTests {
    @Test func mainScreenConsumesGlobalAndPageStateUntilItGoes() {
        let global = makeRootStore(RootState(auth: AuthState(user: "son")))
        let start = global.subscriberCount
        let log = Recorder<String>()
        var screen: MainScreen? = MainScreen(global: global, log: log)
        weak let weakScreen = screen
        #expect(screen?.page.state == MainState(count: 10))

        global.dispatch(LifecycleAction.enterForeground)
        screen?.page.dispatch(MainAction.increment)
        screen?.page.dispatchGlobal(LifecycleAction.enterBackground)
        screen?.page.dispatch(MainAction.set(42))
        #expect(global.state == RootState(auth: AuthState(user: "son"), foreground: false))

        screen = nil
        #expect(weakScreen == nil)
        #expect(global.subscriberCount == start)
        global.dispatch(LifecycleAction.enterForeground)
        global.dispatch(AuthAction.logOut)
        #expect(
            log.values == [
                "foreground: false → true",
                "count: 10 → 11",
                "foreground: true → false",
                "count: 11 → 42",
            ]
        )
    }

    @Test(arguments: [("son", 10), (nil, 0)] as [(String?, Int)])
    func initialStateIsBuiltFromTheGlobalState(user: String?, count: Int) {
        let global = makeRootStore(RootState(auth: AuthState(user: user)))
        let screen = MainScreen(global: global, log: Recorder())
        #expect(screen.page.state.count == count)
    }

    @Test func pageActionsLeaveTheGlobalStateAlone() {
        let global = makeRootStore()
        let changes = Recorder<RootState>()
        let subscription = global.subscribe { _, new in changes.append(new) }
        let screen = MainScreen(global: global, log: Recorder())
        screen.page.dispatch(MainAction.increment)
        #expect(screen.page.state.count == 1)
        #expect(changes.values.isEmpty)
        subscription.cancel()
    }

    @Test func forwardedGlobalActionsReachThePageAfterItsGlobalConsumers() {
        let global = makeRootStore(RootState(auth: AuthState(user: "son")))
        let log = Recorder<String>()
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        page.forwardActions { $0 is AuthAction }
        page.globalConsumer.add(\.auth.user) { old, new in log.append("user: \(old ?? "nil") → \(new ?? "nil")") }
        page.consumer.add(\.count) { old, new in log.append("count: \(old) → \(new)") }

        global.dispatch(LifecycleAction.enterForeground)
        global.dispatch(AuthAction.logOut)

        #expect(log.values == ["user: son → nil", "count: 10 → 0"])
    }

    @Test func forwardedActionsSkipThePageMiddlewareSoTheyCannotBounce() {
        let global = makeRootStore()
        let globalActions = Recorder<String>()
        let listener = global.observeActions { globalActions.append("\($0)") }
        let pageHolder = Lock<PageStore<MainState, RootState>?>(nil)
        // A page middleware that reports every auth action it sees to the global store: were
        // forwarded actions to pass through it, each logOut would come back forever.
        let reporting: Middleware<MainState> = { _, _ in
            { next in
                { action in
                    if let action = action as? AuthAction {
                        pageHolder.withLock { $0 }?.dispatchGlobal(action)
                    }
                    next(action)
                }
            }
        }
        let page = PageStore(
            global: global,
            initialState: { _ in MainState() },
            reducer: mainReducer,
            middleware: [reporting]
        )
        pageHolder.withLock { $0 = page }
        page.forwardActions { $0 is AuthAction }

        page.dispatch(AuthAction.logOut)

        #expect(globalActions.values == ["logOut"])
        #expect(page.state.count == 0)
        pageHolder.withLock { $0 = nil }
        listener.cancel()
    }

    @Test func childrenSharingAPageKeepFiringWhenOneGoes() {
        let global = makeRootStore()
        let log = Recorder<String>()
        let screen = MainScreen(global: global, log: log)
        let first = CountBadge(name: "first", page: screen.page, log: log)
        var second: CountBadge? = CountBadge(name: "second", page: screen.page, log: log)
        weak let weakSecond = second
        #expect(screen.page.consumer.count == 3)

        screen.page.dispatch(MainAction.increment)
        second = nil
        screen.page.dispatch(MainAction.increment)

        #expect(weakSecond == nil)
        #expect(screen.page.consumer.count == 2)
        #expect(first.bag.count == 1)
        #expect(
            log.values == [
                "count: 0 → 1", "first: 1", "second: 1",
                "count: 1 → 2", "first: 2",
            ]
        )
    }

    @Test func dispatchAfterCloseIsIgnoredAndReported() {
        let global = makeRootStore()
        let start = global.subscriberCount
        let log = Recorder<String>()
        let diagnostics = Recorder<String>()
        let screen = MainScreen(global: global, log: log) { diagnostics.append($0) }
        screen.page.dispatch(MainAction.increment)

        screen.page.close()
        screen.page.dispatch(MainAction.set(99))
        screen.page.dispatchGlobal(LifecycleAction.enterForeground)
        global.dispatch(LifecycleAction.enterForeground)

        #expect(screen.page.isClosed)
        #expect(screen.page.state == MainState(count: 1))
        #expect(global.subscriberCount == start)
        #expect(screen.page.consumer.count == 0)
        #expect(screen.page.globalConsumer.count == 0)
        #expect(log.values == ["count: 0 → 1"])
        #expect(
            diagnostics.values == [
                "PageStore<MainState, RootState>: dispatch(ReduxConsumerTests.MainAction.set(99)) after close() was ignored.",
                "PageStore<MainState, RootState>: dispatchGlobal(ReduxConsumerTests.LifecycleAction.enterForeground) "
                    + "after close() was ignored.",
            ]
        )
    }

    @Test func closeIsIdempotent() {
        let global = makeRootStore()
        let start = global.subscriberCount
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        page.forwardActions { _ in true }
        _ = page.globalConsumer
        // The page's global consumer (made on first use) and its forwarding listener.
        #expect(global.subscriberCount == start + 2)

        page.close()
        page.close()

        #expect(global.subscriberCount == start)
        #expect(page.isClosed)
    }

    @Test func actionsQueuedBeforeCloseAreDropped() {
        let global = makeRootStore()
        let pageHolder = Lock<PageStore<MainState, RootState>?>(nil)
        let seenByMiddleware = Recorder<MainAction>()
        // On `.set(0)`, queue two increments, then close the page before they run.
        let closing: Middleware<MainState> = { dispatch, _ in
            { next in
                { action in
                    guard let action = action as? MainAction else { return next(action) }
                    seenByMiddleware.append(action)
                    next(action)
                    if action == .set(0) {
                        dispatch(MainAction.increment)
                        dispatch(MainAction.increment)
                        pageHolder.withLock { $0 }?.close()
                    }
                }
            }
        }
        let page = PageStore(
            global: global,
            initialState: { _ in MainState() },
            reducer: mainReducer,
            middleware: [closing],
            diagnostics: { _ in }
        )
        pageHolder.withLock { $0 = page }

        page.dispatch(MainAction.set(0))

        #expect(page.state.count == 0)
        #expect(seenByMiddleware.values == [.set(0)])
        pageHolder.withLock { $0 = nil }
    }

    @Test func closingFromInsideItsOwnCallbackStopsTheRestOfThePass() {
        let global = makeRootStore()
        let log = Recorder<String>()
        let diagnostics = Recorder<String>()
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer) {
            diagnostics.append($0)
        }
        let pageRef = Lock<PageStore<MainState, RootState>?>(page)
        page.consumer.add(\.count) { _, new in
            log.append("first: \(new)")
            pageRef.withLock { $0 }?.close()
        }
        page.consumer.add(\.count) { _, new in log.append("second: \(new)") }

        page.dispatch(MainAction.increment)
        page.dispatch(MainAction.increment)

        #expect(log.values == ["first: 11"])
        #expect(diagnostics.values.count == 1)
        pageRef.withLock { $0 = nil }
    }
}
