import Dispatch
import ReduxConsumer

/// A small state with nested, optional and collection fields, for failure-message tests.
struct Profile: Equatable, Sendable {
    var count = 10
    var user = User(name: "Kim", age: 3)
    var nickname: String?
    var tags: [String] = []
}

struct User: Equatable, Sendable {
    var name: String
    var age: Int
}

enum ProfileAction: Action, Equatable {
    case increment
    case rename(String)
    case tag(String)
    /// Renames the user and adds a tag at once.
    case edit
}

/// An action that is not `Equatable`.
struct Ping: Action {
    let id: Int
}

let profileReducer = Reducer<Profile> { (state, action: ProfileAction) in
    switch action {
    case .increment:
        state.count += 1
    case .rename(let name):
        state.user.name = name
    case .tag(let tag):
        state.tags.append(tag)
    case .edit:
        state.user.name = "Lee"
        state.tags.append("swift")
    }
}

/// A middleware that dispatches `followUp` after every `trigger` reached the reducer.
func dispatching(_ followUp: any Action, after trigger: ProfileAction) -> Middleware<Profile> {
    { dispatch, _ in
        { next in
            { action in
                next(action)
                if action as? ProfileAction == trigger {
                    dispatch(followUp)
                }
            }
        }
    }
}

/// A middleware that dispatches `followUp` from another thread, after `send` has returned.
func dispatchingLater(_ followUp: any Action, after trigger: ProfileAction) -> Middleware<Profile> {
    { dispatch, _ in
        { next in
            { action in
                next(action)
                if action as? ProfileAction == trigger {
                    DispatchQueue.global().async { dispatch(followUp) }
                }
            }
        }
    }
}

/// A middleware that dispatches `action` to `global` after every `trigger`.
func dispatching<GlobalState>(
    _ action: any Action,
    to global: Store<GlobalState>,
    after trigger: ProfileAction
) -> Middleware<Profile> {
    { _, _ in
        { next in
            { sent in
                next(sent)
                if sent as? ProfileAction == trigger {
                    global.dispatch(action)
                }
            }
        }
    }
}
