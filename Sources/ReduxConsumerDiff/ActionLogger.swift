import ReduxConsumer

/// A middleware that logs every action and the state diff it caused: the redux-logger idea, built
/// on ``StateDiff``.
///
/// Make a logger, then install its ``middleware`` on a store:
///
/// ```swift
/// let logger = ActionLogger<AppState>(omitsUnchangedState: true) { print($0) }
/// let store = Store(initialState: AppState(), reducer: appReducer, middleware: [logger.middleware])
/// store.dispatch(CounterAction.increment)
/// // action increment
/// //   ~ counter: 0 → 1
/// ```
///
/// Each logged action becomes one ``Entry``, handed to `log`. An entry prints as shown above (its
/// `description`), so `{ print($0) }` writes to standard output; write it anywhere else the same
/// way (`{ standardError.write("\($0)\n") }` for a `TextOutputStream`, a logging system), or read
/// the entry's ``Entry/action`` and ``Entry/diff`` to build structured records.
///
/// ## What is compared
/// The middleware reads the state with `getState` before and after calling `next(action)`, so the
/// diff covers what the middleware after it and the reducer did with the action. Install the logger
/// last (innermost) to log exactly the actions that reach the reducer. A middleware further in that
/// delays `next` to another thread makes the action log as unchanged.
///
/// ## Threads and cost
/// `log` is called on the thread that processes the store, after the store's subscribers were
/// notified of the action, outside any lock: it may dispatch (the action is queued and logged after
/// this one). Actions that `isLogged` rejects cost one call; the others cost two state reads and a
/// ``StateDiff``, roughly linear in the size of the parts that changed. Because the logger keeps
/// the state from before the action, a reducer that appends to a plain array in the state copies
/// the whole array; keep long, growing collections in a ``ChunkedCollection`` so that both the
/// append and its diff cost one chunk.
public struct ActionLogger<State: Sendable>: Sendable {
    /// How changes are rendered in ``Entry/description``: value length and ANSI colors.
    public var format: DiffFormat

    /// Whether actions that left the state equal are skipped; when `false`, they are logged with an
    /// empty diff and print as `action NAME (no change)`.
    public var omitsUnchangedState: Bool

    /// Decides which actions are logged; the others pass through untouched and unlogged.
    public var isLogged: @Sendable (_ action: any Action) -> Bool

    /// Receives each logged action, on the thread that processes the store.
    public var log: @Sendable (_ entry: Entry) -> Void

    /// Creates a logger.
    ///
    /// ```swift
    /// let logger = ActionLogger<AppState>(
    ///     format: DiffFormat(maxValueLength: 40, usesColor: true),
    ///     omitsUnchangedState: true,
    ///     where: { !($0 is TimerAction) },
    ///     log: { entry in errorStream.write("\(entry)\n") }
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - format: How changes are rendered; see ``DiffFormat``.
    ///   - omitsUnchangedState: Whether to skip actions that left the state equal.
    ///   - isLogged: Decides which actions are logged; every action by default.
    ///   - log: Receives each logged action; `{ print($0) }` writes it to standard output.
    public init(
        format: DiffFormat = DiffFormat(),
        omitsUnchangedState: Bool = false,
        where isLogged: @escaping @Sendable (_ action: any Action) -> Bool = { _ in true },
        log: @escaping @Sendable (_ entry: Entry) -> Void
    ) {
        self.format = format
        self.omitsUnchangedState = omitsUnchangedState
        self.isLogged = isLogged
        self.log = log
    }

    /// The middleware to install on a store, configured as this logger is now.
    ///
    /// Later changes to the logger's properties do not reach a middleware already taken.
    public var middleware: Middleware<State> {
        let logger = self
        return { _, getState in
            { next in
                { action in
                    guard logger.isLogged(action), let old = getState() else {
                        next(action)
                        return
                    }
                    next(action)
                    guard let new = getState() else {
                        return
                    }
                    let diff = StateDiff(from: old, to: new)
                    if diff.isEmpty && logger.omitsUnchangedState {
                        return
                    }
                    logger.log(Entry(action: action, diff: diff, format: logger.format))
                }
            }
        }
    }
}
