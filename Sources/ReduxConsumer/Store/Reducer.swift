/// A pure function that changes a state in place in response to an action.
///
/// A reducer sees every action dispatched to its store. Write it against one concrete action type
/// and its `switch` is exhaustive; actions of other types pass by untouched:
///
/// ```swift
/// let counterReducer = Reducer<AppState> { (state, action: CounterAction) in
///     switch action {
///     case .increment: state.counter += 1
///     case .rename(let name): state.name = name
///     }
/// }
/// ```
///
/// Reducers run one at a time, on the thread that is processing the store. They must not read
/// `Store.state` (they are given the state) and should not dispatch; a dispatch made from a reducer
/// is queued and runs after the current action.
public struct Reducer<State>: Sendable {
    @usableFromInline
    let reduce: @Sendable (inout State, any Action) -> Void

    /// Creates a reducer that sees every action.
    ///
    /// - Parameter reduce: Changes the state in place for the given action.
    public init(_ reduce: @escaping @Sendable (_ state: inout State, _ action: any Action) -> Void) {
        self.reduce = reduce
    }

    // `@inlinable`: every dispatch runs this cast. Compiled in the caller's module, where `A` is
    // concrete, it costs a fraction of the unspecialised version (which builds `Optional<A>`
    // metadata at run time on every call).

    /// Creates a reducer for one concrete action type; actions of any other type leave the state
    /// untouched.
    ///
    /// - Parameter reduce: Changes the state in place for an action of type `A`.
    @inlinable
    public init<A: Action>(_ reduce: @escaping @Sendable (_ state: inout State, _ action: A) -> Void) {
        self.reduce = { state, action in
            if let action = Self.cast(action, to: A.self) {
                reduce(&state, action)
            }
        }
    }

    /// `action as? A`, with a fast path for the common case: an action of exactly type `A`.
    ///
    /// The general cast goes through the runtime's dynamic-cast machinery (about as costly as the
    /// rest of a dispatch); checking the exact type is a pointer comparison, and the value is then
    /// read out of the existential as the `A` it is. Other cases (a subclass of a class `A`) take
    /// the general cast.
    @inlinable
    static func cast<A: Action>(_ action: any Action, to type: A.Type) -> A? {
        guard Swift.type(of: action) == A.self else { return action as? A }
        func read<Opened: Action>(_ opened: Opened) -> A {
            withUnsafePointer(to: opened) { UnsafeRawPointer($0).load(as: A.self) }
        }
        return read(action)
    }

    /// Wraps a reducer written in ReSwift's shape, `(Action, State?) -> State`, so it moves over
    /// unchanged.
    ///
    /// Use it with ``Store/init(reSwiftReducer:state:middleware:)`` to let the reducer build the
    /// initial state from `nil`, as ReSwift does.
    ///
    /// - Parameter reducer: A ReSwift-style reducer.
    public init(reSwift reducer: @escaping @Sendable (_ action: any Action, _ state: State?) -> State) {
        self.reduce = { state, action in
            state = reducer(action, state)
        }
    }

    /// Changes `state` in place for `action`.
    ///
    /// - Parameters:
    ///   - state: The state to change.
    ///   - action: The action to apply.
    @inlinable
    public func callAsFunction(_ state: inout State, _ action: any Action) {
        reduce(&state, action)
    }

    /// A reducer that runs `reducers` one after another, in order, on the same action.
    ///
    /// - Parameter reducers: The reducers to combine.
    /// - Returns: The combined reducer.
    public static func combine(_ reducers: Reducer<State>...) -> Reducer<State> {
        combine(reducers)
    }

    /// A reducer that runs `reducers` one after another, in order, on the same action.
    ///
    /// - Parameter reducers: The reducers to combine.
    /// - Returns: The combined reducer.
    public static func combine(_ reducers: [Reducer<State>]) -> Reducer<State> {
        Reducer { state, action in
            for reducer in reducers {
                reducer.reduce(&state, action)
            }
        }
    }

    /// A reducer that runs `child` on the part of the state at `keyPath`.
    ///
    /// ```swift
    /// let appReducer = Reducer<AppState>.combine(
    ///     .scope(\.auth, authReducer),
    ///     .scope(\.settings, settingsReducer)
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: Where the child state lives inside `State`.
    ///   - child: The reducer of the child state.
    /// - Returns: A reducer of the whole state.
    public static func scope<Child>(
        _ keyPath: any WritableKeyPath<State, Child> & Sendable,
        _ child: Reducer<Child>
    ) -> Reducer<State> {
        Reducer { state, action in
            child.reduce(&state[keyPath: keyPath], action)
        }
    }
}
