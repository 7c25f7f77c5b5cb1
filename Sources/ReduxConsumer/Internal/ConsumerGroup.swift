import Dispatch

/// Consumers that share one selector and one comparison, so the selector runs once per state for
/// all of them: the engine's view of a group, with the value type erased.
///
/// Members are kept in the order they were added (identifiers increase with the slot). A removed
/// member keeps its slot, marked, until the group is compacted; compaction never happens while a
/// pass is delivering (slot numbers must stay put then). Confined to the owning consumer's drain.
@usableFromInline
final class MemberGroup {
    /// What the typed half is asked to do to its callbacks.
    @usableFromInline
    enum Edit {
        case remove(slot: Int)
        case compact
        case removeAll
    }

    /// The key path the members share, or `nil` for a group that no other consumer may join.
    let key: GroupKey?
    /// The typed half, a `SelectorGroup<State, Value>`, for members joining the group.
    @usableFromInline let typed: AnyObject
    /// Calls the member in a slot with the values `evaluate` recorded.
    let deliver: (_ slot: Int, _ state: UnsafeRawPointer, _ delivery: Delivery, _ member: UInt64) -> Void
    let edit: (Edit) -> Void

    // `@exclusivity(unchecked)` here and on the engine's tables: confined to the drain, never
    // accessed across a user callback, and read on every pass, where Swift's dynamic exclusivity
    // check (a thread-local access set) would cost more than the work itself.

    /// Member identifiers in slot order; removed members have ``removedMark`` set.
    @exclusivity(unchecked) private(set) var memberIDs: [UInt64] = []
    @exclusivity(unchecked) private(set) var liveCount = 0
    /// Members in slots below this were present at the last `evaluate` that fired; later members
    /// start with the next state.
    @exclusivity(unchecked) private(set) var deliveryEnd = 0
    @exclusivity(unchecked) private var passDepth = 0
    /// Where the group sits in the engine's evaluation list.
    @exclusivity(unchecked) var evaluationIndex = -1

    static let removedMark: UInt64 = 1 << 63

    @usableFromInline
    init(
        key: GroupKey?,
        typed: AnyObject,
        deliver: @escaping (Int, UnsafeRawPointer, Delivery, UInt64) -> Void,
        edit: @escaping (Edit) -> Void
    ) {
        self.key = key
        self.typed = typed
        self.deliver = deliver
        self.edit = edit
    }

    /// Records a member whose callback the typed half has just appended.
    func appendMember(_ id: UInt64) {
        memberIDs.append(id)
        liveCount += 1
    }

    /// The live member in `slot`, or `nil` for a removed one.
    @inline(__always)
    func memberID(atSlot slot: Int) -> UInt64? {
        let id = memberIDs[slot]
        return id & Self.removedMark == 0 ? id : nil
    }

    /// Removes the member `id`; returns whether it was here.
    ///
    /// - Complexity: O(log *n*) in the group's size: a binary search, since identifiers increase
    ///   with the slot.
    func removeMember(_ id: UInt64) -> Bool {
        var low = 0
        var high = memberIDs.count
        while low < high {
            let middle = (low + high) / 2
            if memberIDs[middle] & ~Self.removedMark < id {
                low = middle + 1
            } else {
                high = middle
            }
        }
        guard low < memberIDs.count, memberIDs[low] == id else { return false }
        memberIDs[low] |= Self.removedMark
        liveCount -= 1
        edit(.remove(slot: low))
        compactIfWorthIt()
        return true
    }

    /// Marks every member removed: a pass delivering now calls none of them.
    func removeAllMembers() {
        for slot in memberIDs.indices {
            memberIDs[slot] |= Self.removedMark
        }
        liveCount = 0
        edit(.removeAll)
    }

    /// Called once `evaluate` fired: only members present now receive this state.
    func beginPass() {
        passDepth += 1
        deliveryEnd = memberIDs.count
    }

    func endPass() {
        passDepth -= 1
        compactIfWorthIt()
    }

    /// Squeezes out removed members once they outnumber the live ones, unless a pass is running.
    private func compactIfWorthIt() {
        let holes = memberIDs.count - liveCount
        guard passDepth == 0, holes > 16, holes * 2 > memberIDs.count else { return }
        memberIDs.removeAll { $0 & Self.removedMark != 0 }
        edit(.compact)
    }
}

/// A group's per-state check: reads the selected value of `state` (which lives at `address`) and
/// compares it with the last one; returns `true` when the members must be called (the typed half
/// then holds the old and the new value).
///
/// Kept apart from ``MemberGroup`` (which is not generic) because it takes the state itself. A
/// class rather than a struct holding the closure: the pass borrows it unretained from its list,
/// and then calls the `let` closure without retaining its context; a closure copied out of an array
/// costs a retain/release pair per group and per state, as much as a small selector.
@usableFromInline
final class Evaluator<State> {
    /// `inout` only to keep the state in memory (see ``Selection/read(_:at:)``); never written.
    @usableFromInline let evaluate: (_ state: inout State, _ address: UnsafeRawPointer) -> Bool

    @inlinable
    init(_ evaluate: @escaping (inout State, UnsafeRawPointer) -> Bool) {
        self.evaluate = evaluate
    }
}

/// The group a new member went to, and its evaluator when the group is new.
@usableFromInline
struct Admission<State> {
    @usableFromInline let group: MemberGroup
    @usableFromInline let evaluator: Evaluator<State>?

    @inlinable
    init(group: MemberGroup, evaluator: Evaluator<State>?) {
        self.group = group
        self.evaluator = evaluator
    }
}

/// How a consumer's callbacks reach their caller.
@usableFromInline
enum Delivery: Sendable {
    /// Synchronously, on the thread running the pass.
    case inline
    /// Asynchronously on a queue; `guardedRun` runs the call only if the member still exists then.
    case queue(DispatchQueue, guardedRun: @Sendable (_ member: UInt64, _ call: @escaping @Sendable () -> Void) -> Void)
}
