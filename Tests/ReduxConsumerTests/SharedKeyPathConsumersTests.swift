import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Many consumers with one member each on the same key path (a page per request watching one
/// global field) share one evaluation, and a pass that fires it calls their members from a list
/// the node keeps beside its groups. These tests check that list against consumers that share
/// nothing (closure selectors, one evaluation each): same callbacks, same order, same old and new
/// values, while members and subscriptions come and go between actions and inside callbacks.
struct SharedKeyPathConsumersTests {
    @Test(arguments: [1, 7, 42, 2026, 90210] as [UInt64])
    func consumersSharingAKeyPathFireExactlyLikeConsumersThatShareNothing(seed: UInt64) {
        let shared = Fleet(usesKeyPaths: true, consumers: 12)
        let alone = Fleet(usesKeyPaths: false, consumers: 12)
        var random = SplitMix64(seed: seed)
        var nextLabel = 0

        func addToBoth() {
            let plan = FleetPlan.random(label: nextLabel, consumers: 12, using: &random)
            nextLabel += 1
            shared.add(plan)
            alone.add(plan)
        }

        for _ in 0..<30 { addToBoth() }
        for _ in 0..<800 {
            switch random.next() % 16 {
            case 0, 1:
                addToBoth()
            case 2:
                let label = Int(random.next() % UInt64(max(nextLabel, 1)))
                shared.remove(label)
                alone.remove(label)
            case 3:
                let consumer = Int(random.next() % 12)
                shared.toggleSubscription(of: consumer)
                alone.toggleSubscription(of: consumer)
            case 4:
                let consumer = Int(random.next() % 12)
                shared.removeAll(of: consumer)
                alone.removeAll(of: consumer)
            default:
                let action = FleetAction.random(using: &random)
                shared.store.dispatch(action)
                alone.store.dispatch(action)
            }
        }

        #expect(shared.log.count > 1_000)
        #expect(firstDifference(shared.log, alone.log) == nil)
        #expect(shared.counts == alone.counts)
        shared.tearDown()
        alone.tearDown()
    }

    /// A consumer whose only member is replaced between two actions is called with the new
    /// callback: the list the node keeps is rebuilt, never replayed.
    @Test func aReplacedLoneMemberIsCalledWithItsNewCallback() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let consumers = (0..<4).map { _ in StateConsumer<FleetState>() }
        let subscriptions = consumers.map { store.subscribe($0) }
        let seen = Recorder<String>()
        var tokens = consumers.indices.map { index in
            consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") }
        }
        store.dispatch(FleetAction.first(1))
        consumers[2].remove(tokens[2])
        tokens[2] = consumers[2].add(\.first) { old, new in seen.append("2' \(old)→\(new)") }
        store.dispatch(FleetAction.first(2))
        #expect(
            seen.values == ["0 0→1", "1 0→1", "2 0→1", "3 0→1", "0 1→2", "1 1→2", "2' 1→2", "3 1→2"])
        for subscription in subscriptions { subscription.cancel() }
    }

    /// The list the node keeps holds each lone member's callback: a member removed between two
    /// actions is released by its removal, without waiting for the next action.
    @Test func aRemovedLoneMembersCapturesAreReleasedWithItsRemoval() {
        final class Captured: Sendable {}
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let consumers = (0..<3).map { _ in StateConsumer<FleetState>() }
        let subscriptions = consumers.map { store.subscribe($0) }
        weak var released: Captured?
        var tokens: [ConsumerToken] = []
        for consumer in consumers {
            let captured = Captured()
            released = captured
            tokens.append(consumer.add(\.first) { _, _ in withExtendedLifetime(captured) {} })
        }
        store.dispatch(FleetAction.first(1))
        #expect(released != nil)
        tokens[2].cancel()
        #expect(released == nil)
        for subscription in subscriptions { subscription.cancel() }
    }

    /// A member removed from inside another consumer's callback during a pass is released by the
    /// time that callback returned: before the next consumer is called, not at the pass's end.
    @Test func aLoneMemberRemovedDuringAPassIsReleasedBeforeTheNextCallback() {
        final class Captured: Sendable {}
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let consumers = (0..<3).map { _ in StateConsumer<FleetState>() }
        let subscriptions = consumers.map { store.subscribe($0) }
        let released = WeakReference<Captured>()
        let tokens = Box<[ConsumerToken]>([])
        let releasedInNext = Box<Bool?>(nil)
        let seen = Recorder<String>()
        tokens.value.append(
            consumers[0].add(\.first) { _, new in
                seen.append("0 \(new)")
                if new == 1 { tokens.value[2].cancel() }
            })
        tokens.value.append(
            consumers[1].add(\.first) { _, new in
                seen.append("1 \(new)")
                if releasedInNext.value == nil { releasedInNext.value = released.value == nil }
            })
        do {
            let captured = Captured()
            released.value = captured
            tokens.value.append(
                consumers[2].add(\.first) { _, new in
                    withExtendedLifetime(captured) {}
                    seen.append("2 \(new)")
                })
        }
        store.dispatch(FleetAction.first(1))
        #expect(seen.values == ["0 1", "1 1"])
        #expect(releasedInNext.value == true)
        #expect(released.value == nil)
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// A consumer with several members on the shared key path, subscribed first, leaves the others
    /// called from the node's list: its delivery (an iteration of its own list) changes no row.
    /// Checked by what the others hear, in order, through members added and removed meanwhile.
    @Test func aConsumerWithSeveralMembersAmongLoneOnesKeepsTheOrder() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let consumers = (0..<4).map { _ in StateConsumer<FleetState>() }
        let subscriptions = consumers.map { store.subscribe($0) }
        let seen = Recorder<String>()
        consumers[0].add(\.first) { old, new in seen.append("0a \(old)→\(new)") }
        consumers[0].add(\.first) { old, new in seen.append("0b \(old)→\(new)") }
        var tokens: [ConsumerToken] = []
        for index in 1..<4 {
            tokens.append(consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") })
        }
        store.dispatch(FleetAction.first(1))
        tokens[1].cancel()
        store.dispatch(FleetAction.first(2))
        #expect(
            seen.values == [
                "0a 0→1", "0b 0→1", "1 0→1", "2 0→1", "3 0→1",
                "0a 1→2", "0b 1→2", "1 1→2", "3 1→2",
            ])
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// Inside one pass, a consumer's callback removes a later consumer's member, gives another a
    /// second member, and cancels a third's subscription: the removed and the unsubscribed are not
    /// called, the second member starts with the next state, and the rest are called in order.
    @Test func changesMadeByACallbackDuringThePassHoldForTheRestOfIt() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let consumers = (0..<6).map { _ in StateConsumer<FleetState>() }
        let subscriptions = consumers.map { store.subscribe($0) }
        let seen = Recorder<String>()
        let tokens = Box<[ConsumerToken]>([])
        let didMeddle = Box(false)
        for index in consumers.indices {
            let token = consumers[index].add(\.first) { old, new in
                seen.append("\(index) \(old)→\(new)")
                guard index == 1, !didMeddle.value else { return }
                didMeddle.value = true
                consumers[2].remove(tokens.value[2])
                consumers[3].add(\.first) { old, new in seen.append("3b \(old)→\(new)") }
                subscriptions[4].cancel()
            }
            tokens.value.append(token)
        }
        store.dispatch(FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        #expect(
            seen.values == [
                "0 0→1", "1 0→1", "3 0→1", "5 0→1",
                "0 1→2", "1 1→2", "3 1→2", "3b 1→2", "5 1→2",
            ])
        #expect(consumers[2].count == 0)
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// A consumer that delivers on a queue, among consumers called in place on the same key path,
    /// is posted to its queue, not called from the node's list; the others keep their order.
    @Test func aConsumerWithAQueueAmongThemIsPostedToItsQueue() async {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let queue = DispatchQueue(label: "SharedKeyPathConsumersTests")
        let queued = StateConsumer<FleetState>(deliveringOn: queue)
        let consumers = (0..<3).map { _ in StateConsumer<FleetState>() }
        let seen = Recorder<String>()
        let onQueue = Recorder<String>()
        let subscriptions =
            [store.subscribe(consumers[0]), store.subscribe(queued)] + consumers.dropFirst().map { store.subscribe($0) }
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") }
        }
        queued.add(\.first) { old, new in
            dispatchPrecondition(condition: .onQueue(queue))
            onQueue.append("q \(old)→\(new)")
        }
        store.dispatch(FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(seen.values == ["0 0→1", "1 0→1", "2 0→1", "0 1→2", "1 1→2", "2 1→2"])
        // Merged or not, the queue's calls follow the store's states and end at the last one.
        #expect(onQueue.values == ["q 0→1", "q 1→2"] || onQueue.values == ["q 0→2"])
        for subscription in subscriptions { subscription.cancel() }
    }

    /// One consumer whose key paths all change in one action (a reset, a load) is called in the
    /// order its members were added, whether its key paths' members follow each other (called key
    /// path after key path) or interleave (merged); a member a callback removes from a later key
    /// path is not called, and one it adds waits for the next state.
    @Test func oneConsumersKeyPathsFiringTogetherAreCalledInMemberOrder() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let consumer = StateConsumer<FleetState>()
        let subscription = store.subscribe(consumer)
        let seen = Recorder<String>()
        let removed = Box<ConsumerToken?>(nil)
        let didMeddle = Box(false)
        // First all of `first`'s members, then all of `second`'s: they follow each other.
        consumer.add(\.first) { old, new in
            seen.append("f1 \(old)→\(new)")
            guard !didMeddle.value else { return }
            didMeddle.value = true
            if let token = removed.value { consumer.remove(token) }
            consumer.add(\.second) { old, new in seen.append("s3 \(old)→\(new)") }
        }
        consumer.add(\.first) { old, new in seen.append("f2 \(old)→\(new)") }
        consumer.add(\.second) { old, new in seen.append("s1 \(old)→\(new)") }
        removed.value = consumer.add(\.second) { old, new in seen.append("s2 \(old)→\(new)") }
        store.dispatch(FleetAction.both(1))
        #expect(seen.values == ["f1 0→1", "f2 0→1", "s1 0→1"])
        // Now `first` gets a member after `second`'s: the two interleave.
        consumer.add(\.first) { old, new in seen.append("f3 \(old)→\(new)") }
        store.dispatch(FleetAction.both(2))
        #expect(
            seen.values == [
                "f1 0→1", "f2 0→1", "s1 0→1",
                "f1 1→2", "f2 1→2", "s1 1→2", "s3 1→2", "f3 1→2",
            ])
        subscription.cancel()
        consumer.removeAll()
    }

    /// A closure selector that subscribes a new consumer on the shared key path while the pass
    /// evaluates: the consumers already there are called once each, and the newcomer hears the
    /// changes that follow, its old value each time its previous new one.
    @Test func aConsumerSubscribedByASelectorWhileThePassEvaluatesIsCalledInStep() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let consumers = (0..<3).map { _ in StateConsumer<FleetState>() }
        let newcomer = StateConsumer<FleetState>()
        let seen = Recorder<String>()
        let late = Box<Subscription?>(nil)
        let watcher = StateConsumer<FleetState>()
        // Listed before the others: its evaluation runs first in the first pass.
        watcher.add({ state -> Int in
            if state.first == 1, late.value == nil {
                late.value = store.subscribe(newcomer)
            }
            return 0
        }) { _, _ in }
        let subscriptions = [store.subscribe(watcher)] + consumers.map { store.subscribe($0) }
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") }
        }
        newcomer.add(\.first) { old, new in seen.append("n \(old)→\(new)") }
        store.dispatch(FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        let values = seen.values
        #expect(values.filter { !$0.hasPrefix("n") } == ["0 0→1", "1 0→1", "2 0→1", "0 1→2", "1 1→2", "2 1→2"])
        let newcomerCalls = values.filter { $0.hasPrefix("n") }
        #expect(newcomerCalls.last == "n 1→2")
        #expect(newcomerCalls.count <= 2)
        for subscription in subscriptions { subscription.cancel() }
        late.value?.cancel()
    }
}

/// The first entry where two logs differ, with its index, or `nil` when they are equal.
private func firstDifference(_ shared: [String], _ alone: [String]) -> String? {
    for index in 0..<max(shared.count, alone.count) {
        let left = index < shared.count ? shared[index] : "(end)"
        let right = index < alone.count ? alone[index] : "(end)"
        if left != right { return "#\(index): shared \(left), alone \(right)" }
    }
    return nil
}

struct FleetState: Equatable, Sendable {
    var first = 0
    var second = 0
    var list: [Int] = []
}

enum FleetAction: Action {
    case first(Int)
    case second(Int)
    case append(Int)
    case both(Int)

    /// Small value ranges: many actions change nothing, most change one field.
    static func random(using random: inout SplitMix64) -> FleetAction {
        let value = Int(random.next() % 4)
        switch random.next() % 8 {
        case 0, 1, 2, 3: return .first(value)
        case 4, 5: return .second(value)
        case 6: return .append(value)
        default: return .both(value)
        }
    }
}

let fleetReducer = Reducer<FleetState> { (state, action: FleetAction) in
    switch action {
    case .first(let value): state.first = value
    case .second(let value): state.second = value
    case .append(let value): state.list.append(value)
    case .both(let value):
        state.first = value
        state.second = value
    }
}

/// One member of the randomized test, decided once and added to both fleets alike.
struct FleetPlan: Sendable {
    enum Field: CaseIterable, Sendable {
        case first, second, listCount
    }

    /// What the callback does besides recording the call.
    enum Effect: Sendable {
        case none
        case remove(label: Int)
        case add(label: Int, consumer: Int, field: Field)
        case toggleSubscription(consumer: Int)
    }

    let label: Int
    let consumer: Int
    let field: Field
    let options: ConsumeOptions
    let effect: Effect

    static func random(label: Int, consumers: Int, using random: inout SplitMix64) -> FleetPlan {
        // Mostly the first field: many consumers on one key path.
        let field: Field = random.next() % 4 == 0 ? (random.next() % 2 == 0 ? .second : .listCount) : .first
        let options: ConsumeOptions = random.next() % 8 == 0 ? .instantly : []
        let effect: Effect
        switch random.next() % 10 {
        case 0: effect = .remove(label: Int(random.next() % UInt64(label + 1)))
        case 1:
            effect = .add(label: label + 1_000_000, consumer: Int(random.next() % UInt64(consumers)), field: .first)
        case 2: effect = .toggleSubscription(consumer: Int(random.next() % UInt64(consumers)))
        default: effect = .none
        }
        return FleetPlan(
            label: label, consumer: Int(random.next() % UInt64(consumers)), field: field, options: options,
            effect: effect)
    }
}

/// One side of the comparison: a store and its consumers, whose members select with key paths
/// (shared by every consumer on the same field) or with equivalent closures (never shared), and
/// the log of every callback.
///
/// Touched only from the test's thread: the store calls back synchronously on it.
final class Fleet: @unchecked Sendable {
    // @unchecked: single-threaded (see above).
    let store = Store(initialState: FleetState(), reducer: fleetReducer)
    let consumers: [StateConsumer<FleetState>]
    let usesKeyPaths: Bool
    private(set) var log: [String] = []
    private var subscriptions: [Subscription?]
    private var tokens: [Int: ConsumerToken] = [:]
    private var nestedAdds = 0
    private var toggles = 0

    init(usesKeyPaths: Bool, consumers count: Int) {
        self.usesKeyPaths = usesKeyPaths
        let consumers = (0..<count).map { _ in StateConsumer<FleetState>() }
        let store = store
        self.consumers = consumers
        subscriptions = consumers.map { store.subscribe($0) }
    }

    /// Each consumer's member count.
    var counts: [Int] { consumers.map(\.count) }

    func remove(_ label: Int) {
        if let token = tokens.removeValue(forKey: label) {
            token.cancel()
        }
    }

    func removeAll(of consumer: Int) {
        consumers[consumer].removeAll()
    }

    /// Cancels the consumer's subscription, or subscribes it again (it then comes last in call
    /// order, and catches up with the store's state).
    func toggleSubscription(of consumer: Int) {
        if let subscription = subscriptions[consumer] {
            subscription.cancel()
            subscriptions[consumer] = nil
        } else {
            subscriptions[consumer] = store.subscribe(consumers[consumer])
        }
    }

    func add(_ plan: FleetPlan) {
        let label = plan.label
        let effect: @Sendable () -> Void = { [self] in
            switch plan.effect {
            case .none: break
            case .remove(let other): remove(other)
            case .add(let nested, let consumer, let field):
                // Only the first time, so a chatty member does not add one member per action.
                guard tokens[nested] == nil, nestedAdds < 100 else { return }
                nestedAdds += 1
                add(FleetPlan(label: nested, consumer: consumer, field: field, options: [], effect: .none))
            case .toggleSubscription(let consumer):
                guard toggles < 100 else { return }
                toggles += 1
                toggleSubscription(of: consumer)
            }
        }
        let prefix = "c\(plan.consumer) m\(label)"
        let record: @Sendable (String) -> Void = { [self] entry in log.append("\(prefix) \(entry)") }
        tokens[label] = register(plan, record: record, effect: effect)
    }

    private func register(
        _ plan: FleetPlan,
        record: @escaping @Sendable (String) -> Void,
        effect: @escaping @Sendable () -> Void
    ) -> ConsumerToken {
        let consumer = consumers[plan.consumer]
        let options = plan.options
        // Three callback shapes, picked by label, on both sides alike.
        func watch<Value: Equatable & Sendable>(
            _ keyPath: any KeyPath<FleetState, Value> & Sendable,
            _ selector: @escaping @Sendable (FleetState) -> Value
        ) -> ConsumerToken {
            addKeyPathOrClosureMember(
                to: consumer, label: plan.label, usesKeyPaths: usesKeyPaths, keyPath, selector, options: options,
                describe: { "\($0.first),\($0.second),\($0.list.count)" }, record: record, effect: effect)
        }
        switch plan.field {
        case .first: return watch(\.first) { $0.first }
        case .second: return watch(\.second) { $0.second }
        case .listCount: return watch(\.list.count) { $0.list.count }
        }
    }

    /// Cancels every subscription and removes every member (the callbacks hold the fleet, which
    /// holds the consumers).
    func tearDown() {
        for subscription in subscriptions { subscription?.cancel() }
        for consumer in consumers { consumer.removeAll() }
        tokens.removeAll()
    }
}

/// A weak reference a callback can read (single-threaded tests).
private final class WeakReference<Value: AnyObject>: @unchecked Sendable {
    // @unchecked: single-threaded tests only.
    weak var value: Value?
}
