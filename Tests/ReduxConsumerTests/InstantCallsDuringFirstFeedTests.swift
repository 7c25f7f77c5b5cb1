import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A member added inside a callback makes its `.instantly` call after the members added before
/// it, never inside `add` (README, "Consumers"; Guarantees): also when the callback is one of the
/// calls a consumer's first state makes, from a store it subscribes to or fed by hand.
@Suite struct InstantCallsDuringFirstFeedTests {
    /// Two members waiting for the consumer's first state; the first one's `.instantly` call adds
    /// a third member with `.instantly`. (The callback holds its consumer weakly: a consumer keeps
    /// its members' callbacks.)
    private static func consumer(logging seen: Recorder<String>) -> StateConsumer<FleetState> {
        let consumer = StateConsumer<FleetState>()
        consumer.add(\.first, options: .instantly) { [weak consumer] old, new in
            seen.append("m1 \(old)→\(new)")
            consumer?.add(\.second, options: .instantly) { old, new in seen.append("m3 \(old)→\(new)") }
            seen.append("m1 add returned")
        }
        consumer.add(\.second, options: .instantly) { old, new in seen.append("m2 \(old)→\(new)") }
        return consumer
    }

    @Test func aMemberAddedDuringASubscriptionsFirstFeedIsCalledAfterTheOthers() {
        let store = Store(initialState: FleetState(first: 1, second: 2), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumer = Self.consumer(logging: seen)
        let subscription = store.subscribe(consumer)
        #expect(seen.values == ["m1 1→1", "m1 add returned", "m2 2→2", "m3 2→2"])
        store.dispatch(FleetAction.first(5))
        // m1 adds one more member, whose call comes at the end of this pass.
        #expect(Array(seen.values.dropFirst(4)) == ["m1 1→5", "m1 add returned", "m3 2→2"])
        subscription.cancel()
    }

    /// Fed by hand, the consumer knows no state between feeds: the member added meanwhile starts
    /// from the next state it receives (README, "First delivery"), and makes its call then.
    @Test func aMemberAddedDuringAHandFedFirstStateWaitsForTheNextState() {
        let seen = Recorder<String>()
        let consumer = Self.consumer(logging: seen)
        consumer.consume(newState: FleetState(first: 1, second: 2))
        #expect(seen.values == ["m1 1→1", "m1 add returned", "m2 2→2"])
        consumer.consume(newState: FleetState(first: 1, second: 9))
        #expect(seen.values == ["m1 1→1", "m1 add returned", "m2 2→2", "m2 2→9", "m3 9→9"])
    }
}
