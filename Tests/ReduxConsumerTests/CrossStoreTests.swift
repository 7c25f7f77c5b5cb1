import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 4 across stores: reducers that read each other's store, and consumers that dispatch
/// into each other, driven from four threads at once, never deadlock and lose nothing.
struct CrossStoreTests {
    private let dispatchesPerThread = scaled(5_000, sanitized: 500)
    /// A consumer answers every `echoEvery`-th value of its store's counter.
    private let echoEvery = 10

    @Test func reducersReadingEachOthersStoreFromFourThreads() {
        let pair = StorePair(readsOther: true)
        guard finishesWithoutDeadlock(within: 60, { dispatchFromFourThreads(to: pair) }) else { return }
        let total = 2 * dispatchesPerThread
        #expect(pair.left.state.counter == total)
        #expect(pair.right.state.counter == total)
        // Each reducer read the other store once per action, and never a state the other never had.
        #expect(pair.left.state.reads == total && pair.left.state.lastRead <= total)
        #expect(pair.right.state.reads == total && pair.right.state.lastRead <= total)
        pair.release()
    }

    @Test func consumersDispatchingIntoEachOthersStoreFromFourThreads() {
        let pair = StorePair(readsOther: false)
        let subscriptions = pair.echo(every: echoEvery)
        guard finishesWithoutDeadlock(within: 60, { dispatchFromFourThreads(to: pair) }) else { return }
        let total = 2 * dispatchesPerThread
        #expect(pair.left.state == PairState(counter: total, echoes: total / echoEvery))
        #expect(pair.right.state == PairState(counter: total, echoes: total / echoEvery))
        for subscription in subscriptions { subscription.cancel() }
        pair.release()
    }

    @Test func reducersReadingAndConsumersDispatchingAtOnce() {
        let pair = StorePair(readsOther: true)
        let subscriptions = pair.echo(every: echoEvery)
        guard finishesWithoutDeadlock(within: 60, { dispatchFromFourThreads(to: pair) }) else { return }
        let total = 2 * dispatchesPerThread
        for store in [pair.left, pair.right] {
            #expect(store.state.counter == total)
            #expect(store.state.echoes == total / echoEvery)
            // Echoes are reduced too, and read the other store like any action.
            #expect(store.state.reads == total + total / echoEvery)
        }
        for subscription in subscriptions { subscription.cancel() }
        pair.release()
    }

    /// Two threads dispatch to each store, all four at once.
    private func dispatchFromFourThreads(to pair: StorePair) {
        let dispatchesPerThread = dispatchesPerThread
        let threads = [pair.left, pair.left, pair.right, pair.right].map { store in
            spawn {
                for _ in 0..<dispatchesPerThread {
                    store.dispatch(PairAction.increment)
                }
            }
        }
        for thread in threads { thread.wait() }
    }
}

private struct PairState: Equatable, Sendable {
    var counter = 0
    var echoes = 0
    /// How many times the reducer read the other store, and the other's counter it read last.
    var reads = 0
    var lastRead = 0
}

private enum PairAction: Action {
    case increment
    case echo
}

/// Two stores that know each other; `release()` breaks the cycle their reducers make.
private struct StorePair {
    let left: Store<PairState>
    let right: Store<PairState>
    private let links: [Lock<Store<PairState>?>]

    init(readsOther: Bool) {
        let toRight = Lock<Store<PairState>?>(nil)
        let toLeft = Lock<Store<PairState>?>(nil)
        let left = Store(initialState: PairState(), reducer: Self.reducer(other: toRight, readsOther: readsOther))
        let right = Store(initialState: PairState(), reducer: Self.reducer(other: toLeft, readsOther: readsOther))
        toRight.withLock { $0 = right }
        toLeft.withLock { $0 = left }
        self.left = left
        self.right = right
        links = [toRight, toLeft]
    }

    /// Each store's consumer dispatches an echo into the other store on every `every`-th counter.
    func echo(every: Int) -> [Subscription] {
        [(left, right), (right, left)].map { store, other in
            let consumer = StateConsumer<PairState>()
            consumer.add(\.counter) { new in
                if new.isMultiple(of: every) { other.dispatch(PairAction.echo) }
            }
            return store.subscribe(consumer)
        }
    }

    func release() {
        for link in links { link.withLock { $0 = nil } }
    }

    private static func reducer(other: Lock<Store<PairState>?>, readsOther: Bool) -> Reducer<PairState> {
        Reducer { (state, action: PairAction) in
            switch action {
            case .increment: state.counter += 1
            case .echo: state.echoes += 1
            }
            if readsOther, let other = other.withLock({ $0 }) {
                state.reads += 1
                state.lastRead = other.state.counter
            }
        }
    }
}
