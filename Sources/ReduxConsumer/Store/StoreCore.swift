/// A store's working parts that only its drain's current thread touches: the state being reduced,
/// the middleware chain, the subscribers and listeners, and the consumer engine.
///
/// Nothing here locks and every user call (reducer, middleware, callbacks) happens outside any
/// lock. Subscribers are borrowed, not retained, for each call: `subscribers` owns them, and one
/// removed while a pass runs stays in `retired` until the pass is over.
///
/// The tables a pass reads have non-generic element types: the store's code runs unspecialised
/// inside this module, where a table generic in `State` costs a runtime metadata lookup per access.
/// `@exclusivity(unchecked)` on them: the core is confined to its drain (``DrainBound`` checks it in
/// debug builds) and no access spans a user call, so accesses never overlap; the dynamic check would
/// cost more than the work on every dispatch.
final class StoreCore<State: Sendable> {
    /// The state the reducer changes in place; the store publishes a copy after each action.
    ///
    /// A pointer rather than a property: a pass hands the state by address to every selector and
    /// callback while callbacks may add consumers, which read it too; a stored property would make
    /// those reads overlap the pass's access. Allocated in `init`, freed in `deinit`, and only
    /// touched by the drain's current thread (the core is reached through a ``DrainBound``).
    let state: UnsafeMutablePointer<State>
    /// The middleware chain, outermost middleware first; `nil` without middleware.
    @exclusivity(unchecked) var chain: DispatchFunction?
    /// Where the innermost middleware's `next` leads (see ``ChainEnd``); `nil` without middleware.
    var chainEnd: ChainEnd?
    /// Closure subscribers (each a `Subscriber<State>`) in call order: their order numbers come
    /// from the same counter as consumers', so the two interleave by subscription.
    @exclusivity(unchecked) var closures = SlotList<Unmanaged<AnyObject>>()
    /// Owns the closure subscribers borrowed in `closures`.
    var subscribers: [UInt64: any AnyObject & Sendable] = [:]
    @exclusivity(unchecked) var listeners = SlotList<Listener>()
    /// Removed during a pass: kept alive until it ends, since the pass may be inside their call.
    @exclusivity(unchecked) var retired: [any Sendable] = []
    /// The consumers subscribed: the store keeps them alive until their subscription ends.
    var consumers: [ObjectIdentifier: StateConsumer<State>] = [:]
    /// Whether a pass is notifying right now.
    @exclusivity(unchecked) var isNotifying = false
    /// Whether an action is being processed, from its first middleware to its last listener:
    /// closure subscribers and listeners registered meanwhile wait in `joinAfterAction`, so that
    /// they start with the next action, wherever in this one they were registered.
    @exclusivity(unchecked) var isInAction = false
    @exclusivity(unchecked) var joinAfterAction: [() -> Void] = []
    /// Whether the middleware chain is running on the drain's thread, between its middleware
    /// (not in the reducer or the callbacks of the action it reduces): a middleware's `next`
    /// called meanwhile runs at once; called from anywhere else, it is queued like a dispatch.
    @exclusivity(unchecked) var isRunningChain = false
    /// Whether the pass is calling subscribers and consumers (until its engine's `endPass()`;
    /// the action listeners come after): an engine a consumer brings meanwhile holds its members'
    /// `.instantly` calls for that `endPass()`, and one brought later (from a listener) does not.
    @exclusivity(unchecked) var isCallingConsumers = false
    /// The store's effects, and whether there are any (checked on every action without touching
    /// the generic array).
    var effects: [Effect<State>] = []
    @exclusivity(unchecked) var hasEffects = false
    /// The engine of the store's consumers, once one subscribed (set once, by the job that
    /// attaches it, with ``adopt(_:)``, and never cleared); a store without consumers evaluates
    /// nothing.
    // `@exclusivity(unchecked)`: read once per dispatch by the drain's owner, written by a job of
    // the same drain (the core is a `DrainBound` value, whose accessor checks that in debug
    // builds); the accesses are short and never overlap.
    @exclusivity(unchecked) private(set) var engine: SelectionEngine?
    /// `engine`, unretained: what a dispatch reads, a plain load where reading `engine` would
    /// retain and release it (two atomic operations per read, three reads per action).
    // Unretained: `engine` holds the same object for the rest of the core's life (``adopt(_:)``
    // sets both once; debug builds check that they agree on every read through
    // ``withEngine(_:)``).
    @exclusivity(unchecked) private var unretainedEngine: Unmanaged<SelectionEngine>?

    init(state: State) {
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: state)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Makes `engine` the store's engine of consumers: once, when the first consumer subscribes.
    func adopt(_ engine: SelectionEngine) {
        precondition(self.engine == nil, "a store's engine of consumers is set once")
        self.engine = engine
        unretainedEngine = Unmanaged.passUnretained(engine)
    }

    /// Calls `body` with the store's engine of consumers, if it has one, without retaining it.
    @inline(__always)
    func withEngine<Result>(_ body: (SelectionEngine) -> Result) -> Result? {
        guard let unretainedEngine else { return nil }
        // Guaranteed: `engine` holds it for as long as the core lives, and the caller holds the
        // core.
        return unretainedEngine._withUnsafeGuaranteedRef { engine in
            assert(engine === self.engine, "a store's unretained engine out of step with its engine")
            return body(engine)
        }
    }
}

/// A closure subscriber of a store.
final class Subscriber<State>: Sendable {
    let callback: @Sendable (_ old: State, _ new: State) -> Void

    init(_ callback: @escaping @Sendable (State, State) -> Void) {
        self.callback = callback
    }

    /// Names the subscriber in removal marks (see ``Drain``).
    var tag: UInt { UInt(bitPattern: ObjectIdentifier(self)) }
}

/// An action listener of a store.
final class Listener: Sendable {
    let callback: @Sendable (_ action: any Action) -> Void

    init(_ callback: @escaping @Sendable (any Action) -> Void) {
        self.callback = callback
    }

    /// Names the listener in removal marks (see ``Drain``).
    var tag: UInt { UInt(bitPattern: ObjectIdentifier(self)) }
}
