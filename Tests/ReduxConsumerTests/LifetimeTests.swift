import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Stores, consumers and pages are freed once their owners let go, with nothing left behind.
struct LifetimeTests {
    @Test func storeWithMiddlewareSubscriptionsAndConsumersIsFreedWhenReleased() {
        var store: Store<AppState>? = makeStore(middleware: [{ dispatch, getState in { next in { next($0) } } }])
        var consumer: StateConsumer<AppState>? = StateConsumer()
        weak let weakStore = store
        weak let weakConsumer = consumer
        store?.addMiddleware { _, _ in { next in { next($0) } } }
        consumer?.add(\.counter) { _ in }
        let subscriptions = [store?.subscribe(consumer!), store?.subscribe { _, _ in }, store?.observeActions { _ in }]
        store?.dispatch(CounterAction.increment)
        store = nil
        consumer = nil
        #expect(weakStore == nil)
        #expect(weakConsumer == nil)
        for subscription in subscriptions { subscription?.cancel() }
    }

    @Test func storeReleasedFromInsideItsOwnCallbackIsFreedAfterThePass() {
        let holder = Lock<Store<AppState>?>(makeStore())
        weak let weakStore = holder.withLock { $0 }
        let calls = Recorder<Int>()
        let subscription = holder.withLock { $0 }?.subscribe { _, new in
            calls.append(new.counter)
            holder.withLock { $0 = nil }
        }
        holder.withLock { $0 }?.dispatch(CounterAction.increment)
        #expect(weakStore == nil)
        #expect(calls.values == [1])
        subscription?.cancel()
        #expect(subscription?.isCancelled == true)
    }

    @Test func pageClosedFromAnotherThreadWhileItsConsumersRunIsFreed() {
        let global = makeStore()
        let calls = Recorder<Int>()
        let outcome = Lock<(page: Weak<PageStore<AppState, AppState>>, consumer: Weak<StateConsumer<AppState>>)?>(nil)
        guard
            finishesWithoutDeadlock({
                let result = closePageDuringAPass(global: global, calls: calls)
                outcome.withLock { $0 = result }
            }),
            let (weakPage, weakConsumer) = outcome.withLock({ $0 })
        else { return }
        // The second consumer may or may not see 1 (close raced with the pass), never 2.
        #expect(calls.values.first == 1)
        #expect(!calls.values.contains(2) && !calls.values.contains(-2))
        #expect(global.subscriberCount == 0)
        #expect(weakPage.value == nil)
        #expect(weakConsumer.value == nil)
    }
}

/// Runs a page pass on one thread, closes the page from another while the pass is in a callback,
/// dispatches once more, and lets the page go; returns weak references to what should be freed.
private func closePageDuringAPass(
    global: Store<AppState>, calls: Recorder<Int>
) -> (page: Weak<PageStore<AppState, AppState>>, consumer: Weak<StateConsumer<AppState>>) {
    let page = PageStore(global: global, initialState: { $0 }, reducer: appReducer)
    let entered = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    page.consumer.add(\.counter) { new in
        calls.append(new)
        entered.signal()
        proceed.wait()
    }
    page.consumer.add(\.counter) { new in calls.append(-new) }
    let dispatcher = spawn { [weak page] in page?.dispatch(CounterAction.increment) }
    entered.wait()
    let closer = spawn { [weak page] in page?.close() }
    proceed.signal()
    dispatcher.wait()
    closer.wait()
    page.dispatch(CounterAction.increment)
    return (Weak(page), Weak(page.consumer))
}

/// A weak reference that can leave the scope that made it.
private final class Weak<Object: AnyObject>: @unchecked Sendable {
    // @unchecked: written once, in init.
    weak var value: Object?

    init(_ value: Object) {
        self.value = value
    }
}
