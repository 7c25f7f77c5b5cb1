// Exit tests need a child process: not available on iOS, tvOS, watchOS or visionOS.
#if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)
    import Dispatch
    import Foundation
    import ReduxConsumer
    import ReduxConsumerTestSupport
    import Testing

    /// Stores and pages released, closed and streamed under threads: what their consumers,
    /// streams and counts are left with.
    struct PageStreamHuntTests {
        /// Guarantee 7: a consumer whose store is gone is free at once. Another thread that sees
        /// the store gone (a weak reference to it is `nil`) subscribes the consumer to another
        /// store right away; before the fix, the store's `deinit` had not yet marked its host
        /// ended, and the subscription stopped the program as "subscribed to two stores".
        @Test func aConsumerIsFreeAsSoonAsAWeakReferenceSeesItsStoreGone() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                Self.releaseOnOneThreadAndJoinOnAnother(thenSubscribe: true)
            }
            Self.expectNoMisuse(result)
        }

        /// As above, feeding the consumer by hand instead.
        @Test func aConsumerIsFedByHandAsSoonAsAWeakReferenceSeesItsStoreGone() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                Self.releaseOnOneThreadAndJoinOnAnother(thenSubscribe: false)
            }
            Self.expectNoMisuse(result)
        }

        /// Rounds of: a consumer subscribed to a store with a stream and a closure subscriber
        /// (a teardown to run as it goes); one thread drops the last reference to the store, and
        /// another, as soon as a weak reference to it is `nil`, subscribes the consumer to the
        /// next store (`thenSubscribe`) or feeds it by hand. Stops the process unless the member's
        /// chain is unbroken and it heard the new source.
        static func releaseOnOneThreadAndJoinOnAnother(thenSubscribe subscribes: Bool) {
            final class Weak: @unchecked Sendable {
                // @unchecked: written before the releasing thread starts, read after.
                weak var store: Store<AppState>?
            }
            let consumer = StateConsumer<AppState>()
            let heard = Recorder<Change<Int>>()
            consumer.add(\.counter) { old, new in heard.append(Change(old: old, new: new)) }
            var current = makeStore(AppState(counter: 0))
            var subscription = current.subscribe(consumer)
            for round in 1...2_000 {
                let gone = Slot<Store<AppState>?>(current)
                let weak = Weak()
                weak.store = current
                // Something that ends with the store: its teardown widens the window in `deinit`.
                gone.value!.subscribe { _, _ in }
                gone.value!.dispatch(CounterAction.set(round * 10))
                subscription.cancel()
                subscription = gone.value!.subscribe(consumer)
                let next = makeStore(AppState(counter: round * 10 + 5))
                current = next
                let releaser = spawn { gone.value = nil }
                spin { weak.store == nil }
                if subscribes {
                    subscription = next.subscribe(consumer)
                } else {
                    consumer.consume(newState: AppState(counter: round * 10 + 5))
                }
                releaser.wait()
                precondition(
                    heard.last?.new == round * 10 + 5, "round \(round): heard \(String(describing: heard.last))")
                if !subscribes { subscription = next.subscribe(consumer) }
            }
            let changes = heard.values
            for (earlier, later) in zip(changes, changes.dropFirst()) {
                precondition(earlier.new == later.old, "broken chain: \(earlier) then \(later)")
            }
            subscription.cancel()
        }

        private static func expectNoMisuse(_ result: ExitTest.Result?) {
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(!message.contains("a consumer belongs to one store at a time"), "\(message)")
            #expect(!message.contains("a consumer is fed by one source at a time"), "\(message)")
        }
    }
#endif
