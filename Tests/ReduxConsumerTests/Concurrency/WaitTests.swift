import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct WaitTests {
    @Test func returnsAtOnceWhenTheStateMatchesAlready() async throws {
        let store = makeStore(AppState(counter: 3))
        let state = try await store.wait(until: { $0.counter == 3 })
        #expect(state.counter == 3)
        #expect(store.subscriberCount == 0)
    }

    @Test func returnsTheFirstMatchingState() async throws {
        let store = makeStore()
        let waiter = Task { try await store.wait(until: { $0.counter >= 2 }, timeout: 30) }
        while store.subscriberCount == 0 { await Task.yield() }
        for _ in 0..<5 { await store.send(CounterAction.increment) }
        #expect(try await waiter.value.counter == 2)
        #expect(store.subscriberCount == 0)
    }

    @Test func throwsATimeoutErrorThatSaysSo() async {
        let store = makeStore()
        await #expect(throws: StoreWaitError.timedOut(after: 0.05)) {
            try await store.wait(until: { $0.counter == 1 }, timeout: 0.05)
        }
        #expect(StoreWaitError.timedOut(after: 0.05).description == "the state did not match within 0.05 s")
        #expect(store.subscriberCount == 0)
    }

    /// "zero ... checks the current state only": the state `store.state` reads, also while the
    /// store is busy on another thread (the check used to queue behind that thread's work, and the
    /// zero timeout won the race: `timedOut` for a state that matched).
    @Test func aZeroTimeoutChecksTheCurrentStateWhileTheStoreIsBusy() async throws {
        let store = makeStore(AppState(counter: 5))
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let subscription = store.subscribe { _, new in
            guard new.name == "busy" else { return }
            entered.signal()
            release.wait()
        }
        let busy = spawn { store.dispatch(CounterAction.rename("busy")) }
        entered.wait()  // the store's thread is inside the callback, the new state published
        defer {
            release.signal()
            busy.wait()
            subscription.cancel()
        }
        let state = try await store.wait(until: { $0.name == "busy" }, timeout: 0)
        #expect(state.counter == 5)
        await #expect(throws: StoreWaitError.timedOut(after: 0)) {
            try await store.wait(until: { $0.counter == 6 }, timeout: 0)
        }
    }

    /// A zero timeout on a closed page: a matching state is returned, any other is `storeGone`.
    @Test func aZeroTimeoutOnAClosedPageSaysTheStoreIsGone() async throws {
        let page = PageStore(global: makeStore(), initialState: { $0 }, reducer: appReducer)
        page.dispatch(CounterAction.set(4))
        page.close()
        #expect(try await page.wait(until: { $0.counter == 4 }, timeout: 0).counter == 4)
        await #expect(throws: StoreWaitError.storeGone) {
            try await page.wait(until: { $0.counter == 5 }, timeout: 0)
        }
    }

    @Test func throwsCancellationErrorWhenTheTaskIsCancelled() async {
        let store = makeStore()
        let waiter = Task { try await store.wait(until: { $0.counter == 1 }) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(store.subscriberCount == 0)
    }
}
