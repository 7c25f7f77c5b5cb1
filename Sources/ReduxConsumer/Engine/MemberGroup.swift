/// One consumer's members on one selection, as the engine sees it: the group's place in the call
/// order, the node it is attached to, and closures specialised for its value type.
///
/// A group is made by `@inlinable` code in the caller's module when the consumer's first member on
/// a selection is added (see ``Enrollment``); its closures capture only its typed half, which then
/// serves as their context, so they cost no allocation of their own. Confined to the drain of the
/// engine it is in.
@usableFromInline
final class MemberGroup {
    /// Reads a selection from the state at an address, compares it with a cell's last value and
    /// records it there when it changed; returns whether it changed (see ``SelectionNode``).
    @usableFromInline
    typealias Evaluation = (_ state: UnsafeMutableRawPointer, _ cell: AnyObject, _ cache: DerivationCache) -> Bool

    // The stored properties a pass reads for every fired group come first, so that they share
    // the object's first cache line (a class's stored properties are laid out in declaration
    // order): the delivery closure, the call order, the sole member, the pass mark and the typed
    // half.
    // `@exclusivity(unchecked)` on the ones a group's typed loop reads (from the caller's module,
    // where each access would otherwise be checked at run time): the group is confined to its
    // engine's drain like the engine, and each access is one load or store, never across a call.

    /// Calls every live member with the cell's change, in identifier order; `drain` is the drain
    /// running the call, which checks for removals made from other threads.
    @usableFromInline let deliverAll: (_ state: UnsafeMutableRawPointer, _ drain: Drain) -> Void
    /// The call order of the group's consumer in its engine: consumers are called in the order
    /// they subscribed, each one's members together.
    @exclusivity(unchecked) @usableFromInline var order: UInt64 = 0
    /// The member the group was made for, while no other member has joined it, known without
    /// asking the typed half: groups of one member are the common case of a consumer with several
    /// fired groups (closure selectors, key paths on distinct fields), and ordering them needs no
    /// more than this, read beside `order`. Set as the group is made, and 0 from the first member
    /// that joins (see ``SelectionEngine/admit(_:key:fireInstantly:into:state:isAdding:place:)``,
    /// the only place members join), for good: member identifiers start at 1, and an optional
    /// would take a word more in every group. Its member may have been removed since (the group
    /// then has no live member and is leaving its node): ordering by it is harmless.
    var soleMember: UInt64 = 0
    /// The pass that skips the group, counted by the engine `skippedBy`: its consumer came back
    /// to that engine during the pass (it heard the change as it came back), or left it (it may
    /// come into another engine before the pass reaches it, and hear the change there). The
    /// engine is named because the group may move to another one, whose passes count alike. The
    /// pass orders the group by `passOrder`, the order it had when the pass began.
    @exclusivity(unchecked) @usableFromInline var skippedInPass: UInt64 = 0
    /// The typed half, for everything but evaluation and delivery (a pass that fired one node
    /// reaches it here, see ``deliverGroups``).
    @usableFromInline let members: any GroupMembers
    var passOrder: UInt64 = 0
    /// The selection's key, or `nil` for a group no other member may join.
    let key: GroupKey?
    /// The node evaluating the group's selection, while the group is in an engine.
    var node: SelectionNode?
    /// Where the group sits in its registration's ``Registration/groups`` (-1 once it left), so
    /// that a group leaves it in O(1): a consumer whose members are removed one by one does not
    /// scan its groups for each.
    var registrationIndex = -1

    /// Whether pass `pass` of `engine` skips the group.
    @inlinable
    @inline(__always)
    func isSkipped(inPass pass: UInt64, of engine: ObjectIdentifier) -> Bool {
        // The pass number first: it differs for all but the groups that came or went.
        skippedInPass == pass && skippedBy == UInt(bitPattern: engine)
    }

    /// Makes pass `pass` of `engine` skip the group (if it does not already).
    func skip(inPass pass: UInt64, of engine: ObjectIdentifier) {
        guard !isSkipped(inPass: pass, of: engine) else { return }
        passOrder = order
        skippedInPass = pass
        skippedBy = UInt(bitPattern: engine)
    }

    /// Erases the mark of pass `pass` of `engine`, if the group still has it: at that pass's end.
    func forgetSkip(inPass pass: UInt64, of engine: ObjectIdentifier) {
        guard isSkipped(inPass: pass, of: engine) else { return }
        skippedInPass = 0
        skippedBy = 0
    }

    /// The group's call order as pass `pass` of `engine` knows it.
    func orderInPass(_ pass: UInt64, of engine: ObjectIdentifier) -> UInt64 {
        isSkipped(inPass: pass, of: engine) ? passOrder : order
    }

    /// Calls the member in one slot, if it is live.
    let deliverSlot: (_ slot: Int, _ state: UnsafeMutableRawPointer, _ drain: Drain) -> Void
    /// Calls the groups of a pass that fired one node, each one a consumer's, in order, at one
    /// call level: one loop compiled for this group's types, which calls the lone member of each
    /// group of those types itself and every other group through its ``deliverAll`` (see
    /// ``TypedGroup/deliverGroups(_:entries:rows:state:drain:level:pass:engine:cursor:)``).
    let deliverGroups:
        (
            _ groups: UnsafeBufferPointer<MemberGroup>, _ entries: UnsafeBufferPointer<DeliveryEntry>,
            _ rows: SoleCallRows?, _ state: UnsafeMutableRawPointer, _ drain: Drain, _ level: Drain.CallLevel,
            _ pass: UInt64, _ engine: ObjectIdentifier, _ cursor: RunCursor
        ) -> Void
    /// Answers the questions a pass asks of the member list (see ``ListQuery``), compiled for the
    /// group's types: through ``members`` the same questions run unspecialised generic code, which
    /// looks up the list's type metadata and copies whole entries on every call (about a
    /// microsecond per fired group of a consumer with several).
    let list: (_ query: ListQuery) -> UInt64
    /// Removes one member: what it held (to release once the caller's work is done) and whether
    /// the group is left empty. A closure specialised for the value type, like the two above:
    /// through ``members`` the removal would run unspecialised generic code.
    let removeMember: (_ member: UInt64) -> (removed: (any Sendable)?, isEmpty: Bool)

    @usableFromInline
    init(
        key: GroupKey?,
        members: any GroupMembers,
        deliverAll: @escaping (UnsafeMutableRawPointer, Drain) -> Void,
        deliverSlot: @escaping (Int, UnsafeMutableRawPointer, Drain) -> Void,
        deliverGroups:
            @escaping (
                UnsafeBufferPointer<MemberGroup>, UnsafeBufferPointer<DeliveryEntry>, SoleCallRows?,
                UnsafeMutableRawPointer, Drain, Drain.CallLevel, UInt64, ObjectIdentifier, RunCursor
            ) -> Void,
        list: @escaping (ListQuery) -> UInt64,
        removeMember: @escaping (UInt64) -> (removed: (any Sendable)?, isEmpty: Bool)
    ) {
        self.key = key
        self.members = members
        self.deliverAll = deliverAll
        self.deliverSlot = deliverSlot
        self.deliverGroups = deliverGroups
        self.list = list
        self.removeMember = removeMember
    }

    /// The engine of ``skippedInPass``: its `ObjectIdentifier` as a number (0: none), a word where
    /// an optional takes two. Last: read only when the pass number matches.
    // `@exclusivity(unchecked)`: as for the fields at the top (confined, single loads and stores).
    @exclusivity(unchecked) @usableFromInline var skippedBy: UInt = 0

    #if DEBUG
        /// The passes in progress whose list holds the group unretained (see
        /// ``SelectionEngine/SortKey/group``), counted by debug builds: a group freed while one
        /// does would be called after its end.
        var passHolds = 0

        deinit {
            assert(passHolds == 0, "a group freed during a pass that holds it unretained")
        }
    #endif

    /// Whether no member has joined the group since it was made (see ``soleMember``).
    var hasSoleMember: Bool { soleMember != 0 }

    /// The identifier of the first live member, for ordering groups of one consumer.
    var firstLiveMember: UInt64 {
        hasSoleMember ? soleMember : list(.firstLiveMember)
    }

    /// The identifier of the last live member, or 0 when there is none.
    var lastLiveMember: UInt64 {
        hasSoleMember ? soleMember : list(.lastLiveMember)
    }

    /// The member list's slots a delivery walks (holes included, pending members excluded).
    var slotCount: Int { Int(list(.slotCount)) }

    /// The first live slot at or after `slot` (or ``slotCount``).
    func liveSlot(from slot: Int) -> Int { Int(list(.liveSlot(from: slot))) }

    /// The identifier of the member in `slot`.
    func identifier(atSlot slot: Int) -> UInt64 { list(.identifier(atSlot: slot)) }

    /// Starts an iteration of the member list: members added meanwhile wait until it ends.
    func beginIteration() { _ = list(.beginIteration) }

    /// Ends an iteration; the last one lets waiting members in.
    func endIteration() { _ = list(.endIteration) }
}

/// A question a pass asks of a group's member list, answered by ``MemberGroup/list``.
@usableFromInline
enum ListQuery {
    case beginIteration
    case endIteration
    case slotCount
    case liveSlot(from: Int)
    case identifier(atSlot: Int)
    /// The identifier of the first live member, or `UInt64.max` when there is none.
    case firstLiveMember
    /// The identifier of the last live member, or 0 when there is none.
    case lastLiveMember
}
