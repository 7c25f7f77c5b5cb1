import ReduxConsumer
import Testing

struct SmokeTests {
    @Test func keyPathConsumerFires() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("\(old)→\(new)") }
        consumer.add({ $0.works.count }) { old, new in seen.append("works \(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.addWork("a"))
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["0→1", "works 0→1", "1→2"])
        subscription.cancel()
    }
}
