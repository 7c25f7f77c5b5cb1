/// One evaluation of one selection in an engine: read the value, compare it with the last one,
/// and, when it changed, fire every group attached to it.
///
/// Groups of every consumer that watch the same key path (or the same derived selector) in one
/// engine attach to the same node, so the value is read and compared once per state however many
/// consumers watch it; a consumer none of whose nodes fired costs nothing. Confined to the
/// engine's drain.
final class SelectionNode {
    /// What lets other groups attach; `nil` for a node only its first group may use (closure
    /// selectors, `isEqual`, `.pulse`).
    let key: GroupKey?
    /// The shared ``ValueCell``, which holds the node's evaluation: it reads the selection from
    /// the state, compares it with the cell's last value, and records it there when it changed
    /// (specialised for the value's type, see ``TypedGroup``).
    let cell: EvaluatedCell
    /// The attached groups, in increasing ``MemberGroup/order``: the order consumers are called in.
    /// A group that left may leave its engine's ``Vacancy`` in its place (see ``detach(_:vacancy:)``),
    /// so the list holds ``liveCount`` groups and ``vacantCount`` vacancies; while it holds any
    /// vacancy, it holds two groups or more (a node with one group has no vacancy).
    /// `@exclusivity(unchecked)`: read by every pass that fires the node (the dynamic check cost
    /// as much as the rest of a one-node pass's bookkeeping); the node is confined to its
    /// engine's drain, and a pass shares or reads the list between callbacks, never across one.
    @exclusivity(unchecked) var groups: [MemberGroup] = []
    /// What a delivery loop reads of each group in `groups`, at the same index (see
    /// ``DeliveryEntry``); changed with `groups`, always both at once. Sorted by order, vacant
    /// places included (each keeps the order of the group that left it), and no two places have
    /// the same order. `@exclusivity(unchecked)` as `groups`.
    @exclusivity(unchecked) var entries: [DeliveryEntry] = []
    /// The places in `groups` a vacancy fills.
    private(set) var vacantCount = 0
    #if DEBUG
        /// Counts attachments and detachments, in debug builds: a pass that reads `groups` in
        /// place, unretained, asserts that it did not change meanwhile (see
        /// ``SelectionEngine/evaluate(_:)``).
        var changes = 0
    #endif
    /// The lone members of the attached groups, in a list of their own (see ``SoleCallRows``);
    /// `nil` for a node only its first group may use.
    let soleRows: SoleCallRows?
    /// Where the node sits in its engine's evaluation list.
    var index = -1

    init(key: GroupKey?, cell: EvaluatedCell, soleRows: SoleCallRows?) {
        self.key = key
        self.cell = cell
        self.soleRows = soleRows
    }

    /// The groups attached (the places in `groups` no vacancy fills).
    var liveCount: Int { groups.count - vacantCount }

    /// Attaches `group` at its place in consumer order.
    ///
    /// - Complexity: O(1) for a group of the most recently subscribed consumer, or when the group
    ///   takes back the place its consumer left; O(n) otherwise (a binary search and a move of the
    ///   groups after it).
    func attach(_ group: MemberGroup) {
        #if DEBUG
            changes &+= 1
        #endif
        let index: Int
        if let last = entries.last, last.order >= group.order {
            index = firstIndex(orderedAtOrAfter: group.order)
            if index < entries.count, entries[index].order == group.order, entries[index].isVacant {
                // Orders are distinct between consumers, and each consumer has one group on a
                // node: a vacant place with this order is the one the consumer's group left.
                groups[index] = group
                entries[index] = DeliveryEntry(group)
                vacantCount -= 1
                group.members.useRows(soleRows, order: group.order)
                soleRows?.didFill(index, with: group)
                return
            }
            // A live group with the same order (which no caller makes) is kept beside this one.
            groups.insert(group, at: index)
            entries.insert(DeliveryEntry(group), at: index)
        } else {
            index = groups.count
            groups.append(group)
            entries.append(DeliveryEntry(group))
        }
        group.members.useRows(soleRows, order: group.order)
        soleRows?.didAttach(group, at: index, of: groups)
    }

    /// Detaches `group`, leaving `vacancy()` in its place or dropping the node's vacancies.
    ///
    /// - Complexity: A binary search, then O(1) amortised: the group's place is left to a vacancy
    ///   unless it is the last one, and the vacancies go all at once (O(n)) when they would
    ///   outnumber the groups, or when one group or none would be left. Pages that end in the
    ///   order they began do not move the pages after them, one page at a time.
    func detach(_ group: MemberGroup, vacancy: () -> MemberGroup) {
        #if DEBUG
            changes &+= 1
        #endif
        // Orders are distinct on a node (one group per consumer and selection, and a vacancy
        // keeps the order of the group that left it, which no other consumer has); the scan only
        // guards against a group with an equal order.
        var index = firstIndex(orderedAtOrAfter: group.order)
        while index < groups.count, entries[index].order == group.order {
            if groups[index] === group {
                group.members.useRows(nil, order: 0)
                // The groups left, and the vacancies left if the place goes to one.
                let live = liveCount - 1
                let isLast = index == groups.count - 1
                let vacancies = isLast ? vacantCount : vacantCount + 1
                if isLast, vacantCount == 0 || (live >= 2 && vacancies <= live) {
                    groups.removeLast()
                    entries.removeLast()
                    soleRows?.didDetach(at: index, leaving: groups)
                } else if live >= 2, vacancies <= live {
                    let vacancy = vacancy()
                    groups[index] = vacancy
                    entries[index] = DeliveryEntry(vacancy: vacancy, order: group.order)
                    vacantCount += 1
                    soleRows?.didVacate(index)
                } else {
                    dropVacancies(andPlace: index)
                }
                assert(
                    vacantCount == 0 || (liveCount >= 2 && vacantCount <= liveCount), "a node's vacancies out of bounds"
                )
                return
            }
            index += 1
        }
        assert(!groups.contains { $0 === group }, "a group attached out of consumer order")
    }

    /// Drops every vacancy and the place at `removed`, keeping the order of the rest.
    ///
    /// - Complexity: O(n), once per as many removals as there are groups left (or fewer, when one
    ///   group or none is left).
    private func dropVacancies(andPlace removed: Int) {
        let dropped = { (index: Int) -> Bool in index == removed || self.entries[index].isVacant }
        soleRows?.willDrop(where: dropped, leaving: liveCount - 1)
        var kept = 0
        for index in groups.indices where !dropped(index) {
            if kept != index {
                groups.swapAt(kept, index)
                entries[kept] = entries[index]
            }
            kept += 1
        }
        groups.removeLast(groups.count - kept)
        entries.removeLast(entries.count - kept)
        vacantCount = 0
    }

    /// The index of the first group whose order is at least `order`.
    private func firstIndex(orderedAtOrAfter order: UInt64) -> Int {
        lowerBound(count: entries.count) { entries[$0].order < order }
    }
}
