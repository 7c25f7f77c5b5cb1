import ReduxConsumer
import ReduxConsumerTestSupport
import ReduxConsumerTesting
import Testing

/// A page test store drives a real `PageStore`: what a page does beyond its reducer (its initial
/// state from the global state, forwarding, global consumers, global actions, `close()`, effects
/// cancelled with the page) is tested through the test store.
struct PageTestStoreTests {
    /// The search page on a stub global state, its effect asking `backend`.
    static func makeStore(
        app: AppState = AppState(foreground: true),
        backend: @escaping SearchBackend = { query in [query.uppercased()] }
    ) -> (TestStore<SearchState>, Store<AppState>) {
        let appStore = Store(initialState: app, reducer: appReducer)
        let store = TestStore(
            global: appStore,
            initialState: SearchState.init(app:),
            reducer: searchReducer,
            middleware: [badgeMiddleware(global: appStore)],
            effects: [searchEffect(backend: backend)]
        )
        return (store, appStore)
    }

    // MARK: The page

    @Test func theTestStoreDrivesARealPage() {
        let (store, appStore) = Self.makeStore()
        let page = store.page(global: AppState.self)
        #expect(page.consumer === store.consumer)
        #expect(page.global === appStore)
        store.send(SearchAction.failed("x")) { $0.error = "x" }
        #expect(page.state == store.state)
        store.finish()
    }

    @Test(arguments: [true, false])
    func thePageStartsFromTheGlobalState(foreground: Bool) {
        let (store, _) = Self.makeStore(app: AppState(foreground: foreground))
        #expect(store.state.isPaused == !foreground)
        store.finish()
    }

    // MARK: Global actions

    @Test func aForwardedGlobalActionIsReceivedByThePage() {
        let (store, appStore) = Self.makeStore()
        store.page(global: AppState.self).forwardActions { $0 is AppAction }
        store.sendGlobal(AppAction.enterBackground)
        #expect(appStore.state.foreground == false)
        store.receive(AppAction.enterBackground) { $0.isPaused = true }
        // The test sent the global action itself: it is not left for `receiveGlobal`.
        store.finish()
    }

    @Test func aGlobalActionThePageDoesNotForwardLeavesItAlone() {
        let (store, appStore) = Self.makeStore()
        store.sendGlobal(AppAction.enterBackground)
        #expect(appStore.state.foreground == false)
        #expect(store.state.isPaused == false)
        store.finish()
    }

    @Test func thePagesGlobalConsumersReadTheGlobalState() async {
        let (store, _) = Self.makeStore()
        let banner = Recorder<String>()
        store.page(global: AppState.self).globalConsumer.add(\.foreground) { old, new in
            banner.append("foreground: \(old) → \(new)")
        }
        await store.sendGlobal(AppAction.enterBackground)
        await store.sendGlobal(AppAction.enterForeground)
        #expect(banner.values == ["foreground: true → false", "foreground: false → true"])
        await store.finish()
    }

    @Test func aGlobalActionThePageDispatchesIsReceivedGlobally() async {
        let (store, appStore) = Self.makeStore()
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        await store.receive(SearchAction.results(["SWIFT"]), timeout: patience) {
            $0.isSearching = false
            $0.results = ["SWIFT"]
        }
        await store.receiveGlobal(AppAction.setBadge(1), timeout: patience)
        #expect(appStore.state.badge == 1)
        await store.finish()
    }

    @Test func aGlobalActionLeftUnassertedFailsAtFinish() async {
        let (store, _) = Self.makeStore()
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        await store.receive(SearchAction.results(["SWIFT"]), timeout: patience) {
            $0.isSearching = false
            $0.results = ["SWIFT"]
        }
        await expectFailure("The test did not assert 1 global action before finish():\n  setBadge(1)") {
            await store.finish()
        }
    }

    // MARK: Closing

    @Test func closingThePageCancelsItsEffects() async {
        let cancelled = Flag()
        let (store, _) = Self.makeStore(backend: { _ in
            _ = await withTaskCancellationHandler {
                await Gate().wait()
            } onCancel: {
                cancelled.set()
            }
            throw CancellationError()
        })
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        store.close()
        #expect(store.page(global: AppState.self).isClosed)
        // A closed page's effects are not reported; finish waits for them to wind down.
        await store.finish(timeout: patience)
        #expect(cancelled.isSet)
    }

    @Test func aClosedPageNoLongerHearsTheGlobalStore() {
        let (store, appStore) = Self.makeStore()
        store.page(global: AppState.self).forwardActions { $0 is AppAction }
        // Exhaustive: the probe fails the test if the paused consumer fires.
        _ = store.probe(\.isPaused)
        store.close()
        appStore.dispatch(AppAction.enterBackground)
        store.receiveGlobal(AppAction.enterBackground)
        #expect(store.state.isPaused == false)
        store.finish()
        #expect(appStore.subscriberCount == 0, "the page's subscription and the test store's listener are gone")
    }

    @Test(.timeLimit(.minutes(1)))
    func receivingOnAClosedPageFailsAtOnceInsteadOfWaitingOutItsTimeout() async {
        let (store, _) = Self.makeStore()
        store.close()
        let message =
            "Expected to receive search(\"swift\"), but the page is closed (a closed page reduces no action), and nothing was received."
        // Each would wait two minutes if it waited out its timeout: the time limit fails it.
        expectFailure(message) { store.receive(SearchAction.search("swift"), timeout: 120) }
        await expectFailure(message) { await store.receive(SearchAction.search("swift"), timeout: 120) }
        await store.finish()
    }

    @Test func sendingToAClosedPageFails() async {
        let (store, _) = Self.makeStore()
        store.close()
        await expectFailure("send(search(\"swift\")) after close(): a closed page ignores every action.") {
            await store.send(SearchAction.search("swift"))
        }
        expectFailure("sendGlobal(enterBackground) after close(): a closed page ignores every action.") {
            store.sendGlobal(AppAction.enterBackground)
        }
        #expect(store.state == SearchState())
        await store.finish()
    }

    // MARK: Effects

    @Test func finishNamesAnEffectStillRunningOnThePage() async {
        let gate = Gate()
        let (store, _) = Self.makeStore(backend: { query in
            guard await gate.wait() else { throw CancellationError() }
            return [query]
        })
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        expectFailure("1 effect was still running at finish(), started by:\n  search(\"swift\")") {
            store.finish(timeout: 0)  // the effect waits for a gate that never opens: no use waiting
        }
    }

    // MARK: Misuse

    @Test func pageStepsFailOnATestStoreWithoutAPage() {
        let store = TestStore(initialState: SearchState(), reducer: searchReducer)
        let advice = "needs a page: make the test store with TestStore(global:initialState:reducer:…)."
        expectFailure("sendGlobal(enterBackground) \(advice)") {
            store.sendGlobal(AppAction.enterBackground)
        }
        expectFailure("close() \(advice)") {
            store.close()
        }
        store.finish()
    }
}
