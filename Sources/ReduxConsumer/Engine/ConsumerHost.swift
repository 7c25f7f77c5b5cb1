/// Where a ``StateConsumer``'s members live and are fed from: a store, or the consumer itself
/// while it is fed by hand.
///
/// A consumer's registration is confined to its host's drain; it moves to a store's host when the
/// consumer is subscribed, and back to the consumer's own host when the subscription ends.
final class ConsumerHost<State: Sendable>: Sendable, CustomStringConvertible {
    let drain: Drain
    let engine: DrainBound<SelectionEngine>
    /// Runs `body` with the host's current state, if it has one (a store does; a consumer fed by
    /// hand keeps none between states); returns whether it did. Call from a job of `drain`.
    let withCurrentState: @Sendable (_ body: (UnsafeMutableRawPointer) -> Void) -> Bool
    /// Whether this is a store's host (named `Store<AppState>` in messages) rather than a
    /// consumer's own. The name is made when a message needs it: making it for every store costs
    /// a type-name lookup and, for most names, an allocation.
    let isStore: Bool

    init(
        drain: Drain,
        isStore: Bool,
        withCurrentState: @escaping @Sendable ((UnsafeMutableRawPointer) -> Void) -> Bool
    ) {
        self.drain = drain
        engine = DrainBound(SelectionEngine(drain: drain), drain: drain)
        self.isStore = isStore
        self.withCurrentState = withCurrentState
    }

    /// A consumer's own host: no state between the states it is fed.
    convenience init() {
        self.init(drain: Drain(), isStore: false) { _ in false }
    }

    /// The store's type and a short identity, for messages: `Store<AppState>(0x7f…)`.
    var description: String {
        let address = UInt(bitPattern: ObjectIdentifier(self))
        let name = isStore ? "Store<\(State.self)>" : "StateConsumer<\(State.self)>"
        return "\(name)(0x\(String(address, radix: 16)))"
    }
}
