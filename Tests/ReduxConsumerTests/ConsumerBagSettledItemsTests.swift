import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// A bag that lives long while what it holds ends one by one lets go of the items a cancellation
/// would do nothing more for, and keeps everything else, in order, with the bag's guarantees.
struct ConsumerBagSettledItemsTests {
    /// A session's bag that holds each request's subscription, cancelled by the request itself:
    /// it used to keep every one of them until it was emptied.
    @Test func subscriptionsCancelledDirectlyDoNotAccumulate() {
        let store = makeStore()
        let bag = ConsumerBag()
        for _ in 0..<5_000 {
            let subscription = store.subscribe { _, _ in }
            subscription.store(in: bag)
            subscription.cancel()
        }
        #expect(bag.count < 2 * ConsumerBag.firstLook, "\(bag.count) cancelled subscriptions kept")
        #expect(store.subscriberCount == 0)
    }

    /// Tokens of consumers that are gone (each request's own consumer) go too.
    @Test func tokensOfConsumersThatAreGoneDoNotAccumulate() {
        let bag = ConsumerBag()
        for _ in 0..<5_000 {
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter) { _, _ in }.store(in: bag)
        }
        #expect(bag.count < 2 * ConsumerBag.firstLook, "\(bag.count) tokens of gone consumers kept")
    }

    /// What a cancellation may still do something for stays: a live subscription, a token of a
    /// live consumer (cancelled or not: a second `cancel()` waits for a call in progress), a token
    /// of a gone consumer that delivered on a queue, and the user's own cancellables.
    @Test func itemsACancellationCouldStillActOnStay() {
        let store = makeStore()
        let live = StateConsumer<AppState>()
        let bag = ConsumerBag()
        let ownCancels = Lock(0)
        let count = 3 * ConsumerBag.firstLook
        for index in 0..<count {
            switch index % 4 {
            case 0:
                store.subscribe { _, _ in }.store(in: bag)
            case 1:
                let token = live.add(\.counter) { _, _ in }
                token.store(in: bag)
                if index % 8 == 1 { token.cancel() }
            case 2:
                let queued = StateConsumer<AppState>(deliveringOn: DispatchQueue(label: "bag-settled-tests"))
                queued.add(\.counter) { _, _ in }.store(in: bag)
            default:
                OwnCancellable { ownCancels.withLock { $0 += 1 } }.store(in: bag)
            }
        }
        #expect(bag.count == count)
        bag.removeAll()
        #expect(store.subscriberCount == 0)
        #expect(live.count == 0)
        #expect(ownCancels.withLock { $0 } == count / 4)
    }

    /// The items kept are cancelled in the order they were inserted, settled ones taken out
    /// around them.
    @Test func itemsKeptAreCancelledInInsertionOrder() {
        let store = makeStore()
        let bag = ConsumerBag()
        let order = Lock<[Int]>([])
        for index in 0..<(5 * ConsumerBag.firstLook) {
            if index % 3 == 0 {
                OwnCancellable { order.withLock { $0.append(index) } }.store(in: bag)
            } else {
                let subscription = store.subscribe { _, _ in }
                subscription.store(in: bag)
                subscription.cancel()
            }
        }
        #expect(bag.count < 5 * ConsumerBag.firstLook)
        bag.removeAll()
        #expect(order.withLock { $0 } == Array(stride(from: 0, to: 5 * ConsumerBag.firstLook, by: 3)))
        #expect(bag.isEmpty)
    }

    /// Under threads: subscriptions inserted and cancelled on several threads while others stay,
    /// and emptyings racing the insertions. Every live item is cancelled by the bag exactly once;
    /// nothing settled is cancelled twice to any effect.
    @Test func insertionsCancellationsAndEmptyingsFromManyThreads() {
        let store = makeStore()
        let bag = ConsumerBag()
        let kept = Lock(0)
        let cancelledByBag = Lock(0)
        let perThread = scaled(600, sanitized: 200)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<perThread {
                if index % 5 == 0 {
                    kept.withLock { $0 += 1 }
                    OwnCancellable { cancelledByBag.withLock { $0 += 1 } }.store(in: bag)
                } else {
                    let subscription = store.subscribe { _, _ in }
                    subscription.store(in: bag)
                    subscription.cancel()
                }
                if thread == 3 && index % 150 == 149 { bag.removeAll() }
            }
        }
        bag.removeAll()
        #expect(cancelledByBag.withLock { $0 } == kept.withLock { $0 })
        #expect(store.subscriberCount == 0)
        #expect(bag.isEmpty)
    }
}

/// A user's own cancellable: never let go of before the bag is emptied.
private struct OwnCancellable: Cancellable {
    let onCancel: @Sendable () -> Void

    func cancel() {
        onCancel()
    }
}
