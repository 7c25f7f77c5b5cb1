import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 2 for members added inside a callback: they start with the next state, so within a
/// pass the members are still called in the order they were added, and no callback runs inside
/// the `add` call itself.
struct MemberOrderTests {
    @Test(arguments: [[], .instantly] as [ConsumeOptions])
    func aMemberAddedInsideACallbackIsCalledAfterTheMembersAddedBeforeIt(options: ConsumeOptions) {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<String>()
        consumer.add(\.counter) { new in
            guard new == 1 else { return }
            calls.append("add starts")
            consumer.add(\.counter, options: options) { old, new in calls.append("added \(old)→\(new)") }
            calls.append("add returned")
        }
        consumer.add(\.counter) { old, new in calls.append("earlier \(old)→\(new)") }
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)

        let order = calls.values
        let index = { (entry: String) in order.firstIndex { $0.hasPrefix(entry) } ?? order.count }
        #expect(index("add returned") == index("add starts") + 1, "a callback ran inside add: \(order)")
        #expect(index("earlier 0→1") < index("added"), "the member added later was called first: \(order)")
        #expect(index("earlier 1→2") < order.lastIndex { $0.hasPrefix("added") } ?? order.count, "\(order)")
        subscription.cancel()
        consumer.removeAll()  // The first member's callback holds the consumer.
    }
}
