// Exit tests need a child process: not available on iOS, tvOS, watchOS or visionOS.
#if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)
    import Dispatch
    import ReduxConsumer
    import ReduxConsumerTestSupport
    import Testing

    /// Guarantee 7: once a consumer's store is gone, the consumer belongs to no store and may be
    /// subscribed to another one at once, even when the store was released from inside another
    /// store's callback while a member's add held its drain on a third thread.
    struct StoreGoneHuntTests {
        @Test func aConsumerWhoseStoreWasReleasedInsideACallbackJoinsAnotherStoreAtOnce() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let gone = Slot<Store<AppState>?>(makeStore())
                let next = makeStore()
                let other = makeStore()
                let consumer = StateConsumer<AppState>()
                gone.value!.subscribe(consumer)
                let inAdd = DispatchSemaphore(value: 0)
                let leaveAdd = DispatchSemaphore(value: 0)
                // An add on another thread holds the first store's drain: its `.instantly` call waits.
                let adder = spawn {
                    consumer.add(\.counter, options: .instantly) { _, _ in
                        inAdd.signal()
                        leaveAdd.wait()
                    }
                }
                inAdd.wait()
                let joined = Slot<Subscription?>(nil)
                other.subscribe { _, _ in
                    // Inside the other store's work: the last reference to the first store goes.
                    gone.value = nil
                    joined.value = next.subscribe(consumer)
                }
                other.dispatch(CounterAction.increment)
                leaveAdd.signal()
                adder.wait()
                next.dispatch(CounterAction.increment)
                joined.value?.cancel()
            }
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(!message.contains("a consumer belongs to one store at a time"), "\(message)")
        }
    }
#endif
