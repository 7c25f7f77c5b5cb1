import ReduxConsumer
import ReduxConsumerTestSupport
import ReduxConsumerTesting
import Testing

/// Guarantee 5 for test stores: a `TestStore` for a page, with a screen bound to its consumer
/// through `owner:` members and probes, is freed with everything it made, and leaves nothing on
/// its global store.
struct TestStoreLeakTests {
    @Test(arguments: [false, true])
    func pageTestStoreIsFreedWithItsScreenAndProbes(releasesScreenFirst: Bool) {
        let appStore = Store(initialState: AppState(foreground: true, badge: 10), reducer: appReducer)
        let start = appStore.subscriberCount
        let watch = LeakWatch()
        do {
            let store = watch.track(
                TestStore(
                    global: appStore,
                    initialState: MainState.init(app:),
                    reducer: mainReducer,
                    middleware: [mainMiddleware(global: appStore, fetchCount: { $0(42) })]
                ))
            var screen: MainScreenModel? = watch.track(MainScreenModel())
            screen?.bind(to: store.consumer)
            let countLabel = store.probe(\.count)
            watch.track(store.consumer)
            // The test store's record of the global actions (the page's global consumer is made
            // on first use, and nothing here uses it).
            #expect(appStore.subscriberCount == start + 1)

            store.send(MainAction.increment) { $0.count = 11 }
            store.assertFired(countLabel, old: 10, new: 11)
            #expect(screen?.countText == "11")
            if releasesScreenFirst {
                screen = nil
                store.send(MainAction.increment) { $0.count = 12 }
                store.assertFired(countLabel, old: 11, new: 12)
            }
            store.send(MainAction.refresh) { $0.isRefreshing = true }
            store.receive(MainAction.refreshed(42)) {
                $0.count = 42
                $0.isRefreshing = false
            }
            store.assertFired(countLabel, old: releasesScreenFirst ? 12 : 11, new: 42)
            store.receiveGlobal(AppAction.setBadge(42))
            store.finish()
            withExtendedLifetime(screen) {}
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(appStore.subscriberCount == start)
    }

    @Test func testStoreReleasedBeforeFinishingRemovesItsGlobalListener() {
        let appStore = Store(initialState: AppState(), reducer: appReducer)
        let watch = LeakWatch()
        do {
            let store = watch.track(
                TestStore(global: appStore, initialState: MainState.init(app:), reducer: mainReducer))
            store.send(MainAction.increment) { $0.count = 1 }
            // The test store's record of the global actions.
            #expect(appStore.subscriberCount == 1)
            // Everything was asserted: released without `finish()`, it reports nothing.
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(appStore.subscriberCount == 0)
    }
}
