/// What a pass that fires one shared node needs to call each attached group's lone member, for
/// all the node's groups in one contiguous list: the callback, its member and its consumer's tag.
///
/// With a page per request watching one global field, the node has a group per page, each in an
/// object of its own on the heap: reading each group to call its member cost a cache miss per
/// page. The node keeps this list beside its groups instead, index for index, and a pass reads it
/// alone. Any change that could alter what a row says (a group attached or detached, a member
/// added or removed, a group silenced, resumed or catching up) marks the list out of date, and
/// the next pass that fires the node rebuilds it from the groups; a change made during a pass (by
/// a callback) sends the rest of that pass back to the groups themselves.
///
/// Non-generic, so the node (which knows no types) can hold it and mark it; the rows live in
/// ``TypedSoleCallRows``. Confined to the engine's drain, like the node.
@usableFromInline
class SoleCallRows {
    /// Whether the rows describe the node's groups as they are now. `@exclusivity(unchecked)`:
    /// read before every call of a pass and written by every change of a group; confined to the
    /// engine's drain, and each access is one load or store, never across a call.
    @exclusivity(unchecked) @usableFromInline final var isCurrent = false

    /// Counts attachments and detachments of the node's groups: a pass passes the rows on only if
    /// the groups it fired are still the node's (a closure selector may change them while the
    /// pass evaluates), so rows rebuilt from the pass's groups describe the node's.
    final var groupsVersion: UInt64 = 0

    @usableFromInline
    init() {}

    /// The node's groups changed: the rows are out of date.
    final func groupsDidChange() {
        groupsVersion &+= 1
        invalidate()
    }

    /// Marks the rows out of date and lets their callbacks go: the next pass that fires the node
    /// rebuilds them. A removed member's callback (and whatever it captures) is released with its
    /// removal, not kept here until the node fires again.
    @inlinable
    @inline(__always)
    final func invalidate() {
        if isCurrent {
            isCurrent = false
            dropRows()
        }
    }

    /// Empties the rows (a pass that is calling them keeps its own copy until it ends).
    @usableFromInline
    func dropRows() {}
}

/// ``SoleCallRows`` for a node whose groups are `TypedGroup<State, Value>`s (one key path of one
/// state: every group attached to a shared node has the node's types).
@usableFromInline
final class TypedSoleCallRows<State: Sendable, Value: Sendable>: SoleCallRows {
    /// A group's row: its lone member and callback when the pass may call it from here, else an
    /// empty entry (the pass asks the group). `entry` comes first: the delivery loop views it as a
    /// ``BorrowedEntry`` to call the callback where it is stored.
    @usableFromInline
    struct Row {
        @usableFromInline let entry: SlotList<ConsumerCallback<State, Value>>.Entry
        /// The consumer's registration tag, as the drain names its calls.
        @usableFromInline let tag: UInt

        @inlinable
        init(entry: SlotList<ConsumerCallback<State, Value>>.Entry, tag: UInt) {
            self.entry = entry
            self.tag = tag
        }
    }

    /// The node's shared cell: a row is only made for a group that reads it.
    @usableFromInline let cell: ValueCell<Value>
    /// One row per group of the node, index for index, while ``isCurrent``.
    @usableFromInline var rows: [Row] = []

    @inlinable
    init(cell: ValueCell<Value>) {
        self.cell = cell
    }

    @usableFromInline
    override func dropRows() {
        rows = []
    }

    /// Rebuilds the rows from `entries`, the node's groups as a pass began, and marks them current.
    /// A group gets a row with its callback when a pass would call its lone member in place from
    /// the group's own copy (see ``TypedGroup/deliverGroups(_:entries:rows:state:drain:level:pass:engine:cursor:)``).
    @inlinable
    func rebuild(from entries: UnsafeBufferPointer<DeliveryEntry>) {
        let ownType = ObjectIdentifier(TypedGroup<State, Value>.self)
        var rebuilt: [Row] = []
        rebuilt.reserveCapacity(entries.count)
        for entry in entries {
            guard entry.type == ownType else {
                rebuilt.append(Row(entry: .init(identifier: 0, element: nil), tag: 0))
                continue
            }
            // Of this type (checked just above), and unretained: the caller's list of groups keeps
            // each group, and so its typed half, alive.
            Unmanaged<TypedGroup<State, Value>>.fromOpaque(entry.typed)._withUnsafeGuaranteedRef { typed in
                rebuilt.append(
                    typed.callsSoleMemberFromRow(sharing: cell)
                        ? Row(
                            entry: .init(identifier: typed.soleIdentifier, element: typed.members[slot: 0]),
                            tag: typed.tag)
                        : Row(entry: .init(identifier: 0, element: nil), tag: 0))
            }
        }
        rows = rebuilt
        isCurrent = true
    }
}
