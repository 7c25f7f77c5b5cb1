import ReduxConsumer
import ReduxConsumerTestSupport

/// The seed's global state for pages (its `AppState`: auth and foreground only); named `RootState`
/// because `Fixtures.swift` already has an `AppState`.
struct RootState: Equatable, Sendable {
    var auth = AuthState()
    var foreground = false
}

struct AuthState: Equatable, Sendable {
    var user: String?
}

enum AuthAction: Action, Equatable {
    case logIn(String)
    case logOut
}

enum LifecycleAction: Action, Equatable {
    case enterForeground
    case enterBackground
}

/// The seed's page state for `MainVc`.
struct MainState: Equatable, Sendable {
    var count = 10
}

enum MainAction: Action, Equatable {
    case increment
    case set(Int)
}

let rootReducer = Reducer<RootState>.combine(
    Reducer { (state, action: AuthAction) in
        switch action {
        case .logIn(let user): state.auth.user = user
        case .logOut: state.auth.user = nil
        }
    },
    Reducer { (state, action: LifecycleAction) in
        switch action {
        case .enterForeground: state.foreground = true
        case .enterBackground: state.foreground = false
        }
    }
)

/// Counts page actions, and resets the count when a (forwarded) `AuthAction.logOut` arrives.
let mainReducer = Reducer<MainState>.combine(
    Reducer { (state, action: MainAction) in
        switch action {
        case .increment: state.count += 1
        case .set(let value): state.count = value
        }
    },
    Reducer { (state, action: AuthAction) in
        if action == .logOut { state.count = 0 }
    }
)

func makeRootStore(_ state: RootState = RootState(), middleware: [Middleware<RootState>] = []) -> Store<RootState> {
    Store(initialState: state, reducer: rootReducer, middleware: middleware)
}

/// The seed's `MainVc` off UIKit: owns a page store built from the global state and consumes
/// `RootState.foreground` and `MainState.count` at once, with the documented `owner:` form.
final class MainScreen: Sendable {
    let page: PageStore<MainState, RootState>
    let log: Recorder<String>

    init(global: Store<RootState>, log: Recorder<String>, diagnostics: (@Sendable (String) -> Void)? = nil) {
        self.log = log
        page = PageStore(
            global: global,
            initialState: { root in MainState(count: root.auth.user == nil ? 0 : 10) },
            reducer: mainReducer,
            diagnostics: diagnostics
        )
        page.globalConsumer.add(\.foreground, owner: self) { screen, old, new in
            screen.log.append("foreground: \(old) → \(new)")
        }
        page.consumer.add(\.count, owner: self) { screen, old, new in
            screen.log.append("count: \(old) → \(new)")
        }
    }
}

/// A child owner sharing its parent's page (the seed's `StateSharedViewController`): its consumers
/// live in its own bag and go with it.
final class CountBadge: Sendable {
    let name: String
    let log: Recorder<String>
    let bag = ConsumerBag()

    init(name: String, page: PageStore<MainState, RootState>, log: Recorder<String>) {
        self.name = name
        self.log = log
        page.consumer.add(\.count, owner: self) { badge, _, new in
            badge.log.append("\(badge.name): \(new)")
        }
        .store(in: bag)
    }
}

/// Something that must not outlive its test, observed through a weak reference.
final class LoggingOwner: Sendable {
    let log: Recorder<String>

    init(log: Recorder<String>) {
        self.log = log
    }
}

/// A counter shared across threads.
final class CallCounter: Sendable {
    private let box = Lock(0)

    func increment() {
        box.withLock { $0 += 1 }
    }

    var value: Int {
        box.withLock { $0 }
    }
}
