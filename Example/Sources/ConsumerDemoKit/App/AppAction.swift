import ReduxConsumer

/// Everything the demo's scripts and tour can do to ``AppState``.
///
/// Its description is the one printed by the demo and in its JSON (`rename("Kim")`), so strings
/// are quoted and `nil` is written `nil` rather than `Optional(…)`. Recordings hold it through its
/// synthesized `Codable` conformance (`{"rename":{"_0":"Kim"}}`), registered as `app`.
enum AppAction: Action, Equatable, Codable, CustomStringConvertible {
    case increment
    case decrement
    case set(Int)
    case rename(String?)
    case addWork(String)
    case removeWork(at: Int)
    case login(String)
    case logout
    case setForeground(Bool)

    var description: String {
        switch self {
        case .increment: "increment"
        case .decrement: "decrement"
        case .set(let value): "set(\(value))"
        case .rename(let name): "rename(\(name.map(quoted) ?? "nil"))"
        case .addWork(let work): "addWork(\(quoted(work)))"
        case .removeWork(let index): "removeWork(at: \(index))"
        case .login(let user): "login(\(quoted(user)))"
        case .logout: "logout"
        case .setForeground(let isForeground): "setForeground(\(isForeground))"
        }
    }
}

/// The global reducer. It is total: the counter saturates instead of overflowing and removing a
/// work that does not exist changes nothing (the script runner reports it before dispatching).
let appReducer = Reducer<AppState> { (state, action: AppAction) in
    switch action {
    case .increment:
        if state.counter < .max { state.counter += 1 }
    case .decrement:
        if state.counter > .min { state.counter -= 1 }
    case .set(let value):
        state.counter = value
    case .rename(let name):
        state.name = name
    case .addWork(let work):
        state.works.append(work)
    case .removeWork(let index):
        if state.works.indices.contains(index) {
            state.works.remove(at: index)
        }
    case .login(let user):
        state.auth.user = user
    case .logout:
        state.auth.user = nil
    case .setForeground(let isForeground):
        state.foreground = isForeground
    }
}
