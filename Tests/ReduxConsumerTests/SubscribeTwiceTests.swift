import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Issue 12: the same `StateConsumer` subscribed twice to one store. `Store.subscribe(_:)`:
/// "Subscribing it again to the same store is harmless: the consumer is fed once and counted once
/// in `subscriberCount`; each call returns a handle of that one subscription, which ends when every
/// handle is cancelled."
struct SubscribeTwiceTests {
    /// A whole-state value store, as in ReSwift's subscription tests.
    enum SetValue: Action {
        case set(Int?)
    }

    static let valueReducer = Reducer<Int?> { (state, action: SetValue) in
        switch action {
        case .set(let value): state = value
        }
    }

    /// How the whole state is selected.
    enum WholeState: CaseIterable, CustomStringConvertible {
        case keyPath
        case closureSelector

        /// Adds an `.instantly` + `.pulse` member recording the new values.
        func addPulse(to consumer: StateConsumer<Int?>, _ seen: Recorder<Int?>) {
            switch self {
            case .keyPath: consumer.add(\.self, options: [.instantly, .pulse]) { new in seen.append(new) }
            case .closureSelector: consumer.add({ $0 }, options: [.instantly, .pulse]) { new in seen.append(new) }
            }
        }

        var description: String {
            switch self {
            case .keyPath: "\\.self"
            case .closureSelector: "{ $0 }"
            }
        }
    }

    /// Item 1: a `.pulse` member of a whole-state consumer subscribed twice fires `[nil, 1]` for one
    /// dispatch, once per state (it fired `[nil, nil, 1, 1]` when each subscription fed it).
    @Test(arguments: WholeState.allCases)
    func consumerSubscribedTwiceIsFedOncePerState(selection: WholeState) {
        let store = Store(initialState: Int?.none, reducer: Self.valueReducer)
        let consumer = StateConsumer<Int?>()
        let seen = Recorder<Int?>()
        selection.addPulse(to: consumer, seen)

        let first = store.subscribe(consumer)
        let second = store.subscribe(consumer)
        #expect(store.subscriberCount == 1)
        store.dispatch(SetValue.set(1))
        #expect(seen.values == [nil, 1])
        store.dispatch(SetValue.set(1))
        #expect(seen.values == [nil, 1, 1])

        first.cancel()
        second.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// Item 2: after cancelling one of two handles the consumer is still subscribed and still
    /// takes its state from the store: an `.instantly` member added then fires inside `add`, and a
    /// plain member added then fires on the very next change.
    @Test func cancellingOneOfTwoHandlesKeepsTheConsumerSubscribed() {
        let store = makeStore(AppState(counter: 7))
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        let first = store.subscribe(consumer)
        let second = store.subscribe(consumer)
        first.cancel()
        first.cancel()
        #expect(store.subscriberCount == 1)

        consumer.add(\.counter, options: .instantly) { old, new in seen.append("instantly \(old)→\(new)") }
        #expect(seen.values == ["instantly 7→7"], "fired inside add")
        consumer.add(\.counter) { old, new in seen.append("plain \(old)→\(new)") }
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["instantly 7→7", "instantly 7→8", "plain 7→8"])

        second.cancel()
        #expect(store.subscriberCount == 0)
        store.dispatch(CounterAction.increment)
        #expect(seen.values.count == 3)
    }

    /// A handle of a subscription that ended does nothing, even after the consumer subscribed
    /// again: only the new handles end the new subscription.
    @Test func aHandleOfAnEndedSubscriptionDoesNotEndTheNextOne() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let seen = Recorder<String>()
        consumer.add(\.counter) { old, new in seen.append("\(old)→\(new)") }
        let old = store.subscribe(consumer)
        old.cancel()
        let new = store.subscribe(consumer)

        old.cancel()
        store.dispatch(CounterAction.increment)
        #expect(seen.values == ["0→1"])
        #expect(store.subscriberCount == 1)
        new.cancel()
        #expect(store.subscriberCount == 0)
    }

    /// The rule under threads: two threads subscribe the same consumer at the same moment. It is
    /// fed once (its `.instantly` member fires once), counted once, fed once per state, and stays
    /// subscribed until both handles are cancelled, in either order.
    @Test func twoThreadsSubscribingTheSameConsumerAtOnceMakeOneSubscription() throws {
        for round in 0..<200 {
            let store = Store(initialState: Int?.none, reducer: Self.valueReducer)
            let consumer = StateConsumer<Int?>()
            let seen = Recorder<Int?>()
            WholeState.keyPath.addPulse(to: consumer, seen)
            let handles = Recorder<Subscription>()

            let finished = finishesWithoutDeadlock {
                let ready = DispatchSemaphore(value: 0)
                let go = DispatchSemaphore(value: 0)
                let threads = (0..<2).map { _ in
                    spawn {
                        ready.signal()
                        go.wait()
                        handles.append(store.subscribe(consumer))
                    }
                }
                ready.wait()
                ready.wait()
                go.signal()
                go.signal()
                for thread in threads { thread.wait() }
            }
            guard finished else { return }

            try #require(store.subscriberCount == 1, "round \(round)")
            try #require(seen.values == [nil], "round \(round): fed once at subscription")
            store.dispatch(SetValue.set(round))
            try #require(seen.values == [nil, round], "round \(round): fed once per state")

            let pair = handles.values
            pair[round % 2].cancel()
            try #require(store.subscriberCount == 1, "round \(round)")
            store.dispatch(SetValue.set(nil))
            try #require(seen.values == [nil, round, nil], "round \(round): still subscribed")
            pair[1 - round % 2].cancel()
            try #require(store.subscriberCount == 0, "round \(round)")
        }
    }
}
