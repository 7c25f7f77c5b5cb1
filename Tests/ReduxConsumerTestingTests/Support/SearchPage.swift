import ReduxConsumer

// A search page with an effect: the fixture of the async, effect and page tests. It reuses the
// global `AppState` of `MainPage.swift`; in the app it would be built as
//
//     let page = PageStore(
//         global: appStore,
//         initialState: SearchState.init(app:),
//         reducer: searchReducer,
//         middleware: [badgeMiddleware(global: appStore)],
//         effects: [searchEffect(backend: api.search)]
//     )
//     page.forwardActions(where: isForegroundChange)

struct SearchState: Equatable, Sendable {
    var query = ""
    var isSearching = false
    var results: [String] = []
    var error: String?
    /// The app is in the background: the page shows a paused banner.
    var isPaused = false

    init(query: String = "", isPaused: Bool = false) {
        self.query = query
        self.isPaused = isPaused
    }

    /// A new page starts paused when the app is in the background.
    init(app: AppState) {
        self.init(isPaused: !app.foreground)
    }
}

enum SearchAction: Action, Equatable {
    /// The user typed a query: the effect asks the backend.
    case search(String)
    /// The backend's answer, sent by the effect.
    case results([String])
    /// The backend failed; sent by the effect's error handler.
    case failed(String)
}

/// The page's reducer: its own actions, and the app's foreground changes it forwards.
let searchReducer = Reducer<SearchState> { state, action in
    switch action {
    case SearchAction.search(let query):
        state.query = query
        state.isSearching = true
    case SearchAction.results(let results):
        state.isSearching = false
        state.results = results
    case SearchAction.failed(let message):
        state.isSearching = false
        state.error = message
    case AppAction.enterBackground:
        state.isPaused = true
    case AppAction.enterForeground:
        state.isPaused = false
    default:
        break
    }
}

/// Answers a query; the tests control when.
typealias SearchBackend = @Sendable (_ query: String) async throws -> [String]

/// The page's effect: a search asks the backend and sends its answer back; a newer search cancels
/// the one in flight ("latest wins").
func searchEffect(backend: @escaping SearchBackend) -> Effect<SearchState> {
    Effect.on(
        SearchAction.self,
        when: { if case .search = $0 { true } else { false } },
        id: { _ in "search" }
    ) { action, context in
        guard case .search(let query) = action else { return }
        let results = try await backend(query)
        await context.send(SearchAction.results(results))
    } catch: { error in
        SearchAction.failed("\(error)")
    }
}

/// The page's middleware: the number of results goes to the app's badge, a global action.
func badgeMiddleware(global: Store<AppState>) -> Middleware<SearchState> {
    { _, _ in
        { next in
            { action in
                next(action)
                if case .results(let results) = action as? SearchAction {
                    global.dispatch(AppAction.setBadge(results.count))
                }
            }
        }
    }
}

/// The global actions the search page forwards to its reducer: the app's foreground changes.
@Sendable func isForegroundChange(_ action: any Action) -> Bool {
    action as? AppAction == .enterBackground || action as? AppAction == .enterForeground
}
