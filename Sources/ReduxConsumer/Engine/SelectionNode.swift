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
    /// The shared ``ValueCell``.
    let cell: AnyObject
    /// Reads the selection from the state at the address, compares it with `cell`'s last value,
    /// and records it there when it changed; returns whether it changed. Specialised for the
    /// value's type (see ``TypedGroup``).
    let evaluate: (_ state: UnsafeMutableRawPointer, _ cell: AnyObject, _ cache: DerivationCache) -> Bool
    /// The attached groups, in increasing ``MemberGroup/order``: the order consumers are called in.
    var groups: [MemberGroup] = []
    /// Where the node sits in its engine's evaluation list.
    var index = -1
    /// The engine's number of the last pass in which the node fired.
    var firedPass: UInt64 = 0

    init(
        key: GroupKey?, cell: AnyObject,
        evaluate: @escaping (UnsafeMutableRawPointer, AnyObject, DerivationCache) -> Bool
    ) {
        self.key = key
        self.cell = cell
        self.evaluate = evaluate
    }

    /// Attaches `group` at its place in consumer order.
    ///
    /// - Complexity: O(1) for a group of the most recently subscribed consumer, O(n) otherwise.
    func attach(_ group: MemberGroup) {
        if let last = groups.last, last.order > group.order {
            let index = groups.firstIndex { $0.order > group.order } ?? groups.endIndex
            groups.insert(group, at: index)
        } else {
            groups.append(group)
        }
    }

    /// Detaches `group`.
    func detach(_ group: MemberGroup) {
        if let index = groups.firstIndex(where: { $0 === group }) {
            groups.remove(at: index)
        }
    }
}
