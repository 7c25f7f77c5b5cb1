import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct StateConsumerRemoveAllTests {
    @Test func removeAllFromInsideACallbackStopsThePass() {
        let consumer = StateConsumer<AppState>()
        let log = Recorder<String>()
        consumer.add(\.counter) { new in
            log.append("first: \(new)")
            consumer.removeAll()
        }
        consumer.add(\.counter) { new in log.append("second: \(new)") }
        consumer.add({ $0.counter * 2 }) { new in log.append("third: \(new)") }
        consumer.consume(newState: AppState())
        consumer.consume(newState: AppState(counter: 1))
        #expect(log.values == ["first: 1"])
    }
}
