/// What a store shares with every thread: its published state (see ``StatePublisher``) and
/// counts, guarded by the lock of the store's drain.
final class StoreShared<State>: StatePublisher, @unchecked Sendable {
    // @unchecked: every access is inside `Drain.locked` of the owning store's drain.
    var subscriberCount = 0
    /// The last call order handed out; closure subscribers and consumers are called in this order.
    var lastOrder: UInt64 = 0
    /// Registrations cancelled before the job that adds them ran.
    var cancelledEarly: Set<UInt64> = []
    /// Made on first use (see `Store.teardown` and `Store.effects`).
    var teardown: Teardown?
    var effects: EffectRunner?

    init(state: State, working: UnsafeMutablePointer<State>, publishing: StatePublishing) {
        // The publish steps are typed for `State`, the buffers below hold one (see `state`).
        assert(publishing.stateType == State.self, "a store's publishing was made for another state type")
        let published = UnsafeMutablePointer<State>.allocate(capacity: 1)
        published.initialize(to: state)
        super.init(
            published: UnsafeMutableRawPointer(published),
            retired: UnsafeMutableRawPointer(UnsafeMutablePointer<State>.allocate(capacity: 1)),
            working: UnsafeMutableRawPointer(working), publishing: publishing)
    }

    /// The published state (see ``StatePublisher/published``).
    var state: UnsafeMutablePointer<State> {
        // Both buffers were allocated for a `State` in `init`, and a publish only ever puts a
        // `State` in them (`StatePublishing` is made for this `State`); every test that reads a
        // store's state reads it here.
        published.assumingMemoryBound(to: State.self)
    }
}
