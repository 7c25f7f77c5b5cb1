import ReduxConsumer

// The seed's MainVc, off UIKit: a page with its own small state beside the app's global state.
// This is the code under test in `MainPageTests`; in the app the same pieces build a `PageStore`:
//
//     let page = PageStore(
//         global: appStore,
//         initialState: MainState.init(app:),
//         reducer: mainReducer,
//         middleware: [mainMiddleware(global: appStore, fetchCount: api.fetchCount)]
//     )
//     screen.bind(to: page.consumer)

/// The global state keeps only what is truly global: whether the app is in the foreground, and the
/// count shown on the app's badge.
struct AppState: Equatable, Sendable {
    var foreground = false
    var badge = 0
}

enum AppAction: Action, Equatable {
    case enterForeground
    case enterBackground
    case setBadge(Int)
}

let appReducer = Reducer<AppState> { (state, action: AppAction) in
    switch action {
    case .enterForeground: state.foreground = true
    case .enterBackground: state.foreground = false
    case .setBadge(let count): state.badge = count
    }
}

/// The main page's state lives exactly as long as the screen.
struct MainState: Equatable, Sendable {
    var count: Int
    var isRefreshing = false

    /// A new page starts from the count the app's badge shows.
    init(app: AppState) {
        count = app.badge
    }
}

enum MainAction: Action, Equatable {
    /// The user tapped "+".
    case increment
    /// The user pulled to refresh: the middleware asks the server for the count.
    case refresh
    /// The server's answer, dispatched by the middleware.
    case refreshed(Int)
}

let mainReducer = Reducer<MainState> { (state, action: MainAction) in
    switch action {
    case .increment:
        state.count += 1
    case .refresh:
        state.isRefreshing = true
    case .refreshed(let count):
        state.count = count
        state.isRefreshing = false
    }
}

/// Fetches the count from the server and calls `completion` with it, on any thread, now or later.
typealias CountFetcher = @Sendable (_ completion: @escaping @Sendable (Int) -> Void) -> Void

/// The page's side effects: a refresh fetches the count and dispatches it back to the page as a
/// follow-up action; a refreshed count is also pushed to the app's badge, a global action.
func mainMiddleware(global: Store<AppState>, fetchCount: @escaping CountFetcher) -> Middleware<MainState> {
    { dispatch, _ in
        { next in
            { action in
                next(action)
                switch action as? MainAction {
                case .refresh:
                    fetchCount { count in dispatch(MainAction.refreshed(count)) }
                case .refreshed(let count):
                    global.dispatch(AppAction.setBadge(count))
                default:
                    break
                }
            }
        }
    }
}

/// What the screen shows, without a UI: its consumers turn page state into label text.
final class MainScreenModel: Sendable {
    private let text = Lock("")

    /// The count label's text.
    var countText: String {
        text.withLock { $0 }
    }

    /// Binds the screen to the page's consumers, as `MainVc.viewDidLoad` did.
    func bind(to consumer: StateConsumer<MainState>) {
        consumer.add(\.count, owner: self, options: .instantly) { screen, _, new in
            screen.text.withLock { $0 = "\(new)" }
        }
    }
}
