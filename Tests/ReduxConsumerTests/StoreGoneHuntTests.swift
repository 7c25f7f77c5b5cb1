// Exit tests need a child process: not available on iOS, tvOS, watchOS or visionOS.
#if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)
    import Dispatch
    import ReduxConsumer
    import ReduxConsumerTestSupport
    import Testing

    /// Guarantee 7: once a consumer's store is gone, the consumer belongs to no store and may be
    /// subscribed to another one, or fed by hand, at once, even when the store was released from
    /// inside another store's callback while a member's add held its drain on a third thread.
    struct StoreGoneHuntTests {
        @Test func aConsumerWhoseStoreWasReleasedInsideACallbackJoinsAnotherStoreAtOnce() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                Self.releaseTheStoreWhileAnAddHoldsIt(thenSubscribe: true)
            }
            Self.expectNoMisuse(result)
        }

        @Test func aConsumerWhoseStoreWasReleasedInsideACallbackIsFedByHandAtOnce() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                Self.releaseTheStoreWhileAnAddHoldsIt(thenSubscribe: false)
            }
            Self.expectNoMisuse(result)
        }

        /// Releases a consumer's store from inside another store's callback while a member's add
        /// holds the store's drain on a third thread, then at once subscribes the consumer to a third
        /// store (`thenSubscribe`) or feeds it a state by hand; stops the process unless the consumer
        /// hears it. Before the fix the consumer still counted as subscribed to the store that was
        /// gone, and either way stopped the program as a misuse.
        static func releaseTheStoreWhileAnAddHoldsIt(thenSubscribe subscribes: Bool) {
            let gone = Slot<Store<AppState>?>(makeStore())
            let next = makeStore()
            let other = makeStore()
            let consumer = StateConsumer<AppState>()
            gone.value!.subscribe(consumer)
            let inAdd = DispatchSemaphore(value: 0)
            let leaveAdd = DispatchSemaphore(value: 0)
            // An add on another thread holds the first store's drain: its `.instantly` call waits
            // (that first call only: the member hears what comes next too).
            let isFirstCall = Slot(true)
            let heard = Slot(-1)
            let adder = spawn {
                consumer.add(\.counter, options: .instantly) { _, new in
                    heard.value = new
                    guard isFirstCall.value else { return }
                    isFirstCall.value = false
                    inAdd.signal()
                    leaveAdd.wait()
                }
            }
            inAdd.wait()
            let joined = Slot<Subscription?>(nil)
            other.subscribe { _, _ in
                // Inside the other store's work: the last reference to the first store goes.
                gone.value = nil
                if subscribes {
                    joined.value = next.subscribe(consumer)
                } else {
                    consumer.consume(newState: AppState(counter: 5))
                }
            }
            other.dispatch(CounterAction.increment)
            leaveAdd.signal()
            adder.wait()
            if subscribes { next.dispatch(CounterAction.increment) }
            let expected = subscribes ? 1 : 5
            precondition(heard.value == expected, "the consumer heard \(heard.value), not \(expected)")
            joined.value?.cancel()
        }

        private static func expectNoMisuse(_ result: ExitTest.Result?) {
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(!message.contains("a consumer belongs to one store at a time"), "\(message)")
            #expect(!message.contains("a consumer is fed by one source at a time"), "\(message)")
        }
    }
#endif
