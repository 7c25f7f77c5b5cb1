import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A callback that dispatches actions and then ends consumer subscriptions: each consumer's leave
/// runs right after the job in progress, ahead of the actions the callback queued (its drain keeps
/// such work apart from the queued actions rather than inserting it before each of them, which
/// cost a move of every queued action per consumer). What the consumers, the store and the
/// queued actions see is unchanged.
@Suite struct LeaveBehindQueuedDispatchesTests {
    private static let consumerCount = 40
    private static let queuedActions = 30

    @Test func consumersLeftInACallbackAfterItDispatchedHearNoneOfTheQueuedActions() {
        let store = makeStore()
        let seen = Recorder<String>()
        var subscriptions: [Subscription] = []
        var consumers: [StateConsumer<AppState>] = []
        for index in 0..<Self.consumerCount {
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter) { old, new in seen.append("c\(index) \(old)→\(new)") }
            consumers.append(consumer)
            subscriptions.append(store.subscribe(consumer))
        }
        let toCancel = Box(subscriptions)
        let hasRun = Box(false)
        let trigger = store.subscribe { _, new in
            seen.append("closure \(new.counter)")
            guard !hasRun.value else { return }
            hasRun.value = true
            for _ in 0..<Self.queuedActions { store.dispatch(CounterAction.increment) }
            for subscription in toCancel.value { subscription.cancel() }
            seen.append("callback returned")
        }
        store.dispatch(CounterAction.increment)

        let firstPass = (0..<Self.consumerCount).map { "c\($0) 0→1" } + ["closure 1", "callback returned"]
        let queued = (2...(Self.queuedActions + 1)).map { "closure \($0)" }
        #expect(seen.values == firstPass + queued, "the consumers hear the first action only, then leave")
        #expect(store.state.counter == Self.queuedActions + 1)
        #expect(store.subscriberCount == 1, "only the closure is left")

        // Every consumer let go of the store: each joins another one, and hears it.
        let other = makeStore(AppState(counter: 100))
        let joined = consumers.map { other.subscribe($0) }
        other.dispatch(CounterAction.increment)
        let afterJoin = Array(seen.values.dropFirst(firstPass.count + queued.count))
        #expect(
            afterJoin == (0..<Self.consumerCount).map { "c\($0) 1→100" }
                + (0..<Self.consumerCount).map { "c\($0) 100→101" },
            "each joins the other store from its last value, then hears it")
        for subscription in joined + [trigger] { subscription.cancel() }
    }

    @Test func workAfterTheJobRunsBeforeTheQueuedActionsInTheOrderItWasGiven() {
        // Consumers left in a callback, then subscribed again from the queued actions' callbacks:
        // each leave is over before the first queued action runs, so every re-subscription
        // starts from the state of that action.
        let store = makeStore()
        let seen = Recorder<String>()
        let consumers = (0..<Self.consumerCount).map { index -> StateConsumer<AppState> in
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter) { old, new in seen.append("c\(index) \(old)→\(new)") }
            return consumer
        }
        let subscriptions = Box(consumers.map { store.subscribe($0) })
        let step = Box(0)
        let trigger = store.subscribe { _, new in
            step.value += 1
            switch step.value {
            case 1:
                store.dispatch(CounterAction.set(10))
                for subscription in subscriptions.value { subscription.cancel() }
            case 2:
                subscriptions.value = consumers.map { store.subscribe($0) }
            default:
                break
            }
        }
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.set(11))
        let expected =
            (0..<Self.consumerCount).map { "c\($0) 0→1" } + (0..<Self.consumerCount).map { "c\($0) 1→10" }
            + (0..<Self.consumerCount).map { "c\($0) 10→11" }
        #expect(seen.values == expected)
        #expect(store.subscriberCount == Self.consumerCount + 1)
        for subscription in subscriptions.value + [trigger] { subscription.cancel() }
    }
}
