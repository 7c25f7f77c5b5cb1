import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 5: every object graph the API builds is freed once the user lets go of it, checked
/// here with weak references (and, in `.ci/run`, under LeakSanitizer). Each test builds its graph
/// in a scope of its own and keeps only weak references past it.
struct LeakTests {
    @Test func storeWithEveryKindOfRegistrationIsFreedWithoutCancellingAnything() {
        let watch = LeakWatch()
        do {
            let store = makeStore(middleware: [{ _, _ in { next in { next($0) } } }])
            let consumer = StateConsumer<AppState>()
            let captured = watch.track(Captured())
            consumer.add(\.counter) { _ in captured.touch() }
            consumer.add({ $0.works.count }, options: .instantly) { _ in captured.touch() }
            store.subscribe(consumer)
            store.subscribe { _, _ in captured.touch() }
            store.observeActions { _ in captured.touch() }
            store.addMiddleware { _, _ in
                { next in
                    {
                        captured.touch()
                        next($0)
                    }
                }
            }
            store.dispatch(CounterAction.increment)
            watch.track(store)
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
    }

    @Test func cancelledRegistrationsReleaseWhatTheirCallbacksCaptured() {
        let store = makeStore()
        let watch = LeakWatch()
        do {
            let consumer = StateConsumer<AppState>()
            let captured = watch.track(Captured())
            let token = consumer.add(\.counter) { _ in captured.touch() }
            let subscriptions = [
                store.subscribe(consumer),
                store.subscribe { _, _ in captured.touch() },
                store.observeActions { _ in captured.touch() },
            ]
            store.dispatch(CounterAction.increment)
            token.cancel()
            for subscription in subscriptions { subscription.cancel() }
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(store.subscriberCount == 0)
    }

    @Test func aPassThatFiredSeveralSelectionsKeepsNothingOnceItIsOver() {
        // Two closure selectors fire together (a pass over several nodes); once the consumer is
        // gone, nothing of it may outlive that pass in the store, which stays alive.
        let store = makeStore()
        let watch = LeakWatch()
        do {
            let consumer = StateConsumer<AppState>()
            let captured = watch.track(Captured())
            consumer.add({ $0.counter }) { _ in captured.touch() }
            consumer.add({ $0.counter * 2 }) { _ in captured.touch() }
            let subscription = store.subscribe(consumer)
            store.dispatch(CounterAction.increment)
            subscription.cancel()
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(store.subscriberCount == 0)
    }

    @Test func selectionsThatLeaveDuringAPassThatFiredSeveralAreFreedAsItEnds() {
        // The first consumer's callback removes every member of the second, whose two closure
        // selectors fired in the same pass: a pass over several nodes lists their groups without
        // retaining them, so the groups must outlive the removal until the pass ends (debug
        // builds assert it as a group is freed; AddressSanitizer sees a use after free), must not
        // be called, and must be freed once the pass is over.
        let store = makeStore()
        let watch = LeakWatch()
        let calls = Captured()
        let first = StateConsumer<AppState>()
        let second = StateConsumer<AppState>()
        do {
            let captured = watch.track(Captured())
            second.add({ $0.counter }) { _ in
                captured.touch()
                calls.touch()
            }
            second.add({ $0.counter * 2 }) { _ in
                captured.touch()
                calls.touch()
            }
        }
        first.add({ $0.counter }) { _ in second.removeAll() }
        let subscriptions = [store.subscribe(first), store.subscribe(second)]
        store.dispatch(CounterAction.increment)
        #expect(calls.touches == 0)
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        // The store goes on: its next pass over several nodes starts clean.
        first.add({ $0.counter * 3 }) { _ in calls.touch() }
        store.dispatch(CounterAction.increment)
        #expect(calls.touches == 1)
        withExtendedLifetime(subscriptions) {}
    }

    @Test func keptTokensKeepNothingAlive() {
        let watch = LeakWatch()
        var tokens: [any Cancellable] = []
        do {
            let store = makeStore()
            let consumer = StateConsumer<AppState>()
            tokens.append(consumer.add(\.counter) { _ in })
            tokens.append(store.subscribe(consumer))
            tokens.append(store.subscribe { _, _ in })
            watch.track(store)
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        // Cancelling a handle whose store and consumer are gone does nothing.
        for token in tokens { token.cancel() }
    }

    @Test func consumerWithOneOwnerMemberThatIsNeverSubscribedIsFreed() {
        let watch = LeakWatch()
        let owner = Captured()
        do {
            let consumer = StateConsumer<AppState>()
            let captured = watch.track(Captured())
            consumer.add(\.counter, owner: owner) { _, _, _ in captured.touch() }
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        withExtendedLifetime(owner) {}
    }

    @Test func consumerWithOneOwnerMemberWhoseOwnerIsReleasedIsFreed() {
        let watch = LeakWatch()
        do {
            let consumer = StateConsumer<AppState>()
            let captured = watch.track(Captured())
            do {
                let owner = watch.track(Captured())
                consumer.add({ $0.name }, owner: owner) { _, _, _ in captured.touch() }
            }
            #expect(consumer.count == 0)
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
    }

    @Test func subscribedOwnerMemberReleasesItsCallbackAtTheChangeAfterItsOwnerWent() {
        let store = makeStore()
        let watch = LeakWatch()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        do {
            let owner = watch.track(Captured())
            let captured = watch.track(Captured())
            consumer.add(\.counter, owner: owner) { _, _, _ in captured.touch() }
            store.dispatch(CounterAction.increment)
        }
        #expect(consumer.count == 0)
        // Inert at once, removed for good (with what its callback captured) at its next change.
        store.dispatch(CounterAction.increment)
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        subscription.cancel()
        #expect(store.subscriberCount == 0)
    }

    @Test func subscribedConsumerWithOwnerMembersIsFreedWithItsStore() {
        let watch = LeakWatch()
        let owner = Captured()
        do {
            let store = makeStore()
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter, owner: owner) { owner, _, _ in owner.touch() }
            consumer.add({ $0.works }, owner: owner) { owner, _, _ in owner.touch() }
            store.subscribe(consumer)
            store.dispatch(CounterAction.increment)
            watch.track(store)
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(owner.touches == 1)
    }

    @Test func releasedBagCancelsItsTokensAndFreesTheirConsumer() {
        let store = makeStore()
        let watch = LeakWatch()
        do {
            let bag = ConsumerBag()
            let consumer = StateConsumer<AppState>()
            let captured = watch.track(Captured())
            consumer.add(\.counter) { _ in captured.touch() }.store(in: bag)
            store.subscribe(consumer).store(in: bag)
            store.subscribe { _, _ in captured.touch() }.store(in: bag)
            store.observeActions { _ in captured.touch() }.store(in: bag)
            store.dispatch(CounterAction.increment)
            watch.track(bag)
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(store.subscriberCount == 0)
    }

    @Test func ownerHoldingABagOfItsMembersIsFreedWithThem() {
        let store = makeRootStore()
        let watch = LeakWatch()
        let consumer = StateConsumer<RootState>()
        let subscription = store.subscribe(consumer)
        do {
            let owner = watch.track(BagOwner())
            consumer.add(\.foreground, owner: owner) { owner, _, _ in owner.touch() }.store(in: owner.bag)
            consumer.add(\.auth.user, owner: owner) { owner, _, _ in owner.touch() }.store(in: owner.bag)
            store.dispatch(LifecycleAction.enterForeground)
            #expect(consumer.count == 2)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    @Test(arguments: [false, true])
    func releasedPageFreesEverythingItRegistered(closedFirst: Bool) {
        let global = makeRootStore()
        let start = global.subscriberCount
        let watch = LeakWatch()
        do {
            let log = Recorder<String>()
            let screen = watch.track(MainScreen(global: global, log: log))
            let page = screen.page
            page.forwardActions { $0 is AuthAction }
            let captured = watch.track(Captured())
            page.consumer.add(\.count) { _ in captured.touch() }
            page.globalConsumer.add(\.auth.user) { _ in captured.touch() }
            let child = watch.track(CountBadge(name: "badge", page: page, log: log))
            page.dispatch(MainAction.increment)
            global.dispatch(AuthAction.logIn("kim"))
            #expect(global.subscriberCount == start + 2)
            if closedFirst { page.close() }
            watch.track(page)
            watch.track(page.consumer)
            watch.track(page.globalConsumer)
            withExtendedLifetime(child) {}
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(global.subscriberCount == start)
    }

    @Test func pageDeliveringOnAQueueIsFreedWithCallsStillPending() {
        let global = makeRootStore()
        let queue = DispatchQueue(label: "leak-tests.page")
        let watch = LeakWatch()
        let calls = CallCounter()
        queue.suspend()
        do {
            let page = PageStore(
                global: global, initialState: { _ in MainState() }, reducer: mainReducer, deliveringOn: queue)
            let captured = watch.track(Captured())
            page.consumer.add(\.count) { _ in
                captured.touch()
                calls.increment()
            }
            page.globalConsumer.add(\.foreground) { _ in calls.increment() }
            page.dispatch(MainAction.increment)
            global.dispatch(LifecycleAction.enterForeground)
            watch.track(page)
            watch.track(page.consumer)
        }
        // The pending calls were dropped with the page: nothing keeps what they captured.
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        queue.resume()
        queue.sync {}
        #expect(calls.value == 0)
        #expect(global.subscriberCount == 0)
    }

    @Test func consumerDeliveringOnAQueueIsFreedWithCallsStillPending() {
        let store = makeStore()
        let queue = DispatchQueue(label: "leak-tests.consumer")
        let watch = LeakWatch()
        queue.suspend()
        do {
            let consumer = StateConsumer<AppState>(deliveringOn: queue)
            let captured = watch.track(Captured())
            consumer.add(\.counter) { _ in captured.touch() }
            let subscription = store.subscribe(consumer)
            store.dispatch(CounterAction.increment)
            subscription.cancel()
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        queue.resume()
        queue.sync {}
    }

    @Test func consumerFedByHandIsFreed() {
        let watch = LeakWatch()
        do {
            let consumer = StateConsumer<AppState>()
            let captured = watch.track(Captured())
            consumer.add(\.counter, options: .instantly) { _ in captured.touch() }
            consumer.consume(newState: AppState())
            consumer.consume(newState: AppState(counter: 1))
            #expect(captured.touches == 2)
            watch.track(consumer)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
    }
}

/// A state that holds an object, to see the store's state freed.
private struct HoldingState: Sendable {
    var held: Captured
    var counter = 0
}

extension LeakTests {
    /// A store released while its consumer lives on frees its state at once: the consumer's host
    /// reads the store's state until the store ends, and lets go of it then.
    @Test func storeReleasedWhileItsConsumerLivesOnFreesItsState() {
        let watch = LeakWatch()
        let consumer = StateConsumer<HoldingState>()
        let seen = Lock<[Int]>([])
        consumer.add(\.counter) { _, new in seen.withLock { $0.append(new) } }
        do {
            let store = Store(
                initialState: HoldingState(held: watch.track(Captured())),
                reducer: Reducer { (state, _: CounterAction) in state.counter += 1 })
            store.subscribe(consumer)
            store.dispatch(CounterAction.increment)
            // A member added while subscribed is admitted with the store's current state.
            consumer.add(\.counter, options: .instantly) { _, new in seen.withLock { $0.append(-new) } }
            watch.track(store)
        }
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(seen.withLock { $0 } == [1, -1])
        // The consumer outlives its store, and is fed by hand from then on.
        consumer.consume(newState: HoldingState(held: Captured(), counter: 5))
        #expect(seen.withLock { $0 } == [1, -1, 5, -5])
    }
}

/// Something a callback captures, or an owner.
private final class Captured: Sendable {
    private let count = Lock(0)

    func touch() {
        count.withLock { $0 += 1 }
    }

    var touches: Int {
        count.withLock { $0 }
    }
}

/// An owner that keeps its members' tokens in its own bag.
private final class BagOwner: Sendable {
    let bag = ConsumerBag()
    private let count = Lock(0)

    func touch() {
        count.withLock { $0 += 1 }
    }
}
