/// One subscriber of a store, with the state type erased.
///
/// `Store<State>` runs unspecialised inside this module, where a table of a generic element type
/// (`OrderedSlots<Observer<State>>`) costs runtime metadata lookups on every pass. The table holds
/// this non-generic entry instead, and the store, which knows `State`, casts `target` back without
/// a runtime check. Closures are not erased to pointer-taking closures: turning a pointer back into
/// a `State` argument copies the whole state, while the store can pass its own copy as it is.
struct StoreObserver: Sendable {
    /// A `StateConsumer<State>` when `isConsumer`, else a `Subscriber<State>`.
    let target: any AnyObject & Sendable
    let isConsumer: Bool
    /// Called when the subscription ends.
    let detach: (@Sendable () -> Void)?
}

/// A closure subscriber of a store.
final class Subscriber<State>: Sendable {
    let callback: @Sendable (_ old: State, _ new: State) -> Void

    init(_ callback: @escaping @Sendable (State, State) -> Void) {
        self.callback = callback
    }
}

/// The observers of one store: confined to the store's drain.
struct StoreObservers {
    var slots = OrderedSlots<StoreObserver>()
    /// How many observers need the state before the action (closure subscribers do; consumers
    /// keep their own last values, so the store copies the old state only when someone needs it).
    var oldStateReaders = 0
}
