/// A store's published state, and how its drain publishes the working state there: the
/// type-erased half of ``StoreShared``, which the drain calls directly, with no object or closures
/// of its own between them. Guarded by the lock of the store's drain, like the rest of
/// ``StoreShared``.
class StatePublisher: @unchecked Sendable {
    // @unchecked: every access is inside `Drain.locked` of the owning store's drain, or by that
    // drain's owner (its publishes assert it in debug builds).

    /// The published state: read under the lock by every thread, and without it by the drain's
    /// owner, the only thread that writes it. One of two buffers allocated by ``StoreShared`` and
    /// freed in `deinit`; `publish()` swaps them until the store knows its state's layout, then
    /// writes this one in place.
    // `@exclusivity(unchecked)`: accessed under the lock or by its one writer, never across a call.
    @exclusivity(unchecked) final private(set) var published: UnsafeMutableRawPointer
    /// The other buffer: between a publish (under the lock) and its release (right after it), the
    /// state that publish replaced, or with a layout the old values of the fields it changed (at
    /// their offsets); uninitialised otherwise. Touched by the drain's owner only.
    @exclusivity(unchecked) final private var retired: UnsafeMutableRawPointer
    /// The store's working state (its core's), which `publish()` copies.
    // Raw and unowned: the core outlives every publish, which runs in one of the store's jobs
    // (each holds the core) and asserts in debug builds that the drain's owner calls it.
    private let working: UnsafeMutableRawPointer
    private let publishing: StatePublishing
    /// Once learned, where the state keeps its references: a publish then copies only the fields
    /// that changed, in place, and sets their old values aside in `retired` (see ``StateLayout``).
    /// Touched by the drain's owner only, like `retired`.
    @exclusivity(unchecked) final private var layout: StateLayout?
    /// How many fields the next publish with `layout` sets aside in `retired` (found by
    /// `preparePublish()`), then how many it set aside, until `releaseRetired()`.
    // `@exclusivity(unchecked)`, like `layout` and `publishesBeforeLayout`: the drain's owner only
    // (its publishes assert it in debug builds), never across a call.
    @exclusivity(unchecked) final private var changedFields: Int32 = 0
    /// Publishes until the store learns its state's layout (see ``StateLayout``): a store that
    /// publishes this often pays the one-off reflection (about a microsecond per field) out of
    /// what it saves, and a short-lived one (a page for one request) never pays it.
    @exclusivity(unchecked) final private var publishesBeforeLayout: Int32 = 1_024
    /// Whether `retired` holds the state the last `publish()` replaced. Touched by the drain's
    /// owner only, as `retired` is (`@exclusivity(unchecked)` for the same reason: read and
    /// written on every dispatch, never across a call).
    @exclusivity(unchecked) final private var hasRetired = false
    /// Whether the store was torn down: what is made later starts finished, and nothing more is
    /// published. `@exclusivity(unchecked)`: read by every publish; accessed under the lock only,
    /// never across a call.
    @exclusivity(unchecked) final var isTornDown = false

    /// Takes `published` (initialised) and `retired` (uninitialised), two buffers for one state
    /// each, to free in `deinit`.
    init(
        published: UnsafeMutableRawPointer,
        retired: UnsafeMutableRawPointer,
        working: UnsafeMutableRawPointer,
        publishing: StatePublishing
    ) {
        self.published = published
        self.retired = retired
        self.working = working
        self.publishing = publishing
    }

    /// Readies a publish; the drain's owner calls it before taking the lock for ``publish()``.
    /// Returns whether that publish will set aside anything for ``releaseRetired()``: when it
    /// will not (the state's layout is known and no field holding references changed), the
    /// publish may share the lock round trip that lets the drain go.
    final func preparePublish() -> Bool {
        // `isTornDown` is not read here, outside the lock: a publish after a teardown sets
        // nothing aside, and says so in `changedFields`.
        guard let layout else { return true }
        changedFields = Int32(truncatingIfNeeded: layout.findChanges(working, from: published))
        return changedFields > 0
    }

    /// Publishes the working state, readied by ``preparePublish()``; the drain's owner calls it
    /// under the drain's lock. Without a layout, the state it replaces stays where it is, in the
    /// buffer that becomes `retired`: swapping the two pointers saves moving a whole state
    /// (callgrind, S1).
    final func publish() {
        // Torn down (a closed page): the state stays what it was at the close, even when a
        // reduction in progress on another thread then ends later.
        guard !isTornDown else {
            changedFields = 0
            return
        }
        if let layout {
            layout.publish(working, over: published, settingAsideIn: retired, changed: Int(changedFields))
            return
        }
        let fresh = retired
        retired = published
        published = fresh
        publishing.copy(working, fresh)
        hasRetired = true
    }

    /// Releases the state `publish()` replaced, if it replaced one; the drain's owner calls it
    /// after the lock.
    final func releaseRetired() {
        if let layout {
            if changedFields > 0 {
                layout.release(retired, count: Int(changedFields))
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
                layout = StateLayout(of: publishing.stateType)
            }
        }
    }

    /// Whether publishes copy only the fields that changed (see ``StateLayout``); for tests.
    final var publishesChangedFieldsOnly: Bool { layout != nil }

    deinit {
        publishing.release(published)
        published.deallocate()
        retired.deallocate()
        layout?.deallocate()
    }
}

/// How a store publishes its state, compiled in the module that made the store for its concrete
/// `State` (this module runs the store's code unspecialised, where a copy or a release goes field
/// by field through the type's value witnesses): a state's copy is the cost of publishing it.
/// Type-erased to raw pointers, each to a `State`, so that ``StatePublisher`` need not be generic.
@usableFromInline
struct StatePublishing: Sendable {
    /// Under the drain's lock, a copy only (no user code): initialises `published`, uninitialised
    /// memory, with a copy of `working`.
    let copy: @Sendable (_ working: UnsafeMutableRawPointer, _ published: UnsafeMutableRawPointer) -> Void
    /// After the lock: releases the state a publish replaced (a `deinit` it runs is user code).
    let release: @Sendable (_ retired: UnsafeMutableRawPointer) -> Void
    /// The state's type, whose layout a store learns (see ``StateLayout``).
    let stateType: Any.Type

    @inlinable
    init<State>(_ state: State.Type) {
        self.init(
            copy: { working, published in
                // In place: `initialize(to: working.pointee)` would copy field by field through a
                // temporary, half again the cost for a large struct (callgrind, S1).
                published.assumingMemoryBound(to: State.self).initialize(
                    from: working.assumingMemoryBound(to: State.self), count: 1)
            },
            release: { retired in retired.assumingMemoryBound(to: State.self).deinitialize(count: 1) },
            stateType: State.self
        )
    }

    @usableFromInline
    init(
        copy: @escaping @Sendable (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void,
        release: @escaping @Sendable (UnsafeMutableRawPointer) -> Void,
        stateType: Any.Type
    ) {
        self.copy = copy
        self.release = release
        self.stateType = stateType
    }
}
