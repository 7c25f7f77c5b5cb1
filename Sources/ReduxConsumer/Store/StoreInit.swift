/// The action a store built from a ReSwift-style reducer sends to create its initial state.
///
/// When ``Store/init(reSwiftReducer:state:middleware:)`` is given a `nil` state, it asks the reducer
/// for the state with this action and `nil`, as ReSwift does with `ReSwiftInit`. Unlike ReSwift's,
/// the action goes to the reducer only, not through the middleware: a store has a state before any
/// middleware runs (`getState` never returns `nil` while the store lives).
public struct StoreInit: Action, Equatable {
    /// Creates the init action.
    public init() {}
}
