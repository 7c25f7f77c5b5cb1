/// Where a ``StateConsumer``'s members live and are fed from: a store, or the consumer itself
/// while it is fed by hand.
///
/// A consumer's registration is confined to its host's drain; it moves to a store's host when the
/// consumer is subscribed, and back to the consumer's own host when the subscription ends.
final class ConsumerHost: Sendable, CustomStringConvertible {
    // Not generic over the state: a consumer's bookkeeping that refers to its host is then of a
    // concrete type, and the consumer's unspecialised code pays no type-metadata lookup to reach it.
    let drain: Drain
    let engine: DrainBound<SelectionEngine>
    /// Runs `body` with the host's current state, if it has one (a store does; a consumer fed by
    /// hand keeps none between states); returns whether it did. Call from a job of `drain`.
    let withCurrentState: @Sendable (_ body: (UnsafeMutableRawPointer) -> Void) -> Bool
    /// Whether this is a store's host (named `Store<AppState>` in messages) rather than a
    /// consumer's own. The name is made when a message needs it: making it for every store costs
    /// a type-name lookup and, for most names, an allocation.
    let isStore: Bool
    /// The state type, for messages.
    let stateType: any Sendable.Type
    /// The identity in messages: the store's, or (a consumer's own host) the host's.
    private let address: UInt?
    /// The store whose host this is (`nil` for a consumer's own host): weak, since the store
    /// keeps its host. `nil` from the moment the store's last reference goes (see ``hasEnded``).
    private weak let store: (any AnyObject & Sendable)?

    init(
        drain: Drain,
        isStore: Bool,
        stateType: any Sendable.Type,
        address: UInt? = nil,
        store: (any AnyObject & Sendable)? = nil,
        withCurrentState: @escaping @Sendable ((UnsafeMutableRawPointer) -> Void) -> Bool
    ) {
        self.drain = drain
        self.store = store
        engine = DrainBound(SelectionEngine(drain: drain), drain: drain)
        self.isStore = isStore
        self.stateType = stateType
        self.address = address
        self.withCurrentState = withCurrentState
    }

    /// A consumer's own host: no state between the states it is fed.
    convenience init(stateType: any Sendable.Type) {
        self.init(drain: Drain(), isStore: false, stateType: stateType) { _ in false }
    }

    /// Whether this is a store's host and the store is gone: its consumers' subscriptions are over
    /// from the moment its last reference goes, before its `deinit` runs (another thread may see it
    /// gone through a weak reference then), and although the job that brings their registrations
    /// home may still wait for the drain (held by a member's add on another thread).
    var hasEnded: Bool {
        isStore && store == nil
    }

    /// The store's type and a short identity, for messages: `Store<AppState>(0x7f…)`.
    var description: String {
        let address = address ?? UInt(bitPattern: ObjectIdentifier(self))
        return Self.describe(isStore: isStore, stateType: stateType, address: address)
    }

    /// `Store<AppState>(0x7f…)` or `StateConsumer<AppState>(0x7f…)`.
    static func describe(isStore: Bool, stateType: any Sendable.Type, address: UInt) -> String {
        let name = isStore ? "Store<\(stateType)>" : "StateConsumer<\(stateType)>"
        return "\(name)(0x\(String(address, radix: 16)))"
    }
}
