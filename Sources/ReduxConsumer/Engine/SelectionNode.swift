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
    /// `@exclusivity(unchecked)`: read by every pass that fires the node (the dynamic check cost
    /// as much as the rest of a one-node pass's bookkeeping); the node is confined to its
    /// engine's drain, and a pass shares or reads the list between callbacks, never across one.
    @exclusivity(unchecked) var groups: [MemberGroup] = []
    /// What a delivery loop reads of each group in `groups`, at the same index (see
    /// ``DeliveryEntry``); changed with `groups`, always both at once. `@exclusivity(unchecked)`
    /// as `groups`.
    @exclusivity(unchecked) var entries: [DeliveryEntry] = []
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

    /// Attaches `group` at its place in consumer order.
    ///
    /// - Complexity: O(1) for a group of the most recently subscribed consumer, O(n) otherwise
    ///   (a binary search and a move of the groups after it).
    func attach(_ group: MemberGroup) {
        #if DEBUG
            changes &+= 1
        #endif
        let index: Int
        if let last = groups.last, last.order > group.order {
            index = firstIndex(orderedAtOrAfter: group.order)
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

    /// Detaches `group`.
    ///
    /// - Complexity: A binary search, then a move of the groups after it: a node that a thousand
    ///   pages watch does not scan them all for each page that leaves.
    func detach(_ group: MemberGroup) {
        #if DEBUG
            changes &+= 1
        #endif
        // Orders are distinct on a node (one group per consumer and selection) and do not change
        // while the group is attached; the scan only guards against a group with an equal order.
        var index = firstIndex(orderedAtOrAfter: group.order)
        while index < groups.count, groups[index].order == group.order {
            if groups[index] === group {
                groups.remove(at: index)
                entries.remove(at: index)
                group.members.useRows(nil, order: 0)
                soleRows?.didDetach(at: index, leaving: groups)
                return
            }
            index += 1
        }
        assert(!groups.contains { $0 === group }, "a group attached out of consumer order")
    }

    /// The index of the first group whose order is at least `order`.
    private func firstIndex(orderedAtOrAfter order: UInt64) -> Int {
        lowerBound(count: groups.count) { groups[$0].order < order }
    }
}
