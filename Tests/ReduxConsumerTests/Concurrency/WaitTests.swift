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

    @Test func throwsCancellationErrorWhenTheTaskIsCancelled() async {
        let store = makeStore()
        let waiter = Task { try await store.wait(until: { $0.counter == 1 }) }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(store.subscriberCount == 0)
    }
}
