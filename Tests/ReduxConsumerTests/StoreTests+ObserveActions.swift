import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

extension StoreTests {
    @Test func actionListenersHearReducedActionsAfterSubscribersInOrder() {
        let store = makeStore()
        let log = Recorder<String>()
        let consumer = StateConsumer<AppState>()
        consumer.add(\.counter) { new in log.append("consumer: \(new)") }
        let subscriptions = [
            store.subscribe(consumer),
            store.observeActions { log.append("first: \($0)") },
            store.subscribe { _, new in log.append("subscriber: \(new.counter)") },
            store.observeActions { log.append("second: \($0)") },
        ]

        store.dispatch(CounterAction.increment)
        subscriptions[1].cancel()
        store.dispatch(CounterAction.set(5))

        #expect(
            log.values == [
                "consumer: 1", "subscriber: 1", "first: increment", "second: increment",
                "consumer: 5", "subscriber: 5", "second: set(5)",
            ]
        )
    }

    @Test func actionListenersHearActionsWhenNobodySubscribesToTheState() {
        let store = makeStore()
        let heard = Recorder<String>()
        let subscription = store.observeActions { heard.append("\($0)") }

        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.rename("Kim"))

        #expect(heard.values == ["increment", "rename(Optional(\"Kim\"))"])
        #expect(store.state == AppState(counter: 1, name: "Kim"))
        subscription.cancel()
    }

    @Test func actionsSwallowedByMiddlewareAreNotHeard() {
        let swallowRenames: Middleware<AppState> = { _, _ in
            { next in
                { action in
                    if case CounterAction.rename = action { return }
                    next(action)
                }
            }
        }
        let store = makeStore(middleware: [swallowRenames])
        let heard = Recorder<String>()
        let subscription = store.observeActions { heard.append("\($0)") }

        store.dispatch(CounterAction.rename("Kim"))
        store.dispatch(CounterAction.increment)

        #expect(heard.values == ["increment"])
        subscription.cancel()
    }

    @Test func actionListenerCancellingItselfOrALaterOneStopsThem() {
        let store = makeStore()
        let heard = Recorder<String>()
        let own = Lock<Subscription?>(nil)
        let later = Lock<Subscription?>(nil)
        let first = store.observeActions { action in
            heard.append("first: \(action)")
            own.withLock { $0 }?.cancel()
            heard.append("first returns")
        }
        own.withLock { $0 = first }
        let second = store.observeActions { action in
            heard.append("second: \(action)")
            later.withLock { $0 }?.cancel()
        }
        later.withLock { $0 = store.observeActions { heard.append("later: \($0)") } }
        #expect(store.subscriberCount == 3)

        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.decrement)

        #expect(
            heard.values == [
                "first: increment", "first returns", "second: increment",
                "second: decrement",
            ]
        )
        #expect(store.subscriberCount == 1)
        second.cancel()
        #expect(store.subscriberCount == 0)
    }

    @Test func droppedListenerHandleKeepsListeningUntilCancelled() {
        let store = makeStore()
        let heard = Recorder<String>()
        let handle = Lock<Subscription?>(nil)
        do {
            let subscription = store.observeActions { heard.append("\($0)") }
            handle.withLock { $0 = subscription }
        }
        store.dispatch(CounterAction.increment)
        handle.withLock { $0 }?.cancel()
        store.dispatch(CounterAction.decrement)

        #expect(heard.values == ["increment"])
        #expect(store.subscriberCount == 0)
    }

    @Test func actionListenerAddedDuringAnActionStartsWithTheNextOne() {
        let store = makeStore()
        let heard = Recorder<String>()
        let added = Lock<[Subscription]>([])
        // Added from a subscriber and from a listener of the same action: neither hears it.
        let subscriber = store.subscribe { _, new in
            guard new.counter == 1 else { return }
            let subscription = store.observeActions { heard.append("from subscriber: \($0)") }
            added.withLock { $0.append(subscription) }
        }
        let listener = store.observeActions { action in
            guard case CounterAction.increment = action else { return }
            let subscription = store.observeActions { heard.append("from listener: \($0)") }
            added.withLock { $0.append(subscription) }
        }

        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.set(7))

        #expect(heard.values == ["from subscriber: set(7)", "from listener: set(7)"])
        #expect(store.subscriberCount == 4)
        subscriber.cancel()
        listener.cancel()
        for subscription in added.withLock({ $0 }) { subscription.cancel() }
        #expect(store.subscriberCount == 0)
    }

    @Test func actionListenerCancelledBeforeItsQueuedRegistrationRanIsNeverCalled() {
        let store = makeStore()
        let heard = Recorder<String>()
        let subscriber = store.subscribe { _, _ in
            let listener = store.observeActions { heard.append("\($0)") }
            listener.cancel()
        }

        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)

        #expect(heard.values.isEmpty)
        #expect(store.subscriberCount == 1)
        subscriber.cancel()
    }

    @Test func actionDispatchedFromAListenerRunsAfterTheCurrentOne() {
        let store = makeStore()
        let heard = Recorder<String>()
        let first = store.observeActions { action in
            heard.append("first: \(action)")
            if case CounterAction.increment = action { store.dispatch(CounterAction.set(10)) }
        }
        let second = store.observeActions { heard.append("second: \($0)") }

        store.dispatch(CounterAction.increment)

        #expect(
            heard.values == [
                "first: increment", "second: increment", "first: set(10)", "second: set(10)",
            ]
        )
        #expect(store.state.counter == 10)
        first.cancel()
        second.cancel()
    }
}
