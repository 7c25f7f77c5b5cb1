import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Consumers that leave a key path many others watch leave their place in its list to a vacancy,
/// dropped once vacancies outnumber the consumers left (so that pages ending in the order they
/// began do not move every later page's entry, one page at a time). These tests hold the rules
/// across it: who is called, in which order, with which old value; what a consumer that left
/// still holds; and a consumer that comes back.
struct VacantPlaceTests {
    /// Consumers cancelled oldest first, newest first and in a random order, with an action after
    /// each cancellation: every action calls exactly the consumers still subscribed, in the order
    /// they subscribed, each from the value it heard last.
    @Test(arguments: [CancelOrder.oldestFirst, .newestFirst, .random(seed: 7), .random(seed: 2026)])
    func theConsumersLeftAreCalledInOrderAfterEachCancellation(order: CancelOrder) {
        let count = 40
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<count).map { _ in StateConsumer<FleetState>() }
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") }
        }
        var subscriptions = consumers.map { store.subscribe($0) }
        var live = Array(0..<count)
        var value = 0
        for index in order.indices(count) {
            subscriptions[index].cancel()
            live.removeAll { $0 == index }
            let before = seen.values.count
            value += 1
            store.dispatch(FleetAction.first(value))
            #expect(Array(seen.values[before...]) == live.map { "\($0) \(value - 1)→\(value)" })
        }
        #expect(live.isEmpty)
        subscriptions.removeAll()
        for consumer in consumers { consumer.removeAll() }
    }

    /// A consumer that subscribes again after leaving a place comes last in call order and hears
    /// the change from the value it heard last, whatever vacancies the list holds then.
    @Test func aConsumerThatComesBackIsCalledLastFromItsOwnLastValue() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<8).map { _ in StateConsumer<FleetState>() }
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") }
        }
        var subscriptions = consumers.map { store.subscribe($0) }
        store.dispatch(FleetAction.first(1))
        subscriptions[1].cancel()
        subscriptions[2].cancel()
        store.dispatch(FleetAction.first(2))
        subscriptions[1] = store.subscribe(consumers[1])  // catches up: 1→2
        store.dispatch(FleetAction.first(3))
        #expect(
            seen.values == [
                "0 0→1", "1 0→1", "2 0→1", "3 0→1", "4 0→1", "5 0→1", "6 0→1", "7 0→1",
                "0 1→2", "3 1→2", "4 1→2", "5 1→2", "6 1→2", "7 1→2",
                "1 1→2",
                "0 2→3", "3 2→3", "4 2→3", "5 2→3", "6 2→3", "7 2→3", "1 2→3",
            ])
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// A consumer's callback that cancels most of the consumers after it, in the middle of a pass
    /// (which leaves vacancies, then drops them): none of them is called again, in this pass or
    /// later, and the rest are called in order, in this pass and the next.
    @Test func cancellationsInsideAPassLeaveTheRestInOrder() {
        let count = 30
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let subscriptions = Box<[Subscription]>([])
        let consumers = (0..<count).map { _ in StateConsumer<FleetState>() }
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in
                seen.append("\(index) \(old)→\(new)")
                guard index == 3, new == 1 else { return }
                // Every other one first (vacancies), then the rest but the last two (which drops them).
                for other in stride(from: 4, to: count - 2, by: 2) { subscriptions.value[other].cancel() }
                for other in stride(from: 5, to: count - 2, by: 2) { subscriptions.value[other].cancel() }
            }
        }
        subscriptions.value = consumers.map { store.subscribe($0) }
        store.dispatch(FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        let left = [0, 1, 2, 3, count - 2, count - 1]
        #expect(seen.values == left.map { "\($0) 0→1" } + left.map { "\($0) 1→2" })
        for subscription in subscriptions.value { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// Closure subscribers keep their place among consumers whose list holds vacancies: a store
    /// calls both in the order they subscribed.
    @Test func closureSubscribersInterleaveWithConsumersByTheirOrder() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<6).map { _ in StateConsumer<FleetState>() }
        for index in consumers.indices {
            consumers[index].add(\.first) { _, new in seen.append("\(index) \(new)") }
        }
        var subscriptions: [Subscription] = []
        for index in consumers.indices {
            subscriptions.append(store.subscribe(consumers[index]))
            if index == 2 {
                subscriptions.append(store.subscribe { _, new in seen.append("closure \(new.first)") })
            }
        }
        // Consumers 0, 1 and 3 leave places the others keep (vacancies: three consumers are left
        // after them).
        for index in [0, 1, 4] { subscriptions[index].cancel() }
        store.dispatch(FleetAction.first(1))
        #expect(seen.values == ["2 1", "closure 1", "4 1", "5 1"])
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// A consumer that left gives up its callbacks at once: its place holds a vacancy, which keeps
    /// nothing of it.
    @Test func aConsumerThatLeftIsReleasedThoughItsPlaceIsKept() {
        final class Captured: Sendable {}
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let released = WeakBox<Captured>()
        var consumers = (0..<6).map { _ in StateConsumer<FleetState>() }
        for index in consumers.indices {
            let captured = Captured()
            if index == 1 { released.value = captured }
            consumers[index].add(\.first) { _, _ in withExtendedLifetime(captured) {} }
        }
        var subscriptions = consumers.map { store.subscribe($0) }
        store.dispatch(FleetAction.first(1))
        subscriptions[1].cancel()
        subscriptions.remove(at: 1)
        consumers.remove(at: 1)
        #expect(released.value == nil)
        store.dispatch(FleetAction.first(2))
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }
    // The randomized differential checks (consumers leaving, coming back and filling their
    // places, against consumers that share nothing) are in `VacancyReviewTests`.
}

/// The order in which ``VacantPlaceTests`` cancels its consumers.
enum CancelOrder: Sendable, CustomTestStringConvertible {
    case oldestFirst
    case newestFirst
    case random(seed: UInt64)

    func indices(_ count: Int) -> [Int] {
        switch self {
        case .oldestFirst: return Array(0..<count)
        case .newestFirst: return Array((0..<count).reversed())
        case .random(let seed):
            var random = SplitMix64(seed: seed)
            var indices = Array(0..<count)
            for index in indices.indices.reversed() where index > 0 {
                indices.swapAt(index, Int(random.next() % UInt64(index + 1)))
            }
            return indices
        }
    }

    var testDescription: String {
        switch self {
        case .oldestFirst: "oldest first"
        case .newestFirst: "newest first"
        case .random(let seed): "random order, seed \(seed)"
        }
    }
}

/// A weak reference a test reads after the object's last strong reference went (one thread).
private final class WeakBox<Value: AnyObject>: @unchecked Sendable {
    // @unchecked: single-threaded tests only.
    weak var value: Value?
}
