import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct StateConsumerTests {
    /// The seed's CounterViewController: three consumers fed by hand from `newState`.
    @Test func seedCounterViewControllerConsumers() {
        let consumer = StateConsumer<AppState>()
        let labels = Recorder<String>()
        consumer.add(\.counter, options: .instantly) { new in labels.append("counter \(new)") }
        consumer.add(\.name) { old, new in labels.append("name \(old ?? "nil") → \(new ?? "nil")") }
        consumer.add({ $0.works }) { old, new in labels.append("works \(old) → \(new)") }

        var state = AppState()
        consumer.consume(newState: state)
        state.counter = 1
        consumer.consume(newState: state)
        state.name = "Kim"
        consumer.consume(newState: state)
        state.works.append("write tests")
        consumer.consume(newState: state)
        consumer.consume(newState: state)

        #expect(
            labels.values == [
                "counter 0", "counter 1", "name nil → Kim", #"works [] → ["write tests"]"#,
            ]
        )
    }

    @Test func unchangedValuesDoNotFire() {
        let store = makeStore(AppState(name: "Kim"))
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.name) { _, new in seen.append(new ?? "nil") }
        consumer.add(\.works) { _, new in seen.append("\(new)") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.rename("Kim"))
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.clearWorks)
        #expect(seen.values.isEmpty)
        subscription.cancel()
    }

    @Test func oldAndNewValuesFollowEveryChange() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("\(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        for action in [CounterAction.increment, .increment, .set(10), .decrement, .rename("x")] {
            store.dispatch(action)
        }
        #expect(seen.values == ["0→1", "1→2", "2→10", "10→9"])
        subscription.cancel()
    }

    @Test(
        arguments: [
            ([nil, "a", nil, nil, "b", "b"], ["nil→a", "a→nil", "nil→b"]),
            (["a", "a", nil], ["a→nil"]),
        ] as [([String?], [String])])
    func optionalTransitionsFireButNilToNilDoesNot(names: [String?], expected: [String]) {
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.name) { old, new in seen.append("\(old ?? "nil")→\(new ?? "nil")") }
        for name in names {
            consumer.consume(newState: AppState(name: name))
        }
        #expect(seen.values == expected)
    }

    @Test func arraysCompareElementByElement() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<[String]>()
        consumer.add(\.works) { _, new in seen.append(new) }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.addWork("a"))
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.addWork("b"))
        store.dispatch(CounterAction.clearWorks)
        store.dispatch(CounterAction.clearWorks)
        #expect(seen.values == [["a"], ["a", "b"], []])
        subscription.cancel()
    }

    /// The seed's "predict" consumer: a value that is not Equatable, judged by the caller.
    @Test func customEqualityIsTheOnlyJudge() {
        struct Profile: Sendable {
            var id: Int
            var visits: Int
        }
        let consumer = StateConsumer<Profile>()
        let byID = Recorder<String>()
        let never = Recorder<Int>()
        consumer.add({ $0 }, isEqual: { $0.id == $1.id }) { old, new in byID.append("\(old.id)→\(new.id)") }
        // Equatable values too: `isEqual` replaces `==`, it is not added to it.
        consumer.add(\.visits, isEqual: { _, _ in true }) { _, new in never.append(new) }
        consumer.consume(newState: Profile(id: 1, visits: 0))
        consumer.consume(newState: Profile(id: 1, visits: 5))
        consumer.consume(newState: Profile(id: 2, visits: 5))
        #expect(byID.values == ["1→2"])
        #expect(never.values.isEmpty)
    }

    @Test func pulseFiresForEveryStateEvenWhenEqual() {
        let store = makeStore(AppState(name: "oops"))
        let consumer = StateConsumer<AppState>()
        let alerts = Recorder<String>()
        consumer.add(\.name, options: .pulse) { _, new in alerts.append(new ?? "nil") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.rename("oops"))
        store.dispatch(CounterAction.rename("oops"))
        #expect(alerts.values == ["oops", "oops"])
        subscription.cancel()
    }

    @Test func instantConsumerFiresAtOnceWhenTheStateIsKnown() {
        let store = makeStore(AppState(counter: 7))
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let seen = Recorder<String>()
        consumer.add(\.counter, options: .instantly) { old, new in seen.append("\(old)→\(new)") }
        #expect(seen.values == ["7→7"])
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["7→7", "7→8"])
        subscription.cancel()
    }

    @Test func withoutInstantTheFirstCallComesWithTheFirstChange() {
        let store = makeStore(AppState(counter: 7))
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("\(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        #expect(seen.values.isEmpty)
        store.dispatch(CounterAction.rename("no change to counter"))
        #expect(seen.values.isEmpty)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["7→8"])
        subscription.cancel()
    }

    @Test func consumerAddedWhileSubscribedStartsFromTheCurrentValue() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.set(5))
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("\(old)→\(new)") }
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["5→6"])
        subscription.cancel()
    }

    @Test func callbacksRunInTheOrderConsumersWereAdded() {
        let consumer = StateConsumer<AppState>()
        let order = Recorder<String>()
        consumer.add(\.counter) { _, _ in order.append("counter 1") }
        consumer.add(\.name) { _, _ in order.append("name") }
        consumer.add({ $0.counter }) { _, _ in order.append("counter closure") }
        consumer.add(\.counter) { _, _ in order.append("counter 2") }
        consumer.add(\.works) { _, _ in order.append("works") }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1, name: "x", works: ["w"]))
        #expect(order.values == ["counter 1", "name", "counter closure", "counter 2", "works"])
    }

    @Test func consumerRemovedInsideACallbackIsNeverCalledAgain() {
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        let victim = Lock<ConsumerToken?>(nil)
        consumer.add(\.counter) { _, _ in
            seen.append("remover")
            victim.withLock { $0 }.map(consumer.remove)
        }
        victim.withLock { $0 = consumer.add(\.counter) { _, _ in seen.append("victim") } }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1))
        consumer.consume(newState: AppState(counter: 2))
        #expect(seen.values == ["remover", "remover"])
        #expect(consumer.count == 1)
        consumer.removeAll()  // The remover's callback holds the consumer.
    }

    @Test func consumerRemovingItselfStopsAfterItsCall() {
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<Int>()
        let own = Lock<ConsumerToken?>(nil)
        own.withLock {
            $0 = consumer.add(\.counter) { _, new in
                seen.append(new)
                own.withLock { $0 }?.cancel()
            }
        }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1))
        consumer.consume(newState: AppState(counter: 2))
        #expect(seen.values == [1])
        #expect(consumer.count == 0)
    }

    @Test func consumerAddedInsideACallbackStartsWithTheNextState() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter) { _, new in
            if new == 1 {
                consumer.add(\.counter) { old, new in seen.append("late \(old)→\(new)") }
            }
        }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        #expect(seen.values.isEmpty)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["late 1→2"])
        subscription.cancel()
        consumer.removeAll()  // The first member's callback holds the consumer.
    }

    @Test func removeAllStopsEveryConsumer() {
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<Int>()
        for _ in 0..<3 { consumer.add(\.counter) { _, new in seen.append(new) } }
        consumer.consume(newState: AppState())
        #expect(consumer.count == 3)
        consumer.removeAll()
        consumer.consume(newState: AppState(counter: 1))
        #expect(seen.values.isEmpty)
        #expect(consumer.count == 0)
    }

    @Test func callbacksCanBeDeliveredOnAQueueInOrder() {
        let queue = DispatchQueue(label: "consumer-delivery")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in
            dispatchPrecondition(condition: .onQueue(queue))
            seen.append("\(old)→\(new)")
        }
        let store = makeStore()
        let subscription = store.subscribe(consumer)
        for _ in 0..<5 {
            store.dispatch(CounterAction.increment)
            queue.sync {}
        }
        #expect(seen.values == ["0→1", "1→2", "2→3", "3→4", "4→5"])
        subscription.cancel()
    }

    @Test func aQueueThatFallsBehindGetsMergedChangesThatKeepTheChain() {
        let queue = DispatchQueue(label: "consumer-delivery")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("\(old)→\(new)") }
        let store = makeStore()
        let subscription = store.subscribe(consumer)
        let blocked = DispatchSemaphore(value: 0)
        queue.async { blocked.wait() }
        for _ in 0..<5 { store.dispatch(CounterAction.increment) }
        blocked.signal()
        queue.sync {}
        // Five changes while the queue was busy: one call, from the first old to the latest new.
        #expect(seen.values == ["0→5"])
        subscription.cancel()
    }

    @Test func queuedCallbackOfARemovedConsumerIsDropped() {
        let queue = DispatchQueue(label: "consumer-delivery")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let seen = Recorder<Int>()
        let token = consumer.add(\.counter) { _, new in seen.append(new) }
        consumer.consume(newState: AppState())
        queue.sync {
            // The queue is blocked: the next callback is queued behind us, then its consumer is removed.
            consumer.consume(newState: AppState(counter: 1))
            token.cancel()
        }
        queue.sync {}
        #expect(seen.values.isEmpty)
    }

    /// The consumer keeps the selected values, never the state: a state it consumed is freed once
    /// nobody else holds it.
    @Test func consumedStatesAreNotRetained() {
        final class Payload: Sendable {}
        struct Heavy: Sendable {
            var payload: Payload
            var count: Int
        }
        let consumer = StateConsumer<Heavy>()
        consumer.add(\.count) { _, _ in }
        consumer.add({ $0.count * 2 }) { _, _ in }
        weak var first: Payload?
        do {
            let payload = Payload()
            first = payload
            consumer.consume(newState: Heavy(payload: payload, count: 0))
            consumer.consume(newState: Heavy(payload: Payload(), count: 1))
        }
        #expect(first == nil)
    }

    @Test func tokenOutlivingItsConsumerIsHarmless() {
        var consumer: StateConsumer<AppState>? = StateConsumer()
        let token = consumer?.add(\.counter) { _, _ in }
        consumer = nil
        token?.cancel()
        #expect(consumer == nil)
    }
}
