import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A consumer that left a store during that store's pass, then subscribed to another store, is
/// called in its new store's subscription order (README: "subscribers are called in the order
/// they subscribed, closure subscribers and consumers alike"). The left store's pass marked the
/// consumer's group to skip; the mark named that store's engine by its address, and outlived it:
/// an engine made later at the same address, with the same pass number, took the group for one
/// it skipped and ordered it by the other store's subscription order.
@Suite struct OrderAfterLeavingDuringAPassTests {
    private struct Pair: Sendable, Equatable {
        var a = 0
        var b = 0
    }

    private enum Set: Action {
        case a(Int)
        case b(Int)
    }

    private static let reducer = Reducer<Pair> { (state, action: Set) in
        switch action {
        case .a(let value): state.a = value
        case .b(let value): state.b = value
        }
    }

    /// Run several times, with fresh stores: whether the allocator hands the second engine the
    /// first one's address depends on what else was allocated and freed meanwhile.
    @Test(arguments: 0..<8)
    func aConsumerThatLeftAReleasedStoreMidPassIsCalledInItsNewSubscriptionOrder(round: Int) {
        let seen = Recorder<String>()
        let storeA = Store(initialState: Pair(), reducer: Self.reducer)
        var storeB: Store<Pair>? = Store(initialState: Pair(), reducer: Self.reducer)
        let other = StateConsumer<Pair>()
        let consumer = StateConsumer<Pair>()
        let leaving = Box<Subscription?>(nil)
        var subscriptions = [storeB!.subscribe(other)]
        subscriptions.append(storeA.subscribe { _, _ in seen.append("closure 1") })
        subscriptions.append(storeA.subscribe { _, _ in seen.append("closure 2") })
        leaving.value = storeB!.subscribe(consumer)
        subscriptions.append(storeA.subscribe { _, _ in seen.append("closure 3") })
        consumer.add(\.a) { _, new in seen.append("consumer \(new)") }
        // Ends the consumer's subscription to B during B's pass.
        other.add(\.b) { _, _ in leaving.value?.cancel() }
        storeB!.dispatch(Set.b(1))
        subscriptions.removeFirst().cancel()
        storeB = nil
        subscriptions.append(storeA.subscribe(consumer))
        storeA.dispatch(Set.a(1))
        #expect(seen.values == ["closure 1", "closure 2", "closure 3", "consumer 1"])
        for subscription in subscriptions { subscription.cancel() }
    }
}
