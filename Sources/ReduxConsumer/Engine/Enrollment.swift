/// What the engine needs to admit one member, kept for an add that waits (queued behind another
/// thread's work, or for a first state); made by `StateConsumer.register`, which is `@inlinable`,
/// so everything typed by the selected value is compiled in the caller's module. An add admitted
/// at once passes the same closure, unkept, and allocates nothing for it.
@usableFromInline
struct Enrollment: @unchecked Sendable {
    // @unchecked: made on the thread that adds the member and handed to its consumer's drain,
    // which alone runs these closures; they capture only the member's own values.

    @usableFromInline let id: UInt64
    /// The selection's key, or `nil` for a member that never shares its group.
    @usableFromInline let key: GroupKey?
    /// Places the member: joins an existing group of its consumer on the same selection, or
    /// makes the member's group with the member in it (returned). One closure for both, so a kept
    /// add allocates one context, not one per path.
    @usableFromInline let place: (_ placement: Placement) -> MemberGroup?
    /// Calls the member once with `old == new`, the group's current value (`.instantly`).
    @usableFromInline let fireInstantly:
        ((_ group: MemberGroup, _ state: UnsafeMutableRawPointer, _ drain: Drain) -> Void)?

    @inlinable
    init(
        id: UInt64,
        key: GroupKey?,
        place: @escaping (Placement) -> MemberGroup?,
        fireInstantly: ((MemberGroup, UnsafeMutableRawPointer, Drain) -> Void)?
    ) {
        self.id = id
        self.key = key
        self.place = place
        self.fireInstantly = fireInstantly
    }
}

extension Enrollment {
    /// Where a member goes (see ``Enrollment/place``).
    @usableFromInline
    enum Placement {
        /// Into an existing group of its consumer on the same selection.
        case join(MemberGroup)
        /// Into a new group; its cell shares `cell` (the node's, when one evaluates this selection
        /// already) or starts from the value in the state at `state`.
        case newGroup(
            state: UnsafeMutableRawPointer, cell: AnyObject?, routes: DeliveryRoutes, tag: UInt, cache: DerivationCache)
    }
}
