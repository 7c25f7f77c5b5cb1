/// The inside of a ``StateConsumer``: its groups, its members and the pass that calls them.
///
/// Confined to the consumer's drain: every method runs as one of its jobs, so nothing here locks.
/// The state arrives borrowed (a pass never copies it) and the tables hold non-generic types where
/// they can, so a pass does almost no runtime metadata lookups even though this class is generic.
final class ConsumerEngine<State: Sendable>: @unchecked Sendable {
    // @unchecked: confined to the owning StateConsumer's drain (see ``Confined``).

    /// A member waiting for its first state because none was known when it was added.
    private struct Waiting {
        let enrollment: Enrollment<State>
    }

    /// The groups, in no particular order: evaluation order is unobservable (selectors are pure),
    /// and delivery order comes from member identifiers. Unordered, a group leaves in O(1).
    // `@exclusivity(unchecked)`: see ``MemberGroup``.
    @exclusivity(unchecked) private var evaluation: [MemberGroup] = []
    /// Each group's `evaluate`, parallel to `evaluation`: the pass walks this dense array only.
    @exclusivity(unchecked) private var evaluators: [Evaluator<State>] = []
    @exclusivity(unchecked) private var groupByKey: [GroupKey: MemberGroup] = [:]
    /// The group of every admitted member: one hash entry per member is the only per-member cost
    /// outside the group itself.
    @exclusivity(unchecked) private var groupByMember: [UInt64: MemberGroup] = [:]
    @exclusivity(unchecked) private var waiting: [Waiting] = []
    @exclusivity(unchecked) private var fired: [MemberGroup] = []
    @exclusivity(unchecked) private var cursors: [Int] = []
    var source: StateSource<State>?

    /// Whether the member `id` is still registered (admitted or waiting for its first state).
    func contains(_ id: UInt64) -> Bool {
        groupByMember[id] != nil || waiting.contains { $0.enrollment.id == id }
    }

    /// Adds a member, starting from the source's current state, or from the next consumed state
    /// when there is no source.
    func add(_ enrollment: Enrollment<State>, delivery: Delivery) {
        let isAdmitted =
            source?.read { state in
                withUnsafeMutablePointer(to: &state) { address in
                    admit(enrollment, state: address, delivery: delivery)
                }
            } ?? false
        if !isAdmitted {
            waiting.append(Waiting(enrollment: enrollment))
        }
    }

    private func admit(_ enrollment: Enrollment<State>, state: UnsafeMutablePointer<State>, delivery: Delivery) {
        let candidate = enrollment.key.flatMap { groupByKey[$0] }
        let address = UnsafeRawPointer(state)
        let admission = enrollment.admit(&state.pointee, address, candidate)
        let group = admission.group
        if let evaluator = admission.evaluator {
            group.evaluationIndex = evaluation.count
            evaluation.append(group)
            evaluators.append(evaluator)
            if let key = enrollment.key, groupByKey[key] == nil {
                groupByKey[key] = group
            }
        }
        group.appendMember(enrollment.id)
        groupByMember[enrollment.id] = group
        enrollment.fireInstantly?(&state.pointee, address, delivery, enrollment.id)
    }

    /// Removes a member; returns whether it was registered.
    ///
    /// - Complexity: O(1) amortised, plus O(log *n*) in the size of the member's group.
    @discardableResult
    func remove(_ id: UInt64) -> Bool {
        guard let group = groupByMember.removeValue(forKey: id) else {
            guard let index = waiting.firstIndex(where: { $0.enrollment.id == id }) else { return false }
            waiting.remove(at: index)
            return true
        }
        _ = group.removeMember(id)
        if group.liveCount == 0 {
            drop(group)
        }
        return true
    }

    /// Takes an empty group out of the evaluation list (swapping the last one into its place).
    private func drop(_ group: MemberGroup) {
        let index = group.evaluationIndex
        let last = evaluation.removeLast()
        let lastEvaluator = evaluators.removeLast()
        if last !== group {
            evaluation[index] = last
            evaluators[index] = lastEvaluator
            last.evaluationIndex = index
        }
        group.evaluationIndex = -1
        if let key = group.key, groupByKey[key] === group {
            groupByKey.removeValue(forKey: key)
        }
    }

    /// Removes every member; returns how many there were.
    func removeAll() -> Int {
        let removed = groupByMember.count + waiting.count
        // Empty the groups too: a pass running now (removeAll called from a callback) still holds
        // the groups that fired and must not call their remaining members.
        for group in evaluation {
            group.removeAllMembers()
            group.evaluationIndex = -1
        }
        evaluation.removeAll()
        evaluators.removeAll()
        groupByKey.removeAll()
        groupByMember.removeAll()
        waiting.removeAll()
        return removed
    }

    /// One pass: compares every group with `state`, then calls the members of the groups that
    /// fired in the order the members were added, then admits members waiting for a first state.
    ///
    /// - Complexity: One selector read and one comparison per group (not per member), plus the
    ///   callbacks that fire.
    func consume(_ state: inout State, delivery: Delivery) {
        withUnsafeMutablePointer(to: &state) { state in
            consume(state, delivery: delivery)
        }
    }

    private func consume(_ state: UnsafeMutablePointer<State>, delivery: Delivery) {
        let address = UnsafeRawPointer(state)
        // Local copies of the lists: a selector that misbehaves (adds or removes consumers) only
        // changes the engine's copies.
        let evaluators = evaluators
        let groups = evaluation
        evaluators.withUnsafeBufferPointer { evaluators in
            for index in evaluators.indices {
                // Unretained: the local copy of the list keeps every evaluator alive.
                let evaluator = Unmanaged.passUnretained(evaluators[index])
                if evaluator._withUnsafeGuaranteedRef({ $0.evaluate(&state.pointee, address) }) {
                    fired.append(groups[index])
                }
            }
        }
        if fired.count == 1 {
            deliverAll(of: fired[0], state: address, delivery: delivery)
        } else if fired.count > 1 {
            deliverMerged(state: address, delivery: delivery)
        }
        fired.removeAll(keepingCapacity: true)
        if !waiting.isEmpty {
            let admitted = waiting
            waiting.removeAll()
            for member in admitted {
                admit(member.enrollment, state: state, delivery: delivery)
            }
        }
    }

    private func deliverAll(of group: MemberGroup, state: UnsafeRawPointer, delivery: Delivery) {
        group.beginPass()
        for slot in 0..<group.deliveryEnd {
            if let member = group.memberID(atSlot: slot) {
                group.deliver(slot, state, delivery, member)
            }
        }
        group.endPass()
    }

    /// Several groups fired: call their members interleaved by member identifier (the order in
    /// which they were added), exactly as if every consumer were alone.
    private func deliverMerged(state: UnsafeRawPointer, delivery: Delivery) {
        let groups = fired
        cursors.removeAll(keepingCapacity: true)
        for group in groups {
            group.beginPass()
            cursors.append(0)
        }
        while true {
            var best = -1
            var bestID = UInt64.max
            for index in groups.indices {
                let group = groups[index]
                while cursors[index] < group.deliveryEnd, group.memberID(atSlot: cursors[index]) == nil {
                    cursors[index] += 1
                }
                if cursors[index] < group.deliveryEnd, let id = group.memberID(atSlot: cursors[index]), id < bestID {
                    best = index
                    bestID = id
                }
            }
            guard best >= 0 else { break }
            let slot = cursors[best]
            cursors[best] += 1
            groups[best].deliver(slot, state, delivery, bestID)
        }
        for group in groups {
            group.endPass()
        }
    }
}

/// What the engine needs to admit one member; made by `StateConsumer.register`, which is
/// `@inlinable`, so everything typed by the selected value is compiled in the caller's module.
@usableFromInline
struct Enrollment<State> {
    @usableFromInline let id: UInt64
    /// The grouping key, or `nil` for a member that never shares its group.
    @usableFromInline let key: GroupKey?
    /// Appends the member's callback to `candidate` (a group with the same key) when the member
    /// can join it and fire exactly as it would alone, or to a new group; says which.
    @usableFromInline let admit:
        (_ state: inout State, _ address: UnsafeRawPointer, _ candidate: MemberGroup?) -> Admission<State>
    /// The `instantly` call, if asked for; the last argument is the member's identifier.
    @usableFromInline let fireInstantly: ((inout State, UnsafeRawPointer, Delivery, UInt64) -> Void)?

    @inlinable
    init(
        id: UInt64,
        key: GroupKey?,
        admit: @escaping (inout State, UnsafeRawPointer, MemberGroup?) -> Admission<State>,
        fireInstantly: ((inout State, UnsafeRawPointer, Delivery, UInt64) -> Void)?
    ) {
        self.id = id
        self.key = key
        self.admit = admit
        self.fireInstantly = fireInstantly
    }
}
