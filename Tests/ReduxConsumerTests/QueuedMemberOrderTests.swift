import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 2 on a consumer's queue: the members a state changed are called in the order they were
/// added, even when some of their calls waited since an earlier state and merged the new change.
struct QueuedMemberOrderTests {
    /// Six fields; every change sets a field to the number of the action that made it, so a call's
    /// `old` and `new` say which actions it covers.
    struct Fields: Sendable {
        var values = [Int](repeating: 0, count: 6)
    }

    /// Sets `fields` to `version`.
    struct Stamp: Action {
        let fields: [Int]
        let version: Int
    }

    static let reducer = Reducer<Fields> { (state, action: Stamp) in
        for field in action.fields {
            state.values[field] = action.version
        }
    }

    /// One call as the queue made it.
    struct Call: Sendable {
        let member: Int
        let field: Int
        let old: Int
        let new: Int
    }

    @Test func membersAChangeReachesAreCalledInTheOrderAddedWhenAnEarlierCallWaits() {
        let store = Store(initialState: Fields(), reducer: Self.reducer)
        let queue = DispatchQueue(label: "queued-member-order")
        let consumer = StateConsumer<Fields>(deliveringOn: queue)
        let calls = Recorder<String>()
        consumer.add(\.values[0]) { old, new in calls.append("first \(old)→\(new)") }
        consumer.add({ $0.values[1] }) { old, new in calls.append("second \(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        queue.suspend()
        store.dispatch(Stamp(fields: [1], version: 1))  // only the second member's value
        store.dispatch(Stamp(fields: [0, 1], version: 2))  // both: the second one's call merges
        queue.resume()
        queue.sync {}
        #expect(calls.values == ["first 0→2", "second 0→2"])
        subscription.cancel()
    }

    @Test func aMemberWhoseCallbackKeepsChangingItsValueDoesNotHoldTheOthersBack() {
        let store = Store(initialState: Fields(), reducer: Self.reducer)
        let queue = DispatchQueue(label: "queued-member-order")
        let consumer = StateConsumer<Fields>(deliveringOn: queue)
        let calls = Recorder<String>()
        consumer.add(\.values[0]) { _, new in
            calls.append("restless \(new)")
            // Changes its own value again from its callback, each time posting a new call.
            if new < 50 { store.dispatch(Stamp(fields: [0], version: new + 1)) }
        }
        consumer.add(\.values[1]) { _, new in calls.append("patient \(new)") }
        let subscription = store.subscribe(consumer)
        queue.suspend()
        store.dispatch(Stamp(fields: [0, 1], version: 1))
        queue.resume()
        queue.sync {}
        // The patient member's call was waiting when the restless one's first call was made: it
        // comes right after it, not after the 49 calls the restless member posted meanwhile.
        #expect(calls.values.prefix(3) == ["restless 1", "patient 1", "restless 2"])
        #expect(calls.values.last == "restless 50")
        subscription.cancel()
    }

    /// Random programs: members on random fields (several on one field, key paths and closures),
    /// random states, the queue suspended and resumed at random. For every action, the calls
    /// that cover it must come in the order their members were added; each member's calls must
    /// chain, and end at the state's value.
    @Test(arguments: 0..<40)
    func randomProgramsCallTheMembersOfEveryActionInTheOrderAdded(seed: UInt64) {
        var random = SplitMix64(seed: 0x5EED_0000 + seed)
        let store = Store(initialState: Fields(), reducer: Self.reducer)
        let queue = DispatchQueue(label: "queued-member-order-\(seed)")
        let consumer = StateConsumer<Fields>(deliveringOn: queue)
        let calls = Recorder<Call>()
        let memberCount = 2 + Int(random.next() % 7)
        var fieldOf: [Int] = []
        for member in 0..<memberCount {
            let field = Int(random.next() % 6)
            fieldOf.append(field)
            let record: @Sendable (Int, Int) -> Void = { old, new in
                calls.append(Call(member: member, field: field, old: old, new: new))
            }
            if random.next() % 2 == 0 {
                consumer.add(\.values[field], record)
            } else {
                consumer.add({ $0.values[field] }, record)
            }
        }
        let subscription = store.subscribe(consumer)
        var changed: [Int: Set<Int>] = [:]  // action (version) → the fields it changed
        var isSuspended = false
        for version in 1...60 {
            if random.next() % 4 == 0 {
                if isSuspended { queue.resume() } else { queue.suspend() }
                isSuspended.toggle()
            }
            let fields = (0..<6).filter { _ in random.next() % 3 == 0 }
            changed[version] = Set(fields)
            store.dispatch(Stamp(fields: fields, version: version))
        }
        if isSuspended { queue.resume() }
        queue.sync {}
        subscription.cancel()

        let made = calls.values
        for version in changed.keys.sorted() {
            // The calls that carry this action's change, in the order they were made.
            let covering = made.filter { call in
                changed[version]!.contains(call.field) && call.old < version && version <= call.new
            }
            let members = covering.map(\.member)
            #expect(members == members.sorted(), "action \(version): members called in the order \(members)")
            let expected = (0..<memberCount).filter { changed[version]!.contains(fieldOf[$0]) }
            #expect(Set(members) == Set(expected), "action \(version): members \(members), expected \(expected)")
        }
        let state = store.state
        for member in 0..<memberCount {
            let own = made.filter { $0.member == member }
            #expect(zip(own, own.dropFirst()).allSatisfy { $0.new == $1.old }, "member \(member): \(own)")
            #expect((own.last?.new ?? 0) == state.values[fieldOf[member]], "member \(member) ends elsewhere")
            #expect(own.first.map { $0.old == 0 } ?? true)
        }
    }

    /// Members removed while their calls wait in the batch the queue is making (found there by a
    /// binary search) or among the calls waiting for the next one are never called; the others are,
    /// in the order they were added.
    @Test func membersRemovedFromTheBatchInProgressAreNotCalled() {
        struct Wide: Sendable { var values = [Int](repeating: 0, count: 40) }
        struct Bump: Action {}
        let store = Store(
            initialState: Wide(),
            reducer: Reducer<Wide> { (state, _: Bump) in
                for index in state.values.indices { state.values[index] += 1 }
            })
        let queue = DispatchQueue(label: "queued-member-order")
        let consumer = StateConsumer<Wide>(deliveringOn: queue)
        let calls = Recorder<Int>()
        let entered = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        var tokens: [ConsumerToken] = []
        for index in 0..<40 {
            tokens.append(
                consumer.add(\.values[index]) { _, _ in
                    calls.append(index)
                    if index == 0, calls.values.count == 1 {
                        entered.signal()
                        go.wait()
                    }
                })
        }
        let subscription = store.subscribe(consumer)
        queue.suspend()
        store.dispatch(Bump())  // 40 calls wait: the queue's pump takes them as one batch
        queue.resume()
        entered.wait()  // the batch of 40 is being made; member 0's call is running
        store.dispatch(Bump())  // 40 calls wait for the next batch
        let removed: Set = [1, 7, 20, 21, 38, 39]
        for index in removed.sorted(by: >) {
            tokens[index].cancel()
        }
        go.signal()
        queue.sync {}
        queue.sync {}
        let kept = (0..<40).filter { !removed.contains($0) }
        #expect(calls.values == kept + kept)
        subscription.cancel()
    }
}
