import Dispatch

/// The inside of a ``StateConsumer``: its groups, its members and the pass that calls them.
///
/// Confined to the consumer's drain: every method runs as one of its jobs, so nothing here locks.
final class ConsumerEngine<State: Sendable>: @unchecked Sendable {
    // @unchecked: confined to the owning StateConsumer's drain (see ``Confined``).

    /// A consumer that waits for its first state because none was known when it was added.
    private struct Admission {
        let id: UInt64
        let admit: (State) -> Void
    }

    private var groups = OrderedSlots<any ConsumerGroup<State>>()
    private var groupIDByKeyPath: [AnyKeyPath: UInt64] = [:]
    private var groupIDByMember: [UInt64: UInt64] = [:]
    private var admissions: [Admission] = []
    private var nextGroupID: UInt64 = 0
    private var fired: [any ConsumerGroup<State>] = []
    private var cursors: [Int] = []
    var source: StateSource<State>?
    /// How callbacks reach their caller; set once by the consumer's `init`, before it is shared.
    var delivery = Delivery.inline

    /// Whether the member `id` is still registered (admitted or waiting for its first state).
    func contains(_ id: UInt64) -> Bool {
        groupIDByMember[id] != nil || admissions.contains { $0.id == id }
    }

    /// Adds a member, starting from the source's current state, or from the next consumed state
    /// when there is no source.
    func add<Value: Sendable>(
        id: UInt64,
        groupKey: (any AnyKeyPath & Sendable)?,
        select: @escaping @Sendable (State) -> Value,
        isEqual: (@Sendable (Value, Value) -> Bool)?,
        instantly: Bool,
        callback: @escaping SelectorGroup<State, Value>.Callback,
        delivery: Delivery
    ) {
        let admit = { [unowned self] (state: State) in
            let value = select(state)
            let group: SelectorGroup<State, Value>
            if let groupKey, let groupID = groupIDByKeyPath[groupKey],
                let existing = groups[identifier: groupID] as? SelectorGroup<State, Value>,
                existing.canJoin(startingFrom: value)
            {
                group = existing
                groupIDByMember[id] = groupID
            } else {
                group = SelectorGroup(select: select, isEqual: isEqual, baseline: value)
                nextGroupID += 1
                groups.append(group, identifier: nextGroupID)
                groupIDByMember[id] = nextGroupID
                if let groupKey, groupIDByKeyPath[groupKey] == nil {
                    groupIDByKeyPath[groupKey] = nextGroupID
                }
            }
            group.append(callback, id: id)
            if instantly {
                switch delivery {
                case .inline:
                    callback(value, value, state)
                case .queue(let queue, let guardedRun):
                    queue.async { guardedRun(id) { callback(value, value, state) } }
                }
            }
        }
        if let state = source?.read() {
            admit(state)
        } else {
            admissions.append(Admission(id: id, admit: admit))
        }
    }

    /// Removes a member; returns whether it was registered.
    @discardableResult
    func remove(_ id: UInt64) -> Bool {
        if let index = admissions.firstIndex(where: { $0.id == id }) {
            admissions.remove(at: index)
            return true
        }
        guard let groupID = groupIDByMember.removeValue(forKey: id),
            let group = groups[identifier: groupID]
        else { return false }
        _ = group.removeMember(id)
        if group.isEmpty {
            groups.remove(groupID)
            if let key = groupIDByKeyPath.first(where: { $0.value == groupID })?.key {
                groupIDByKeyPath.removeValue(forKey: key)
            }
        }
        return true
    }

    /// Removes every member; returns how many there were.
    func removeAll() -> Int {
        let removed = groupIDByMember.count + admissions.count
        // Empty the groups too: a pass running now (removeAll called from a callback) still holds
        // the groups that fired and must not call their remaining members.
        for (member, groupID) in groupIDByMember {
            _ = groups[identifier: groupID]?.removeMember(member)
        }
        groups.removeAll()
        groupIDByKeyPath.removeAll()
        groupIDByMember.removeAll()
        admissions.removeAll()
        return removed
    }

    /// One pass: compares every group with `state`, then calls the members of the groups that
    /// fired in the order the members were added, then admits members waiting for a first state.
    func consume(_ state: State, delivery: Delivery) {
        groups.iterationDepth += 1
        let end = groups.slotCount
        for slot in 0..<end {
            if let group = groups[slot: slot], group.evaluate(state) {
                fired.append(group)
            }
        }
        if fired.count == 1 {
            deliverAll(of: fired[0], state: state, delivery: delivery)
        } else if fired.count > 1 {
            deliverMerged(state: state, delivery: delivery)
        }
        fired.removeAll(keepingCapacity: true)
        groups.iterationDepth -= 1
        groups.compactIfWorthIt()
        if !admissions.isEmpty {
            let waiting = admissions
            admissions.removeAll()
            for admission in waiting {
                admission.admit(state)
            }
        }
    }

    private func deliverAll(of group: any ConsumerGroup<State>, state: State, delivery: Delivery) {
        group.beginPass()
        for slot in 0..<group.deliveryEnd {
            group.deliver(slot: slot, state: state, via: delivery)
        }
        group.endPass()
    }

    /// Several groups fired: call their members interleaved by member identifier (the order in
    /// which they were added), exactly as if every consumer were alone.
    private func deliverMerged(state: State, delivery: Delivery) {
        cursors.removeAll(keepingCapacity: true)
        for group in fired {
            group.beginPass()
            cursors.append(0)
        }
        while true {
            var best = -1
            var bestID = UInt64.max
            for index in fired.indices {
                let group = fired[index]
                while cursors[index] < group.deliveryEnd, group.memberID(atSlot: cursors[index]) == nil {
                    cursors[index] += 1
                }
                if cursors[index] < group.deliveryEnd, let id = group.memberID(atSlot: cursors[index]), id < bestID {
                    best = index
                    bestID = id
                }
            }
            guard best >= 0 else { break }
            fired[best].deliver(slot: cursors[best], state: state, via: delivery)
            cursors[best] += 1
        }
        for group in fired {
            group.endPass()
        }
    }
}
