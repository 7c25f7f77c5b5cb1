import Dispatch

/// Consumers that share one selector and one comparison, so the selector runs once per state for
/// all of them. Every method is called from the owning consumer's drain only.
protocol ConsumerGroup<State>: AnyObject {
    associatedtype State

    /// Whether no member is left.
    var isEmpty: Bool { get }

    /// Reads the selected value from `state` and compares it with the last one; when the members
    /// must be called, remembers the old and new values for ``deliver(slot:state:via:)`` and returns
    /// `true`.
    func evaluate(_ state: State) -> Bool

    /// Members in slots below this were present at the last `evaluate` that fired; later members
    /// start with the next state.
    var deliveryEnd: Int { get }

    /// The member identifier in `slot`, or `nil` for a removed member.
    func memberID(atSlot slot: Int) -> UInt64?

    /// Calls the member in `slot` (if still present) with the values remembered by `evaluate`.
    func deliver(slot: Int, state: State, via delivery: Delivery)

    /// Removes a member; returns whether it was there.
    func removeMember(_ id: UInt64) -> Bool

    /// Marks the start and end of a pass, during which slots must not move.
    func beginPass()
    func endPass()
}

/// How a consumer's callbacks reach their caller.
enum Delivery: Sendable {
    /// Synchronously, on the thread running the pass.
    case inline
    /// Asynchronously on a queue; `guardedRun` runs the call only if the member still exists then.
    case queue(DispatchQueue, guardedRun: @Sendable (_ member: UInt64, _ call: @escaping @Sendable () -> Void) -> Void)
}

/// The one kind of group: a selector (key path or closure), an optional equality (none means
/// "pulse": every state fires) and the last selected value. It keeps that value only, never the
/// state.
final class SelectorGroup<State: Sendable, Value: Sendable>: ConsumerGroup {
    typealias Callback = @Sendable (_ old: Value, _ new: Value, _ state: State) -> Void

    let select: @Sendable (State) -> Value
    let isEqual: (@Sendable (Value, Value) -> Bool)?
    private(set) var last: Value
    private var delivered: (old: Value, new: Value)?
    private var members = OrderedSlots<Callback>()
    private(set) var deliveryEnd = 0

    init(select: @escaping @Sendable (State) -> Value, isEqual: (@Sendable (Value, Value) -> Bool)?, baseline: Value) {
        self.select = select
        self.isEqual = isEqual
        self.last = baseline
    }

    var isEmpty: Bool { members.isEmpty }

    /// Whether a member that starts from `value` can join this group and fire exactly as it
    /// would alone: only when the group's last value is that same value.
    func canJoin(startingFrom value: Value) -> Bool {
        guard let isEqual else { return false }
        return isEqual(last, value)
    }

    func append(_ callback: @escaping Callback, id: UInt64) {
        members.append(callback, identifier: id)
    }

    func evaluate(_ state: State) -> Bool {
        let value = select(state)
        if let isEqual, isEqual(last, value) {
            return false
        }
        delivered = (last, value)
        last = value
        deliveryEnd = members.slotCount
        return true
    }

    func memberID(atSlot slot: Int) -> UInt64? {
        members[slot: slot] == nil ? nil : members.identifier(atSlot: slot)
    }

    func deliver(slot: Int, state: State, via delivery: Delivery) {
        guard let callback = members[slot: slot], let (old, new) = delivered else { return }
        switch delivery {
        case .inline:
            callback(old, new, state)
        case .queue(let queue, let guardedRun):
            let member = members.identifier(atSlot: slot)
            queue.async { guardedRun(member) { callback(old, new, state) } }
        }
    }

    func removeMember(_ id: UInt64) -> Bool {
        members.remove(id) != nil
    }

    func beginPass() {
        members.iterationDepth += 1
    }

    func endPass() {
        members.iterationDepth -= 1
        members.compactIfWorthIt()
        delivered = nil
    }
}
