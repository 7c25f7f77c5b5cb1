/// What a store shares with every thread: its published state and counts, guarded by the lock of
/// the store's drain.
final class StoreShared<State>: @unchecked Sendable {
    // @unchecked: every access is inside `Drain.locked` of the owning store's drain.
    /// The published state: read under the lock by every thread, and without it by the drain's
    /// owner, the only thread that writes it. One of two buffers allocated in `init` and freed in
    /// `deinit`; `publish()` swaps them until the store knows its state's layout, then writes
    /// this one in place.
    // `@exclusivity(unchecked)`: accessed under the lock or by its one writer, never across a call.
    @exclusivity(unchecked) private(set) var state: UnsafeMutablePointer<State>
    /// The other buffer: between a publish (under the lock) and its release (right after it), the
    /// state that publish replaced, or with a layout the old values of the fields it changed (at
    /// their offsets); uninitialised otherwise. Touched by the drain's owner only.
    @exclusivity(unchecked) private var retired: UnsafeMutablePointer<State>
    /// Whether `retired` holds the state the last `publish()` replaced. Touched by the drain's
    /// owner only, as `retired` is (`@exclusivity(unchecked)` for the same reason: read and
    /// written on every dispatch, never across a call).
    @exclusivity(unchecked) private var hasRetired = false
    var subscriberCount = 0
    /// The last call order handed out; closure subscribers and consumers are called in this order.
    var lastOrder: UInt64 = 0
    /// Registrations cancelled before the job that adds them ran.
    var cancelledEarly: Set<UInt64> = []
    /// Made on first use (see `Store.teardown` and `Store.effects`).
    var teardown: Teardown?
    var effects: EffectRunner?
    /// Whether the store was torn down: what is made later starts finished, and nothing more is
    /// published. `@exclusivity(unchecked)`: read by every publish; accessed under the lock only,
    /// never across a call.
    @exclusivity(unchecked) var isTornDown = false

    /// The store's working state (its core's), which `publish()` copies.
    private let working: UnsafeMutablePointer<State>
    private let publishing: StatePublishing<State>
    /// Once learned, where the state keeps its references: a publish then copies only the fields
    /// that changed, in place, and sets their old values aside in `retired` (see ``StateLayout``).
    /// Touched by the drain's owner only, like `retired`.
    @exclusivity(unchecked) private var layout: StateLayout?
    /// How many fields the next publish with `layout` sets aside in `retired` (found by
    /// `preparePublish()`), then how many it set aside, until `releaseRetired()`.
    // `@exclusivity(unchecked)`, like `layout` and `publishesBeforeLayout`: the drain's owner only
    // (its publishes assert it in debug builds), never across a call.
    @exclusivity(unchecked) private var changedFields = 0
    /// Publishes until the store learns its state's layout (see ``StateLayout``): a store that
    /// publishes this often pays the one-off reflection (about a microsecond per field) out of
    /// what it saves, and a short-lived one (a page for one request) never pays it.
    @exclusivity(unchecked) private var publishesBeforeLayout = 1_024

    init(state: State, working: UnsafeMutablePointer<State>, publishing: StatePublishing<State>) {
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: state)
        retired = .allocate(capacity: 1)
        self.working = working
        self.publishing = publishing
    }

    /// Readies a publish; the drain's owner calls it before taking the lock for ``publish()``.
    /// Returns whether that publish will set aside anything for ``releaseRetired()``: when it
    /// will not (the state's layout is known and no field holding references changed), the
    /// publish may share the lock round trip that lets the drain go.
    func preparePublish() -> Bool {
        // `isTornDown` is not read here, outside the lock: a publish after a teardown sets
        // nothing aside, and says so in `changedFields`.
        guard let layout else { return true }
        changedFields = layout.findChanges(working, from: state)
        return changedFields > 0
    }

    /// Publishes the working state, readied by ``preparePublish()``; the drain's owner calls it
    /// under the drain's lock. Without a layout, the state it replaces stays where it is, in the
    /// buffer that becomes `retired`: swapping the two pointers saves moving a whole state
    /// (callgrind, S1).
    func publish() {
        // Torn down (a closed page): the state stays what it was at the close, even when a
        // reduction in progress on another thread then ends later.
        guard !isTornDown else {
            changedFields = 0
            return
        }
        if let layout {
            layout.publish(working, over: state, settingAsideIn: retired, changed: changedFields)
            return
        }
        // By hand: the generic `swap` would look up the pointer type's metadata on every call.
        let fresh = retired
        retired = state
        state = fresh
        publishing.copy(working, fresh)
        hasRetired = true
    }

    /// Releases the state `publish()` replaced, if it replaced one; the drain's owner calls it
    /// after the lock.
    func releaseRetired() {
        if let layout {
            if changedFields > 0 {
                layout.release(retired, count: changedFields)
                changedFields = 0
            }
            return
        }
        if hasRetired {
            hasRetired = false
            publishing.release(retired)
        }
        if publishesBeforeLayout > 0 {
            publishesBeforeLayout -= 1
            if publishesBeforeLayout == 0 {
                // Outside the lock, by the drain's owner, with nothing set aside in `retired`.
                layout = StateLayout(of: State.self)
            }
        }
    }

    /// Whether publishes copy only the fields that changed (see ``StateLayout``); for tests.
    var publishesChangedFieldsOnly: Bool { layout != nil }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        retired.deallocate()
        layout?.deallocate()
    }
}

/// How a store publishes its state, compiled in the module that made the store for its concrete
/// `State` (this module runs the store's code unspecialised, where a copy or a release goes field
/// by field through the type's value witnesses): a state's copy is the cost of publishing it.
@usableFromInline
struct StatePublishing<State>: Sendable {
    /// Under the drain's lock, a copy only (no user code): initialises `published`, uninitialised
    /// memory, with a copy of `working`.
    let copy: @Sendable (_ working: UnsafeMutablePointer<State>, _ published: UnsafeMutablePointer<State>) -> Void
    /// After the lock: releases the state a publish replaced (a `deinit` it runs is user code).
    let release: @Sendable (_ retired: UnsafeMutablePointer<State>) -> Void

    @inlinable
    init() {
        self.init(
            copy: { working, published in
                // In place: `initialize(to: working.pointee)` would copy field by field through a
                // temporary, half again the cost for a large struct (callgrind, S1).
                published.initialize(from: working, count: 1)
            },
            release: { retired in retired.deinitialize(count: 1) }
        )
    }

    @usableFromInline
    init(
        copy: @escaping @Sendable (UnsafeMutablePointer<State>, UnsafeMutablePointer<State>) -> Void,
        release: @escaping @Sendable (UnsafeMutablePointer<State>) -> Void
    ) {
        self.copy = copy
        self.release = release
    }
}
