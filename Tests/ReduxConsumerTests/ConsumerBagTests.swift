import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct ConsumerBagTests {
    /// The seed's bulk removal: consumers of one StateConsumer collected in a bag and removed at once.
    @Test func removeAllRemovesEveryCollectedConsumer() {
        let consumer = StateConsumer<AppState>()
        let bag = ConsumerBag()
        let seen = Recorder<String>()
        consumer.add(\.counter) { _, _ in seen.append("counter") }.store(in: bag)
        consumer.add(\.name) { _, _ in seen.append("name") }.store(in: bag)
        consumer.add(\.works) { _, _ in seen.append("kept") }
        #expect(bag.count == 2)
        bag.removeAll()
        #expect(bag.isEmpty)
        #expect(consumer.count == 1)
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1, name: "x", works: ["w"]))
        #expect(seen.values == ["kept"])
    }

    @Test func bagCollectsSubscriptionsAndTokensOfSeveralConsumers() {
        let store = makeStore()
        let first = StateConsumer<AppState>()
        let second = StateConsumer<AppState>()
        let bag = ConsumerBag()
        let seen = Recorder<String>()
        first.add(\.counter) { _, _ in seen.append("first") }.store(in: bag)
        second.add(\.counter) { _, _ in seen.append("second") }.store(in: bag)
        store.subscribe(first).store(in: bag)
        store.subscribe(second).store(in: bag)
        store.subscribe { _, _ in seen.append("closure") }.store(in: bag)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["first", "second", "closure"])
        bag.removeAll()
        #expect(store.subscriberCount == 0)
        store.dispatch(CounterAction.increment)
        #expect(seen.values.count == 3)
    }

    @Test func bagCancelsEverythingWhenItGoesAway() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<Int>()
        do {
            let bag = ConsumerBag()
            consumer.add(\.counter) { _, new in seen.append(new) }.store(in: bag)
            store.subscribe(consumer).store(in: bag)
            store.dispatch(CounterAction.increment)
        }
        #expect(store.subscriberCount == 0)
        #expect(consumer.count == 0)
        store.dispatch(CounterAction.increment)
        #expect(seen.values == [1])
    }
}
