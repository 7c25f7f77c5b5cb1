import Dispatch
import ReduxConsumer
import ReduxConsumerTesting
import Testing

/// The seed's MainVc page tested as a unit: its reducer, its middleware (a follow-up action and a
/// global action) and its consumers, from a stub global state. Copy this to test a page.
struct MainPageTests {
    /// A stub global state, and a fetcher that answers at once, on the calling thread.
    static func makeTestStore(
        app: AppState = AppState(foreground: true, badge: 10),
        fetchCount: @escaping CountFetcher = { completion in completion(42) }
    ) -> (TestStore<MainState>, Store<AppState>) {
        let appStore = Store(initialState: app, reducer: appReducer)
        let store = TestStore(
            global: appStore,
            initialState: MainState.init(app:),
            reducer: mainReducer,
            middleware: [mainMiddleware(global: appStore, fetchCount: fetchCount)]
        )
        return (store, appStore)
    }

    @Test(arguments: [0, 10, 99])
    func pageStartsFromTheCountOnTheAppBadge(badge: Int) {
        let (store, _) = Self.makeTestStore(app: AppState(badge: badge))
        #expect(store.state.count == badge)
        store.finish()
    }

    @Test func incrementUpdatesTheCountLabel() {
        let (store, _) = Self.makeTestStore()
        let screen = MainScreenModel()
        screen.bind(to: store.consumer)
        // A probe records the count consumer's callbacks, so the test asserts the "label updates
        // when the count changes" rule, and fails if it fires when it should not.
        let countLabel = store.probe(\.count)

        store.send(MainAction.increment) { $0.count = 11 }
        store.assertFired(countLabel, old: 10, new: 11)
        #expect(screen.countText == "11")

        store.send(MainAction.increment) { $0.count = 12 }
        store.assertFired(countLabel, old: 11, new: 12)
        #expect(screen.countText == "12")
        store.finish()
    }

    @Test func refreshFetchesTheCountAndPushesItToTheAppBadge() {
        let (store, appStore) = Self.makeTestStore()
        let countLabel = store.probe(\.count)

        // The sent action: only the refresh flag changes, so the count consumer stays quiet.
        store.send(MainAction.refresh) { $0.isRefreshing = true }
        // The follow-up the middleware dispatched with the server's answer.
        store.receive(MainAction.refreshed(42)) {
            $0.count = 42
            $0.isRefreshing = false
        }
        store.assertFired(countLabel, old: 10, new: 42)
        // The global action the middleware dispatched to the app's store.
        store.receiveGlobal(AppAction.setBadge(42))
        #expect(appStore.state.badge == 42)
        store.finish()
    }

    @Test func refreshAnsweredLaterFromAnotherThreadIsReceived() {
        // The server answers on another thread, after `send` has returned: `receive` waits for the
        // action (not for a fixed time) and returns as soon as it is reduced.
        let (store, appStore) = Self.makeTestStore(fetchCount: { completion in
            DispatchQueue.global().async { completion(7) }
        })
        let screen = MainScreenModel()
        screen.bind(to: store.consumer)

        store.send(MainAction.refresh) { $0.isRefreshing = true }
        store.receive(MainAction.refreshed(7), timeout: 5) {
            $0.count = 7
            $0.isRefreshing = false
        }
        #expect(screen.countText == "7")
        store.receiveGlobal(AppAction.setBadge(7), timeout: 5)
        #expect(appStore.state.badge == 7)
        store.finish()
    }

    @Test func anInfiniteTimeoutWaitsForTheAction() {
        // `.infinity` means "as long as it takes" (up to a day), not "do not wait": the answer
        // comes from another thread, usually after `receive` has started waiting.
        let (store, _) = Self.makeTestStore(fetchCount: { completion in
            DispatchQueue.global().async { completion(9) }
        })
        store.send(MainAction.refresh) { $0.isRefreshing = true }
        store.receive(MainAction.refreshed(9), timeout: .infinity) {
            $0.count = 9
            $0.isRefreshing = false
        }
        store.receiveGlobal(AppAction.setBadge(9), timeout: .infinity)
        store.finish()
    }

    @Test func timeoutsAreClampedToADay() {
        #expect(Deadline.clamped(.infinity) == 86_400)
        #expect(Deadline.clamped(1e300) == 86_400)
        #expect(Deadline.clamped(2.5) == 2.5)
        #expect(Deadline.clamped(-1) == 0)
        #expect(Deadline.clamped(-.infinity) == 0)
        #expect(Deadline.clamped(.nan) == 0)
        #expect(!Deadline(secondsFromNow: .infinity).hasPassed)
        #expect(Deadline(secondsFromNow: .nan).hasPassed)
    }

    @Test func integrationTestChecksOnlyWhatItNames() {
        let (store, _) = Self.makeTestStore()
        store.exhaustivity = .off

        // Non-exhaustive: `isRefreshing` and the badge action go unchecked.
        store.send(MainAction.refresh)
        store.receive(MainAction.refreshed(42)) { $0.count = 42 }
        store.finish()
    }
}
