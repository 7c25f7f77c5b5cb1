/// The demo's global state: the seed's counter, name and works, plus the seed's `AppState` for
/// pages (authentication and whether the app is in the foreground).
struct AppState: Equatable, Sendable {
    var counter = 0
    var name: String?
    var works: [String] = []
    var auth = AuthState()
    var foreground = false
}

/// Who is logged in.
struct AuthState: Equatable, Sendable {
    var user: String?

    var isLoggedIn: Bool { user != nil }
}
