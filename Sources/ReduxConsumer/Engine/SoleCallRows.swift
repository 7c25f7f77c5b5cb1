/// What a pass that fires one shared node needs to call each attached group's lone member, for
/// all the node's groups in one contiguous list: the callback, its member, its consumer's tag.
///
/// With a page per request watching one global field, the node has a group per page, each in an
/// object of its own on the heap: reading each group to call its member cost a cache miss per
/// page. The node keeps this list beside its groups instead, index for index, and a pass reads it
/// alone. The list is kept in step as things change, at O(log n) per change (amortised): a group
/// attached or detached inserts or removes its row (or, where a ``Vacancy`` takes or gives back
/// its place, empties or fills it), and a group whose row may change (a member added or
/// removed, the group silenced, resumed or catching up) rewrites its own. A pass calls from its
/// own copy of the list, and any change made during the pass (by a callback) sends the rest of
/// that pass back to the groups themselves; the copy, and the callbacks only it still holds, goes
/// as that callback returns (a member removed from inside a callback is released then, as a
/// consumer's own member list releases one removed while it is being delivered).
///
/// Kept only while the node has two groups or more: a node with one group is delivered through
/// that group. Non-generic, so that the node (which knows no types) can hold it; the rows live in
/// ``TypedSoleCallRows``. Confined to the engine's drain, like the node.
@usableFromInline
class SoleCallRows {
    // `@exclusivity(unchecked)` on the stored properties: read or written by every change of a
    // group of the node and every pass that fires it, where the dynamic check costs more than the
    // access; the rows are confined to their engine's drain, and no access spans a user callback
    // (a pass calls from its own copy of `rows`).

    /// Whether the rows are kept (the node has two groups or more).
    @exclusivity(unchecked) @usableFromInline final var isActive = false
    /// Counts changes to the rows: a pass that began with one count calls from its copy of the
    /// rows only while the count stays the same.
    @exclusivity(unchecked) @usableFromInline final var version: UInt64 = 0

    @usableFromInline
    init() {}

    // The two notifications below do nothing here: the node only ever holds a
    // ``TypedSoleCallRows``, which makes and keeps the typed rows; this class is what a node,
    // which knows no types, can name and read `isActive` and `version` from without a cast.

    /// `group` was attached at `index` of `groups`, the node's groups with it.
    func didAttach(_ group: MemberGroup, at index: Int, of groups: [MemberGroup]) {}

    /// The group at `index` of the node's groups was detached; `groups` are those left.
    func didDetach(at index: Int, leaving groups: [MemberGroup]) {}

    /// The group at `index` of the node's groups was detached, and a vacancy took its place (see
    /// ``Vacancy``).
    func didVacate(_ index: Int) {}

    /// `group` took back the vacant place at `index` of the node's groups.
    func didFill(_ index: Int, with group: MemberGroup) {}

    /// The node is about to drop the places at the indices `dropped` tells (its vacancies and a
    /// group that left), leaving `live` groups.
    func willDrop(where dropped: (Int) -> Bool, leaving live: Int) {}
}

/// ``SoleCallRows`` for a node whose groups are `TypedGroup<State, Value>`s (one key path of one
/// state: every group attached to a shared node has the node's types).
@usableFromInline
final class TypedSoleCallRows<State: Sendable, Value: Sendable>: SoleCallRows {
    /// A group's row: its lone member and callback when a pass may call it from here, else an
    /// empty entry (the pass asks the group). `entry` comes first: the delivery loop views it as a
    /// ``BorrowedEntry`` to call the callback where it is stored.
    @usableFromInline
    struct Row {
        @usableFromInline let entry: SlotList<ConsumerCallback<State, Value>>.Entry
        /// The consumer's registration tag, as the drain names its calls.
        @usableFromInline let tag: UInt
        /// The group's ``MemberGroup/order``: rows are sorted by it, like the node's groups.
        @usableFromInline let order: UInt64

        @inlinable
        init(entry: SlotList<ConsumerCallback<State, Value>>.Entry, tag: UInt, order: UInt64) {
            self.entry = entry
            self.tag = tag
            self.order = order
        }
    }

    /// The node's shared cell: a row is only filled for a group that reads it.
    @usableFromInline let cell: ValueCell<Value>
    /// One row per group of the node, index for index, while ``SoleCallRows/isActive``.
    @exclusivity(unchecked) @usableFromInline var rows: [Row] = []

    @inlinable
    init(cell: ValueCell<Value>) {
        self.cell = cell
    }

    /// The row of `group`: filled when a pass would call its lone member in place from the group's
    /// own copy (see ``TypedGroup/callsSoleMemberFromRow(sharing:)``).
    func row(for group: MemberGroup) -> Row {
        guard type(of: group.members) == TypedGroup<State, Value>.self else {
            return Row(entry: .init(identifier: 0, element: nil), tag: 0, order: group.order)
        }
        // Of this type (checked just above).
        return row(
            for: unsafeDowncast(group.members as AnyObject, to: TypedGroup<State, Value>.self), order: group.order)
    }

    /// The row of `typed`, whose group's order is `order`.
    @inlinable
    func row(for typed: TypedGroup<State, Value>, order: UInt64) -> Row {
        guard typed.callsSoleMemberFromRow(sharing: cell) else {
            return Row(entry: .init(identifier: 0, element: nil), tag: 0, order: order)
        }
        return Row(
            entry: .init(identifier: typed.soleIdentifier, element: typed.members[slot: 0]), tag: typed.tag,
            order: order)
    }

    override func didAttach(_ group: MemberGroup, at index: Int, of groups: [MemberGroup]) {
        version &+= 1
        if isActive {
            rows.insert(row(for: group), at: index)
        } else if groups.count >= 2 {
            isActive = true
            rows = groups.map { row(for: $0) }
        }
    }

    override func didDetach(at index: Int, leaving groups: [MemberGroup]) {
        version &+= 1
        guard isActive else { return }
        if groups.count < 2 {
            isActive = false
            rows = []
        } else {
            rows.remove(at: index)
        }
    }

    override func didVacate(_ index: Int) {
        version &+= 1
        guard isActive else { return }
        // No member: a pass asks the place's group, the vacancy, which calls no one.
        rows[index] = Row(entry: .init(identifier: 0, element: nil), tag: 0, order: rows[index].order)
    }

    override func didFill(_ index: Int, with group: MemberGroup) {
        version &+= 1
        guard isActive else { return }
        rows[index] = row(for: group)
    }

    override func willDrop(where dropped: (Int) -> Bool, leaving live: Int) {
        version &+= 1
        guard isActive else { return }
        if live < 2 {
            isActive = false
            rows = []
            return
        }
        var kept = 0
        for index in rows.indices where !dropped(index) {
            // Rows hold callbacks: swapped, so that the dropped ones go with the list's tail.
            rows.swapAt(kept, index)
            kept += 1
        }
        rows.removeLast(rows.count - kept)
    }

    /// Rewrites the row of `typed`, whose group's order is `order`, after a change to the group.
    ///
    /// - Complexity: O(log n) (a binary search by order), plus a copy of the list when a pass in
    ///   progress holds it.
    @inlinable
    func refresh(_ typed: TypedGroup<State, Value>, order: UInt64) {
        guard isActive else { return }
        let index = lowerBound(count: rows.count) { rows[$0].order < order }
        guard index < rows.count, rows[index].order == order else {
            assertionFailure("a group's row is missing from its node's rows")
            return
        }
        version &+= 1
        rows[index] = row(for: typed, order: order)
    }
}
