import ReduxConsumer

/// ReSwift-Consumer's page state for `MainVc`: it lives as long as the page that owns it.
struct MainState: Equatable, Sendable {
    var count: Int

    /// ReSwift-Consumer's example starts the count at 10; a page opened by a logged-out user starts at 0.
    init(global: AppState) {
        count = global.auth.isLoggedIn ? 10 : 0
    }
}

/// What the page can do to its own state.
enum MainAction: Action, Equatable {
    case increment
}

let mainReducer = Reducer<MainState> { (state, action: MainAction) in
    switch action {
    case .increment:
        if state.count < .max { state.count += 1 }
    }
}
