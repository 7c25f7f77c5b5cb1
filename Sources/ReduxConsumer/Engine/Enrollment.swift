/// What the engine needs to admit one member; made by `StateConsumer.register`, which is
/// `@inlinable`, so everything typed by the selected value is compiled in the caller's module.
@usableFromInline
struct Enrollment: @unchecked Sendable {
    // @unchecked: made on the thread that adds the member and handed to its consumer's drain,
    // which alone runs these closures; they capture only the member's own values.

    @usableFromInline let id: UInt64
    /// The selection's key, or `nil` for a member that never shares its group.
    @usableFromInline let key: GroupKey?
    /// Makes the member's group, with the member in it: the cell shares `cell` (the node's, when
    /// one evaluates this selection already) or starts from the state's value.
    @usableFromInline let makeGroup:
        (
            _ state: UnsafeMutableRawPointer, _ cell: AnyObject?, _ routes: DeliveryRoutes, _ tag: UInt,
            _ cache: DerivationCache
        ) -> MemberGroup
    /// Adds the member to an existing group of its consumer on the same selection.
    @usableFromInline let join: (_ group: MemberGroup) -> Void
    /// Calls the member once with `old == new`, the group's current value (`.instantly`).
    @usableFromInline let fireInstantly:
        ((_ group: MemberGroup, _ state: UnsafeMutableRawPointer, _ drain: Drain) -> Void)?

    @inlinable
    init(
        id: UInt64,
        key: GroupKey?,
        makeGroup:
            @escaping (UnsafeMutableRawPointer, AnyObject?, DeliveryRoutes, UInt, DerivationCache) -> MemberGroup,
        join: @escaping (MemberGroup) -> Void,
        fireInstantly: ((MemberGroup, UnsafeMutableRawPointer, Drain) -> Void)?
    ) {
        self.id = id
        self.key = key
        self.makeGroup = makeGroup
        self.join = join
        self.fireInstantly = fireInstantly
    }
}
