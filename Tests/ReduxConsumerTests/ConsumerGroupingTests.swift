import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Grouped key-path consumers (one read and one comparison per key path) must fire exactly like
/// ungrouped closure-selector consumers: same callbacks, same order, same old and new values,
/// through random actions and adds and removes between actions and inside callbacks.
struct ConsumerGroupingTests {
    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func groupedConsumersFireExactlyLikeUngroupedOnes(seed: UInt64) {
        let store = Store(initialState: GroupingState(), reducer: groupingReducer)
        let grouped = Side(usesKeyPaths: true)
        let ungrouped = Side(usesKeyPaths: false)
        var subscriptions = [store.subscribe(grouped.consumer), store.subscribe(ungrouped.consumer)]
        var random = SplitMix64(seed: seed)
        var nextLabel = 0
        var live: [Int] = []

        func addBoth() {
            let plan = ConsumerPlan.random(label: nextLabel, existing: live, using: &random)
            nextLabel += 1
            live.append(plan.label)
            grouped.add(plan)
            ungrouped.add(plan)
        }

        for _ in 0..<40 { addBoth() }
        for _ in 0..<600 {
            switch random.next() % 10 {
            case 0, 1:
                addBoth()
            case 2 where !live.isEmpty:
                let label = live.remove(at: Int(random.next() % UInt64(live.count)))
                grouped.remove(label)
                ungrouped.remove(label)
            case 3:
                // Leave the store, take a state fed by hand, come back: groups keep their own last
                // values away from the store and catch up with its state when they return, and
                // members added meanwhile wait for a first state.
                for subscription in subscriptions { subscription.cancel() }
                var state = store.state
                GroupingAction.random(using: &random).apply(to: &state)
                grouped.consumer.consume(newState: state)
                ungrouped.consumer.consume(newState: state)
                if random.next() % 2 == 0 { addBoth() }
                subscriptions = [store.subscribe(grouped.consumer), store.subscribe(ungrouped.consumer)]
            default:
                store.dispatch(GroupingAction.random(using: &random))
            }
        }

        #expect(grouped.log.count > 500)
        #expect(firstDifference(grouped.log, ungrouped.log) == nil)
        #expect(grouped.consumer.count == ungrouped.consumer.count)
        for subscription in subscriptions { subscription.cancel() }
        // Each side's callbacks hold the side, which holds the consumer: remove them to free both.
        grouped.consumer.removeAll()
        ungrouped.consumer.removeAll()
    }

    @Test func consumerRemovedByAnEarlierCallbackIsNotCalledLaterInTheSamePass() {
        let store = Store(initialState: GroupingState(), reducer: groupingReducer)
        let consumer = StateConsumer<GroupingState>()
        let seen = Recorder<String>()
        let later = Box<ConsumerToken?>(nil)
        consumer.add(\.first) { _, _ in
            if let token = later.value { consumer.remove(token) }
            seen.append("first")
        }
        later.value = consumer.add(\.first) { _, _ in seen.append("second") }
        let subscription = store.subscribe(consumer)
        store.dispatch(GroupingAction.first(1))
        store.dispatch(GroupingAction.first(2))
        #expect(seen.values == ["first", "first"])
        subscription.cancel()
        consumer.removeAll()  // The first member's callback holds the consumer.
    }

    /// A group of one member is delivered from a copy of that member's callback: the copy must
    /// follow the list as members come and go, also from inside the member's own callback.
    @Test func aGroupOfOneMemberFollowsItsMembersAsTheyComeAndGo() {
        let store = Store(initialState: GroupingState(), reducer: groupingReducer)
        let consumer = StateConsumer<GroupingState>()
        let seen = Recorder<String>()
        let own = Box<ConsumerToken?>(nil)
        own.value = consumer.add(\.first) { old, new in
            seen.append("a \(old)→\(new)")
            // Replaced by a member added during the pass: it starts with the next state.
            consumer.remove(own.value!)
            consumer.add(\.first) { old, new in seen.append("b \(old)→\(new)") }
        }
        let subscription = store.subscribe(consumer)
        store.dispatch(GroupingAction.first(1))
        store.dispatch(GroupingAction.first(2))
        // The list's only slot is a hole, then a new member joins: both states reach the group.
        let third = consumer.add(\.first) { old, new in seen.append("c \(old)→\(new)") }
        store.dispatch(GroupingAction.first(3))
        consumer.remove(third)
        store.dispatch(GroupingAction.first(4))
        consumer.removeAll()
        store.dispatch(GroupingAction.first(5))
        #expect(seen.values == ["a 0→1", "b 1→2", "b 2→3", "c 2→3", "b 3→4"])
        subscription.cancel()
    }
}

/// The first entry where two logs differ, with its index, or `nil` when they are equal.
private func firstDifference(_ grouped: [String], _ ungrouped: [String]) -> String? {
    for index in 0..<max(grouped.count, ungrouped.count) {
        let left = index < grouped.count ? grouped[index] : "(end)"
        let right = index < ungrouped.count ? ungrouped[index] : "(end)"
        if left != right { return "#\(index): grouped \(left), ungrouped \(right)" }
    }
    return nil
}

/// The state of the grouping tests: stored, nested, computed and collection selections.
struct GroupingState: Equatable, Sendable {
    var first = 0
    var second = 0
    var name = ""
    var inner = Inner()
    var list: [Int] = []

    struct Inner: Equatable, Sendable {
        var level = 0
    }
}

enum GroupingAction: Action {
    case first(Int)
    case second(Int)
    case name(String)
    case level(Int)
    case append(Int)
    case clear

    /// Small value ranges, so many actions leave the value as it was (no callback).
    static func random(using random: inout SplitMix64) -> GroupingAction {
        let value = Int(random.next() % 3)
        switch random.next() % 6 {
        case 0: return .first(value)
        case 1: return .second(value)
        case 2: return .name(["", "a", "b"][value])
        case 3: return .level(value)
        case 4: return .append(value)
        default: return .clear
        }
    }
}

extension GroupingAction {
    func apply(to state: inout GroupingState) {
        switch self {
        case .first(let value): state.first = value
        case .second(let value): state.second = value
        case .name(let value): state.name = value
        case .level(let value): state.inner.level = value
        case .append(let value): state.list.append(value)
        case .clear: state.list.removeAll()
        }
    }
}

let groupingReducer = Reducer<GroupingState> { (state, action: GroupingAction) in
    action.apply(to: &state)
}

/// One consumer of the randomized test, decided once and added to both sides alike.
struct ConsumerPlan {
    enum Field: CaseIterable {
        case first, second, name, level, list, listCount
    }

    /// What the callback does besides recording the call.
    enum Effect {
        case none
        case remove(label: Int)
        case add(ConsumerPlanBox)
    }

    let label: Int
    let field: Field
    let options: ConsumeOptions
    let effect: Effect

    static func random(label: Int, existing: [Int], using random: inout SplitMix64) -> ConsumerPlan {
        let field = Field.allCases[Int(random.next() % UInt64(Field.allCases.count))]
        let options: ConsumeOptions = random.next() % 8 == 0 ? .instantly : []
        let effect: Effect
        switch random.next() % 12 {
        case 0 where !existing.isEmpty:
            effect = .remove(label: existing[Int(random.next() % UInt64(existing.count))])
        case 1:
            let nested = ConsumerPlan(
                label: label + 1_000_000,
                field: Field.allCases[Int(random.next() % UInt64(Field.allCases.count))],
                options: [],
                effect: .none
            )
            effect = .add(ConsumerPlanBox(nested))
        default:
            effect = .none
        }
        return ConsumerPlan(label: label, field: field, options: options, effect: effect)
    }
}

/// Boxes a nested plan (an enum payload cannot hold its own struct type directly).
final class ConsumerPlanBox: Sendable {
    let plan: ConsumerPlan

    init(_ plan: ConsumerPlan) {
        self.plan = plan
    }
}

extension ConsumerPlan: @unchecked Sendable {}

/// One side of the comparison: a consumer whose members select with key paths (grouped) or with
/// equivalent closures (never grouped), and the log of every callback.
///
/// Touched only from the test's thread: the store calls back synchronously on it.
final class Side: @unchecked Sendable {
    // @unchecked: single-threaded (see above).
    let consumer = StateConsumer<GroupingState>()
    let usesKeyPaths: Bool
    private(set) var log: [String] = []
    private var tokens: [Int: ConsumerToken] = [:]
    private var nestedAdds = 0

    init(usesKeyPaths: Bool) {
        self.usesKeyPaths = usesKeyPaths
    }

    func remove(_ label: Int) {
        if let token = tokens.removeValue(forKey: label) {
            consumer.remove(token)
        }
    }

    func add(_ plan: ConsumerPlan) {
        let label = plan.label
        let effect: @Sendable () -> Void = { [self] in
            switch plan.effect {
            case .none: break
            case .remove(let other): remove(other)
            case .add(let box):
                // Only the first time, so a chatty consumer does not add one member per action.
                guard tokens[box.plan.label] == nil, nestedAdds < 200 else { return }
                nestedAdds += 1
                add(box.plan)
            }
        }
        let record: @Sendable (String) -> Void = { [self] entry in log.append("\(label) \(entry)") }
        tokens[label] = register(plan, record: record, effect: effect)
    }

    private func register(
        _ plan: ConsumerPlan,
        record: @escaping @Sendable (String) -> Void,
        effect: @escaping @Sendable () -> Void
    ) -> ConsumerToken {
        let options = plan.options
        // Three callback shapes, picked by label, on both sides alike.
        func watch<Value: Equatable & Sendable>(
            _ keyPath: any KeyPath<GroupingState, Value> & Sendable,
            _ selector: @escaping @Sendable (GroupingState) -> Value
        ) -> ConsumerToken {
            addKeyPathOrClosureMember(
                to: consumer, label: plan.label, usesKeyPaths: usesKeyPaths, keyPath, selector, options: options,
                describe: { "\($0.first),\($0.second),\($0.list.count)" }, record: record, effect: effect)
        }
        switch plan.field {
        case .first: return watch(\.first) { $0.first }
        case .second: return watch(\.second) { $0.second }
        case .name: return watch(\.name) { $0.name }
        case .level: return watch(\.inner.level) { $0.inner.level }
        case .list: return watch(\.list) { $0.list }
        case .listCount: return watch(\.list.count) { $0.list.count }
        }
    }
}

/// A value shared with a callback in a single-threaded test.
final class Box<Value>: @unchecked Sendable {
    // @unchecked: single-threaded tests only.
    var value: Value

    init(_ value: Value) {
        self.value = value
    }
}
