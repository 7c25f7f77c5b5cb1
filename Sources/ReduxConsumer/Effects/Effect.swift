/// Async work that an action starts: a request, a timer, a file read — and the actions it sends
/// back when it is done. The counterpart of ReSwift-Thunk, ReactorKit's `mutate` and TCA's effects,
/// kept out of the reducer so that reducers stay pure.
///
/// An effect is a rule given to a store: for every reduced action of a type (that the rule
/// accepts), start an operation in a task. The operation gets the action and an ``EffectContext``
/// to read the state and send follow-up actions:
///
/// ```swift
/// let search = Effect<AppState>.on(SearchAction.self, id: { _ in "search" }) { action, context in
///     guard case .query(let text) = action else { return }
///     let results = try await api.search(text)
///     await context.send(SearchAction.results(results))
/// } catch: { error in SearchAction.failed("\(error)") }
///
/// let store = Store(initialState: AppState(), reducer: appReducer, effects: [search])
/// ```
///
/// ## When it runs
/// An effect starts after its action was reduced and the store's subscribers were notified, in a
/// task of its own (not on the thread that dispatched). Its follow-up actions go through the store
/// like any other, in the order the effect sends them.
///
/// ## Cancellation
/// - An effect with an `id` cancels the running effect with the same `id` when it starts: the
///   latest request wins. ``Store/cancelEffects(id:)`` cancels by `id` at any time.
/// - Every effect is cancelled when its store is released, or its page closed or released.
/// - Cancellation is cooperative (Swift's task cancellation): an operation that checks
///   `Task.isCancelled` or awaits a cancellable call stops; sends after cancellation are ignored.
///
/// ## Errors
/// An operation that throws (other than `CancellationError`) never harms the store: `catch` turns
/// the error into an action the store receives; without it the error is reported to the store's
/// diagnostics. ``Store/effectsIdle()`` waits until no effect runs (graceful shutdown, tests).
public struct Effect<State: Sendable>: Sendable {
    /// Decides whether an action starts this effect, and makes its operation.
    let start: @Sendable (any Action) -> Start?

    /// What one reduced action starts.
    struct Start: Sendable {
        let id: EffectID?
        let name: String
        let operation: @Sendable (EffectContext<State>) async throws -> Void
        let handle: (@Sendable (any Error) -> (any Action)?)?
    }

    /// An effect started by every reduced action of type `A` that `when` accepts.
    ///
    /// - Parameters:
    ///   - type: The actions that start it.
    ///   - when: Decides, for each such action, whether it starts the effect; all do by default.
    ///   - id: Names the running effect: starting one with the same `id` cancels the running one
    ///     ("latest wins"), and ``Store/cancelEffects(id:)`` cancels it. `nil` (the default): each
    ///     runs to its end.
    ///   - operation: The work, with the action and a context to read the state and send actions.
    ///   - handler: Turns an error the operation throws into an action for the store; `nil` (the
    ///     default) reports the error to the store's diagnostics.
    /// - Returns: The effect, to give to a store or a page.
    public static func on<A: Action>(
        _ type: A.Type,
        when: (@Sendable (A) -> Bool)? = nil,
        id: (@Sendable (A) -> (any Hashable & Sendable)?)? = nil,
        operation: @escaping @Sendable (_ action: A, _ context: EffectContext<State>) async throws -> Void,
        catch handler: (@Sendable (_ error: any Error) -> (any Action)?)? = nil
    ) -> Effect {
        Effect { action in
            guard let action = action as? A, when?(action) ?? true else { return nil }
            return Start(
                id: id?(action).map(EffectID.init),
                name: String(describing: action),
                operation: { context in try await operation(action, context) },
                handle: handler
            )
        }
    }
}

/// What an effect's operation uses to talk to its store. It does not keep the store alive: once
/// the store is gone (or the page closed), sends are ignored; once the store is gone, ``state``
/// is `nil` (a closed page's keeps the state it closed with).
public struct EffectContext<State: Sendable>: Sendable {
    let store: WeakStore<State>
    /// The effect's runner and token: a send queued behind a busy store is dropped if the effect
    /// was cancelled by the time its turn comes.
    let runner: EffectRunner
    let token: UInt64

    /// The store's current state, or `nil` once it is gone; after its page closed, the state the
    /// page closed with (as ``PageStore/state``).
    public var state: State? {
        store.value?.state
    }

    /// Sends a follow-up action and waits until it was processed (see ``Store/send(_:isolation:)``);
    /// ignored once the store is gone or the effect was cancelled, including while the action
    /// waits for its turn behind a busy store.
    ///
    /// - Parameters:
    ///   - action: The action.
    ///   - isolation: The caller's isolation; leave the default.
    public func send(_ action: any Action, isolation: isolated (any Actor)? = #isolation) async {
        guard !Task.isCancelled, let store = store.value, !store.isTornDown else { return }
        let runner = runner
        let token = token
        await store.send(action, unless: { runner.isCancelled(token) })
    }
}

/// An effect's `id`: any hashable, sendable value.
struct EffectID: Hashable, @unchecked Sendable {
    // @unchecked: `AnyHashable` is not `Sendable`, but `init` only takes `Sendable` values.
    let value: AnyHashable

    init(_ value: any Hashable & Sendable) {
        self.value = AnyHashable(value)
    }
}

/// A store, held weakly.
struct WeakStore<State: Sendable>: Sendable {
    weak var value: Store<State>?
}
