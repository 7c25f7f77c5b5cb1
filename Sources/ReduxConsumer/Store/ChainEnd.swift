/// Where a store's innermost middleware's `next` leads: to the reducer, until a middleware is
/// added, then to that middleware, whose own `next` leads to a new end.
///
/// The indirection lets ``Store/addMiddleware(_:)`` call only the new middleware's factory, once,
/// and re-point the old end at it, instead of rebuilding the whole chain: the middleware added
/// earlier keep their closures (and what they keep in them), and an add costs the same however many
/// middleware the store has.
final class ChainEnd: @unchecked Sendable {
    // @unchecked: `target` is read by the chain and changed by a job of the store, both only on
    // the thread that runs `drain` (debug builds check it on every access); `drain` is written
    // once, by `init`.
    private var target: DispatchFunction
    /// The store's drain, for the debug builds' checks: weak, for a middleware's `next` leads
    /// here, and a `next` kept in the state (which the drain's publisher holds) would otherwise
    /// keep the drain, and so that state, alive for ever.
    private weak var drain: Drain?

    /// Creates an end that leads to `target` (the end of the chain: the reducer).
    init(leadingTo target: @escaping DispatchFunction, drain: Drain) {
        self.target = target
        self.drain = drain
    }

    /// Sends `action` on to where the end leads. Call from the store's drain.
    func run(_ action: any Action) {
        assert(drain?.isAccessibleFromCurrentThread ?? true, "\(Self.self) used outside its drain")
        target(action)
    }

    /// Makes the end lead to `target` (a middleware added), from the next action on. Call from a
    /// job of the store's drain.
    func lead(to target: @escaping DispatchFunction) {
        assert(drain?.isAccessibleFromCurrentThread ?? true, "\(Self.self) changed outside its drain")
        self.target = target
    }
}
