import ReduxConsumer
import ReduxConsumerTesting
import Testing

/// The README's async page test ("Testing a page"), line for line, so that it compiles and passes
/// as printed there.
struct ReadmeTestStoreTests {
    @Test func searchShowsTheResultsAndPushesTheirCountToTheBadge() async {
        let appStore = Store(initialState: AppState(foreground: true), reducer: appReducer)
        let store = TestStore(
            global: appStore,  // a real PageStore, on a stub global store
            initialState: SearchState.init(app:),
            reducer: searchReducer,
            middleware: [badgeMiddleware(global: appStore)],
            effects: [searchEffect(backend: { query in [query.uppercased()] })]
        )
        store.page(global: AppState.self).forwardActions(where: isForegroundChange)

        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        await store.receive(SearchAction.results(["SWIFT"])) {  // sent by the effect
            $0.isSearching = false
            $0.results = ["SWIFT"]
        }
        await store.receiveGlobal(AppAction.setBadge(1))  // the middleware's global action
        await store.sendGlobal(AppAction.enterBackground)  // the app goes to the background…
        await store.receive(AppAction.enterBackground) { $0.isPaused = true }  // …the page hears it
        await store.finish()  // waits for the effects; fails if one is still running
    }
}
