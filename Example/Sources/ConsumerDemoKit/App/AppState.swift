/// The demo's global state: ReSwift-Consumer's counter, name and works, plus ReSwift-Consumer's `AppState` for
/// pages (authentication and whether the app is in the foreground).
///
/// `Codable` so that `consumer-demo record` can snapshot it and hash it (`StateHash.structural`).
struct AppState: Equatable, Sendable, Codable {
    var counter = 0
    var name: String?
    /// A ``ChunkedList`` rather than an array, so that a long script of `add-work` lines stays
    /// linear: each append copies one chunk, and each diff compares only the chunks that changed.
    var works: ChunkedList<String> = []
    var auth = AuthState()
    var foreground = false
}

/// Who is logged in.
struct AuthState: Equatable, Sendable, Codable {
    var user: String?

    var isLoggedIn: Bool { user != nil }
}
