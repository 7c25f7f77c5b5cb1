/// A function that returns the current state of a store, or `nil` once the store is gone.
public typealias GetState<State> = @Sendable () -> State?

/// A store extension point in ReSwift's shape: it sees every action before the reducer does
/// (except ``StoreInit``, which builds a store's first state before any middleware can run).
///
/// A middleware is given the store's `dispatch` (which sends an action through the whole chain
/// again) and `getState`, and wraps `next` (the rest of the chain, ending in the reducer). It can
/// log, swallow an action (by not calling `next`), transform it, delay it, or dispatch more:
///
/// ```swift
/// let logging: Middleware<AppState> = { dispatch, getState in
///     { next in
///         { action in
///             print("→", action)
///             next(action)
///             print("state:", getState() as Any)
///         }
///     }
/// }
/// ```
///
/// Middleware runs on the thread that processes the store, one action at a time. `next` may also
/// be kept and called later (a delayed action), from any thread or from the store's own reducer or
/// callbacks: the action then joins the store's queue, as a dispatch made there would (right after
/// the action in progress, when called while the store processes one), and goes through the rest
/// of the chain, never inside the reducer or the callbacks of another action.
public typealias Middleware<State> =
    @Sendable (
        _ dispatch: @escaping DispatchFunction,
        _ getState: @escaping GetState<State>
    ) -> (_ next: @escaping DispatchFunction) -> DispatchFunction
