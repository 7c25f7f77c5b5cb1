/// What a shared node puts in the place of a group that left it (see ``SelectionNode/detach(_:vacancy:)``):
/// a group with no members, whose calls do nothing.
///
/// Removing a group from the middle of a node's lists moves every group after it; with a page per
/// request watching one global field, pages that end in the order they began made each removal
/// cost the whole list (quadratic in the pages). A vacancy takes the group's place instead, at
/// no cost, and the node drops its vacancies all at once when they outnumber its groups (O(1)
/// amortised per removal). The delivery loops need no test of their own: a vacancy's entry names
/// a typed half of another type, and its row no member, so a loop asks the group itself, and the
/// vacancy's ``MemberGroup/deliverAll`` calls no one. The loops that order groups (a pass that
/// fired several nodes) pass it over.
///
/// One per engine, made the first time a node of that engine leaves a vacancy (an idle page pays
/// nothing for it), and confined to the engine's drain like everything in it. Its own
/// ``MemberGroup/order`` stays 0, which no consumer has (orders start at 1): the order of a
/// vacant place is in its ``DeliveryEntry``.
enum Vacancy {
    /// A new vacancy, for one engine.
    static func make() -> MemberGroup {
        let members = VacantMembers()
        return MemberGroup(
            key: nil, members: members,
            deliverAll: { _, _ in },
            deliverSlot: { _, _, _ in },
            deliverGroups: { _, _, _, _, _, _, _, _, _ in
                // A pass takes the typed loop from a group, never from a vacancy (see
                // ``SelectionEngine/deliverRuns(state:)``).
                assertionFailure("a pass asked a vacancy for the delivery loop of its node")
            },
            list: { query in
                switch query {
                case .firstLiveMember: return .max
                case .beginIteration, .endIteration, .slotCount, .liveSlot, .identifier, .lastLiveMember: return 0
                }
            },
            removeMember: { _ in (nil, true) })
    }

    /// Whether `type` is the typed half's type of a vacancy (read from a ``DeliveryEntry``).
    static func isVacant(_ type: ObjectIdentifier) -> Bool {
        type == ObjectIdentifier(VacantMembers.self)
    }
}

/// The typed half of a vacancy: no members, no value, nothing to do.
final class VacantMembers: GroupMembers {
    /// Never read: a vacancy is never attached as a group (it only fills a place).
    let ownCell = EvaluatedCell { _, _, _ in false }

    var slotCount: Int { 0 }
    func identifier(atSlot slot: Int) -> UInt64 { 0 }
    func liveSlot(from slot: Int) -> Int { 0 }
    func beginIteration() {}
    func endIteration() {}
    func removeAll() -> [any Sendable] { [] }
    func silence() {}
    func resume() {}
    func leave(unreachedAfter watermark: UInt64?) {}
    func beginCatchUp(
        changed: Bool, state: UnsafeMutableRawPointer,
        evaluate: (UnsafeMutableRawPointer, AnyObject, DerivationCache) -> Bool, cache: DerivationCache
    ) -> Bool { false }
    func endCatchUp() {}
    func share(_ cell: EvaluatedCell) {}
    func makeSoleCallRows() -> SoleCallRows { SoleCallRows() }
    func useRows(_ rows: SoleCallRows?, order: UInt64) {}
}
