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
    /// Reads the host's current state, while it has one (see ``withCurrentState(_:)``).
    private let state: DrainBound<StateReader>
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
        readState: ((_ body: (UnsafeMutableRawPointer) -> Void) -> Void)?
    ) {
        self.drain = drain
        self.store = store
        engine = DrainBound(SelectionEngine(drain: drain), drain: drain)
        state = DrainBound(StateReader(readState), drain: drain)
        self.isStore = isStore
        self.stateType = stateType
        self.address = address
    }

    /// A consumer's own host: no state between the states it is fed.
    convenience init(stateType: any Sendable.Type) {
        self.init(drain: Drain(), isStore: false, stateType: stateType, readState: nil)
    }

    /// Runs `body` with the host's current state, if it has one (a store does until it ends; a
    /// consumer fed by hand keeps none between states); returns whether it did. Call from a job of
    /// `drain`.
    func withCurrentState(_ body: (UnsafeMutableRawPointer) -> Void) -> Bool {
        guard let read = state.value.read else { return false }
        read(body)
        return true
    }

    /// Drops what reads the state: the store's end, from a job of `drain`. The reader holds the
    /// store's core, which holds its consumers, which hold this host: this cuts that cycle.
    func endState() {
        state.value.read = nil
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

/// What reads a host's current state (see ``ConsumerHost/withCurrentState(_:)``): strong, and
/// dropped when the store ends, rather than a weak reference, which would put every retain and
/// release of the store's core on the runtime's slow path.
private final class StateReader {
    // `@exclusivity(unchecked)`: reached only through the host's `DrainBound`, which asserts in
    // debug builds that the caller runs the drain; each access is one load or store.
    @exclusivity(unchecked) var read: ((_ body: (UnsafeMutableRawPointer) -> Void) -> Void)?

    init(_ read: ((_ body: (UnsafeMutableRawPointer) -> Void) -> Void)?) {
        self.read = read
    }
}
