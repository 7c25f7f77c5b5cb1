/// One subscriber of a store, with the state type erased.
///
/// `Store<State>` runs unspecialised inside this module, where a table of a generic element type
/// (`OrderedSlots<Observer<State>>`) costs runtime metadata lookups on every pass. The table holds
/// this non-generic entry instead; the state crosses as a pointer to a `State` that lives for the
/// duration of the call.
struct StoreObserver: Sendable {
    /// Whether it needs the state before the action (closure subscribers do; consumers keep their
    /// own last values, so the store copies the old state only when someone needs it).
    let needsOldState: Bool
    /// Called with pointers to the old state (the new one when `needsOldState` is false) and the
    /// new state.
    let notify: @Sendable (_ old: UnsafeRawPointer, _ new: UnsafeRawPointer) -> Void
    /// Called when the subscription ends.
    let detach: (@Sendable () -> Void)?
}

/// The observers of one store: confined to the store's drain.
struct StoreObservers {
    var slots = OrderedSlots<StoreObserver>()
    /// How many observers need the old state.
    var oldStateReaders = 0
}
