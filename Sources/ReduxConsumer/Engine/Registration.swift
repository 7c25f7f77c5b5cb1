/// Everything one ``StateConsumer`` registered: its groups, which member is where, and the members
/// still waiting for a first state.
///
/// It lives in the engine of whatever feeds the consumer (a store, or the consumer itself when it
/// is fed by hand) and moves with the consumer between them; confined to the drain of that feeder.
final class Registration {
    // `@exclusivity(unchecked)` on the tables an add or a removal changes: the registration is
    // reached only through `StateConsumer.registration(in:)`, which asserts in debug builds that
    // the caller runs its host's drain, and no access spans a user call (removals hand what they
    // take out to the caller), so accesses never overlap; the dynamic check cost two calls a table
    // on every add and removal.

    /// The consumer's call order in ``engine``.
    var order: UInt64 = 0
    /// The engine whose nodes the groups are attached to, or `nil` while none is.
    var engine: SelectionEngine?
    /// Groups by selection key, for members joining them.
    @exclusivity(unchecked) var groupsByKey: [GroupKey: MemberGroup] = [:]
    /// Every group, keyed or not, in no particular order: a group leaves by swapping with the last
    /// one (see ``MemberGroup/registrationIndex``).
    @exclusivity(unchecked) var groups: [MemberGroup] = []
    /// The group of every admitted member, by identifier: removal finds a member by two binary
    /// searches, with no hashing and 16 bytes per member. Never iterated, so nothing waits in its
    /// pending list.
    @exclusivity(unchecked) var groupOfMember = SlotList<MemberGroup>()
    /// Members added while no state was known, in identifier order; admitted with the next state.
    /// A slot list: a member added while others are being admitted (from their callbacks) waits
    /// for the state after, and removing a waiting member is a binary search.
    @exclusivity(unchecked) var waiting = SlotList<Enrollment>()
    /// Where callbacks that are not called in place are posted.
    let routes: DeliveryRoutes

    init(routes: DeliveryRoutes) {
        self.routes = routes
    }

    /// Names the registration in removal marks and in the callback a drain is calling (see
    /// ``Drain``); unique while the registration lives.
    var tag: UInt {
        UInt(bitPattern: ObjectIdentifier(self))
    }

    /// Members admitted or waiting.
    var memberCount: Int {
        groupOfMember.count + waiting.count
    }

    func add(_ group: MemberGroup) {
        assert(group.registrationIndex < 0, "a group added to a registration twice")
        group.registrationIndex = groups.count
        groups.append(group)
        if let key = group.key {
            groupsByKey[key] = group
        }
    }

    /// Takes `group` out in O(1): the last group takes its place.
    func remove(_ group: MemberGroup) {
        let index = group.registrationIndex
        if index >= 0 {
            assert(groups[index] === group, "a group's index in its registration out of step")
            let last = groups.removeLast()
            if last !== group {
                groups[index] = last
                last.registrationIndex = index
            }
            group.registrationIndex = -1
        }
        if let key = group.key, groupsByKey[key] === group {
            groupsByKey.removeValue(forKey: key)
        }
    }

    /// Queues a member for the next state, keeping identifier order (a member queued from another
    /// thread may arrive after a later one).
    func wait(_ enrollment: Enrollment) {
        waiting.insert(enrollment, identifier: enrollment.id)
    }

    /// Removes one member; returns what it held (to release once the caller's work is done), or
    /// `nil` when it was not registered.
    func remove(_ member: UInt64) -> (any Sendable)? {
        guard let group = groupOfMember.remove(member) else {
            return waiting.remove(member)
        }
        let (removed, isEmpty) = group.removeMember(member)
        if isEmpty {
            group.members.silence()
            remove(group)
            engine?.detach(group)
        }
        return removed
    }

    /// Removes the members up to identifier `last` (those a `removeAll()` found), leaving any
    /// added after it; returns what they held.
    func removeAll(through last: UInt64) -> [any Sendable] {
        let members = groupOfMember.identifiers(through: last) + waiting.identifiers(through: last)
        guard members.count < memberCount else { return removeAll().removed }
        return members.compactMap { remove($0) }
    }

    /// Removes every member; returns how many there were and what they held.
    func removeAll() -> (count: Int, removed: [any Sendable]) {
        let count = memberCount
        var removed: [any Sendable] = waiting.removeAll()
        for group in groups {
            group.members.silence()
            removed += group.members.removeAll()
            engine?.detach(group)
        }
        for group in groups {
            group.registrationIndex = -1
        }
        groups.removeAll()
        groupsByKey.removeAll()
        groupOfMember.clear()
        return (count, removed)
    }
}
