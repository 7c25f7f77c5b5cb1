import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// A group's members are called borrowed from a copy of their list (``BorrowedEntry``): each shape
/// must read back as itself, a callback must stay alive while it runs even when it removes itself
/// or others, and what a removal took out must be freed once the pass is over.
struct BorrowedMemberTests {
    @Test func theViewHasTheLayoutOfTheSlotItViews() {
        #expect(BorrowedEntry<AppState, Int>.matchesLayout)
        #expect(BorrowedEntry<AppState, String?>.matchesLayout)
        #expect(BorrowedEntry<AppState, [String]>.matchesLayout)
        #expect(BorrowedEntry<Int, AppState>.matchesLayout)
        #expect(BorrowedEntry<AppState, Bool>.matchesLayout)
    }

    @Test func everyShapeInOneGroupIsCalledAsItself() async {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let log = Recorder<String>()
        let isolated = AsyncStream.makeStream(of: String.self)
        consumer.add(\.counter) { old, new in log.append("change \(old) → \(new)") }
        consumer.add(\.counter) { new in log.append("value \(new)") }
        consumer.add(\.counter) { old, new, state in log.append("in state \(old) → \(new), \(state.counter)") }
        consumer.add(\.counter, on: TestActor.shared) { @TestActor old, new in
            isolated.continuation.yield("isolated \(old) → \(new)")
        }
        consumer.add(\.counter) { old, new in log.append("change again \(old) → \(new)") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        #expect(
            log.values == [
                "change 0 → 1", "value 1", "in state 0 → 1, 1", "change again 0 → 1",
            ])
        var heard = isolated.stream.makeAsyncIterator()
        #expect(await heard.next() == "isolated 0 → 1")
        subscription.cancel()
    }

    @Test func aMemberThatRemovesItselfStaysAliveUntilItReturns() {
        let consumer = StateConsumer<AppState>()
        let log = Recorder<String>()
        let freed = Recorder<Bool>()
        consumer.add(\.counter) { new in log.append("first \(new)") }
        let token = Box<ConsumerToken?>(nil)
        do {
            let capture = Capture(freed)
            token.value = consumer.add(\.counter) { [capture] new in
                consumer.remove(token.value!)
                // The removal took this callback out of the list; its captures live until it returns.
                log.append("second \(new), capture freed: \(!capture.freed.values.isEmpty)")
            }
        }
        consumer.add(\.counter) { new in log.append("third \(new)") }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1))
        consumer.consume(newState: AppState(counter: 2))
        #expect(log.values == ["first 1", "second 1, capture freed: false", "third 1", "first 2", "third 2"])
        #expect(freed.values == [true])
    }

    @Test func aSoleMemberThatRemovesItselfStaysAliveUntilItReturns() {
        let consumer = StateConsumer<AppState>()
        let log = Recorder<String>()
        let freed = Recorder<Bool>()
        let token = Box<ConsumerToken?>(nil)
        do {
            let capture = Capture(freed)
            token.value = consumer.add(\.counter) { [capture] new in
                consumer.remove(token.value!)
                log.append("sole \(new), capture freed: \(!capture.freed.values.isEmpty)")
            }
        }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1))
        #expect(freed.values == [true])
        consumer.consume(newState: AppState(counter: 2))
        #expect(log.values == ["sole 1, capture freed: false"])
        #expect(consumer.count == 0)
    }

    /// The sole callback is stale while it runs: the list changed under it, and the next delivery
    /// must call the new member, not the copy.
    @Test func aSoleMemberReplacedFromItsOwnCallbackHandsOverToTheNewOne() {
        let consumer = StateConsumer<AppState>()
        let log = Recorder<String>()
        let token = Box<ConsumerToken?>(nil)
        token.value = consumer.add(\.counter) { new in
            log.append("first \(new)")
            consumer.remove(token.value!)
            consumer.add(\.counter) { old, new in log.append("second \(old) → \(new)") }
        }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1))
        consumer.consume(newState: AppState(counter: 2))
        consumer.consume(newState: AppState(counter: 3))
        // A member added inside a callback starts with the next state (README, "Guarantees").
        #expect(log.values == ["first 1", "second 2 → 3"])
    }

    @Test func aMemberRemovedByAnEarlierOneInThePassIsNotCalled() {
        let consumer = StateConsumer<AppState>()
        let log = Recorder<Int>()
        let freed = Recorder<Bool>()
        let third = Box<ConsumerToken?>(nil)
        consumer.add(\.counter) { _ in
            log.append(1)
            if let token = third.value { consumer.remove(token) }
        }
        consumer.add(\.counter) { _ in log.append(2) }
        do {
            let capture = Capture(freed)
            third.value = consumer.add(\.counter) { [capture] _ in log.append(3 + capture.freed.values.count) }
        }
        consumer.add(\.counter) { _ in log.append(4) }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1))
        #expect(log.values == [1, 2, 4])
        #expect(freed.values == [true])
        consumer.removeAll()  // the first member holds the consumer
    }

    @Test func removeAllFromAMemberKeepsItAliveAndFreesEveryoneAfterThePass() {
        let consumer = StateConsumer<AppState>()
        let log = Recorder<String>()
        let freed = Recorder<Bool>()
        do {
            let captures = (0..<3).map { _ in Capture(freed) }
            consumer.add(\.counter) { [capture = captures[0]] new in
                log.append("first \(new) \(capture.freed.values.count)")
            }
            consumer.add(\.counter) { [capture = captures[1]] new in
                consumer.removeAll()
                log.append("second \(new), freed so far: \(capture.freed.values.count)")
            }
            consumer.add(\.counter) { [capture = captures[2]] new in
                log.append("third \(new) \(capture.freed.values.count)")
            }
        }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1))
        #expect(log.values == ["first 1 0", "second 1, freed so far: 0"])
        #expect(consumer.count == 0)
        #expect(freed.values.count == 3)
    }
}

/// A pass that fires one selection calls its consumers' groups in one loop compiled for their
/// types (``TypedGroup/deliverGroups(_:state:drain:level:pass:engine:cursor:)``); the groups it
/// cannot call itself (several members, a queue) go through their own delivery, in order.
struct OneSelectionManyConsumersTests {
    @Test func consumersOfEveryKindAreCalledInSubscriptionOrder() {
        let store = makeStore()
        let log = Recorder<String>()
        var subscriptions: [Subscription] = []
        let queue = DispatchQueue(label: "BorrowedMemberTests.queue")
        for index in 0..<12 {
            let consumer = StateConsumer<AppState>(deliveringOn: index == 7 ? queue : nil)
            consumer.add(\.counter) { old, new in log.append("\(index): \(old) → \(new)") }
            if index == 4 {
                consumer.add(\.counter) { new in log.append("\(index) again: \(new)") }
            }
            subscriptions.append(store.subscribe(consumer))
        }
        store.dispatch(CounterAction.increment)
        queue.sync {}
        // The queued consumer is called on its queue, so only the others' order is fixed.
        let expected = (0..<12).filter { $0 != 7 }.flatMap { index in
            index == 4 ? ["4: 0 → 1", "4 again: 1"] : ["\(index): 0 → 1"]
        }
        #expect(log.values.filter { $0 != "7: 0 → 1" } == expected)
        #expect(log.values.contains("7: 0 → 1"))
        for subscription in subscriptions { subscription.cancel() }
    }

    @Test func aConsumerThatUnsubscribesALaterOneOrItselfStopsItsCalls() {
        let store = makeStore()
        let log = Recorder<Int>()
        let freed = Recorder<Bool>()
        let subscriptions = Box<[Subscription]>([])
        for index in 0..<6 {
            let consumer = StateConsumer<AppState>()
            do {
                let capture = Capture(freed)
                consumer.add(\.counter) { [capture] _ in
                    if index == 1 {
                        subscriptions.value[3].cancel()  // a later consumer
                        subscriptions.value[1].cancel()  // itself
                    }
                    log.append(index * 10 + capture.freed.values.count)
                }
            }
            subscriptions.value.append(store.subscribe(consumer))
        }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        #expect(log.values == [0, 10, 20, 40, 50, 0 + 2, 20 + 2, 40 + 2, 50 + 2])
        #expect(freed.values.count == 2)
        for subscription in subscriptions.value { subscription.cancel() }
    }

    /// A later consumer that leaves and comes back during the pass (from an earlier one's
    /// callback) hears the change once, as it comes back: the pass skips it, and calls the ones
    /// after it as usual; a consumer that only leaves is not called.
    @Test func aLaterConsumerThatLeavesAndComesBackDuringThePassHearsTheChangeOnce() {
        let store = makeStore()
        let log = Recorder<String>()
        let consumers = (0..<5).map { _ in StateConsumer<AppState>() }
        let subscriptions = Box<[Subscription]>([])
        for (index, consumer) in consumers.enumerated() {
            consumer.add(\.counter) { old, new in
                log.append("\(index): \(old) → \(new)")
                guard index == 0, new == 1 else { return }
                subscriptions.value[2].cancel()
                subscriptions.value[2] = store.subscribe(consumers[2])
                subscriptions.value[3].cancel()
            }
            subscriptions.value.append(store.subscribe(consumer))
        }
        store.dispatch(CounterAction.increment)
        #expect(log.values == ["0: 0 → 1", "2: 0 → 1", "1: 0 → 1", "4: 0 → 1"])
        store.dispatch(CounterAction.increment)
        #expect(log.values.suffix(4) == ["0: 1 → 2", "1: 1 → 2", "4: 1 → 2", "2: 1 → 2"])
        for subscription in subscriptions.value { subscription.cancel() }
        // Each callback holds every consumer: the members go, and the cycle with them.
        for consumer in consumers { consumer.removeAll() }
    }
}

/// Captured by a callback; says when it is freed.
private final class Capture: Sendable {
    let freed: Recorder<Bool>
    init(_ freed: Recorder<Bool>) { self.freed = freed }
    deinit { freed.append(true) }
}
