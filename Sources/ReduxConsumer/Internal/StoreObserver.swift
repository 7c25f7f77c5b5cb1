/// One subscriber of a store, with the state type erased: the entry a pass reads.
///
/// `Store<State>` runs unspecialised inside this module, where a table of a generic element type
/// (`OrderedSlots<Observer<State>>`) costs runtime metadata lookups on every pass. The table holds
/// this non-generic entry instead, and the store, which knows `State`, casts `target` back without
/// a runtime check. Closures are not erased to pointer-taking closures: turning a pointer back into
/// a `State` argument copies the whole state, while the store can pass its own copy as it is.
///
/// The entry is trivially copyable: `target` is unretained, owned by the matching
/// ``StoreRegistration``. A pass copies an entry out of the table for every observer and every
/// action; with a strong reference (and the `detach` closure) in it, each copy cost two
/// retain/release pairs, more than calling a small subscriber.
struct StoreObserver {
    /// A `StateConsumer<State>` when `isConsumer`, else a `Subscriber<State>`.
    let target: Unmanaged<AnyObject>
    let isConsumer: Bool
}

/// What keeps one subscriber alive, and what ends it.
struct StoreRegistration {
    let target: any AnyObject & Sendable
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
    /// The owners of the targets in `slots`, by identifier.
    var registrations: [UInt64: StoreRegistration] = [:]
    /// Registrations ended while a pass was running: their targets stay alive until the pass is
    /// over, because the pass may be inside one of their callbacks (a subscriber that cancels
    /// itself) and holds no reference of its own.
    var retired: [StoreRegistration] = []
    /// How many observers need the state before the action (closure subscribers do; consumers
    /// keep their own last values, so the store copies the old state only when someone needs it).
    var oldStateReaders = 0
    /// The store's action listeners (`observeActions`), called after `slots` for each action.
    /// A pass copies each closure out before calling it, so one cancelled during its own call
    /// stays alive until it returns without a `retired` list.
    var actionListeners = OrderedSlots<@Sendable (any Action) -> Void>()
}
