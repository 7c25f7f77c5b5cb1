import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A state with orders and settings, for derived values over several inputs.
private struct ShopState: Equatable, Sendable {
    var orders: [Int] = []
    var taxPercent = 0
    var currency = "EUR"
    var unrelated = 0
}

private enum ShopAction: Action {
    case add(Int)
    case tax(Int)
    case currency(String)
    case touch
}

private let shopReducer = Reducer<ShopState> { (state, action: ShopAction) in
    switch action {
    case .add(let amount): state.orders.append(amount)
    case .tax(let percent): state.taxPercent = percent
    case .currency(let code): state.currency = code
    case .touch: state.unrelated += 1
    }
}

/// Counts calls of a derived value's function, from any thread.
private final class ComputationCounter: Sendable {
    private let lock = Lock(0)
    func tick() { lock.withLock { $0 += 1 } }
    var count: Int { lock.withLock { $0 } }
}

struct DerivedSelectorTests {
    @Test func oneComputationPerInputChangeHoweverManyConsumersWatchIt() {
        let calls = ComputationCounter()
        let total = Derived(\ShopState.orders, \.taxPercent) { orders, tax in
            calls.tick()
            return orders.reduce(0, +) * (100 + tax) / 100
        }
        let store = Store(initialState: ShopState(), reducer: shopReducer)
        let seen = Recorder<Int>()
        let consumers = (0..<100).map { _ in StateConsumer<ShopState>() }
        let subscriptions = consumers.map { consumer in
            consumer.add(total) { new in seen.append(new) }
            return store.subscribe(consumer)
        }
        for index in 0..<1_000 {
            store.dispatch(index % 100 == 0 ? ShopAction.add(index) : ShopAction.touch)
        }
        // The first computation (the starting value), then one per action that changed an input.
        #expect(calls.count == 11)
        #expect(seen.values.count == 100 * 9)  // `add(0)` changed the orders but not the total
        for subscription in subscriptions { subscription.cancel() }
    }

    @Test func composedValuesRecomputeOnlyDownTheChangedBranch() {
        let subtotalCalls = ComputationCounter()
        let labelCalls = ComputationCounter()
        let subtotal = Derived(\ShopState.orders) { orders in
            subtotalCalls.tick()
            return orders.reduce(0, +)
        }
        let label = Derived(subtotal, Derived(\ShopState.currency)) { amount, currency in
            labelCalls.tick()
            return "\(amount) \(currency)"
        }
        let store = Store(initialState: ShopState(), reducer: shopReducer)
        let consumer = StateConsumer<ShopState>()
        let labels = Recorder<String>()
        consumer.add(label) { old, new in labels.append("\(old) → \(new)") }
        consumer.add(subtotal) { _ in }
        let subscription = store.subscribe(consumer)
        store.dispatch(ShopAction.currency("KRW"))  // only the label's own input
        store.dispatch(ShopAction.add(5))  // the subtotal, then the label
        store.dispatch(ShopAction.touch)  // nothing
        #expect(labels.values == ["0 EUR → 0 KRW", "0 KRW → 5 KRW"])
        #expect(subtotalCalls.count == 2)  // start, add(5): shared by both members
        #expect(labelCalls.count == 3)  // start, currency, add(5)
        subscription.cancel()
    }

    @Test func everyConsumerOptionWorksOnDerivedValues() {
        let doubled = Derived(\ShopState.taxPercent) { $0 * 2 }
        let store = Store(initialState: ShopState(taxPercent: 1), reducer: shopReducer)
        let consumer = StateConsumer<ShopState>()
        let seen = Recorder<String>()
        let subscription = store.subscribe(consumer)
        consumer.add(doubled, options: .instantly) { old, new in seen.append("instantly \(old)→\(new)") }
        consumer.add(doubled, options: .pulse) { old, new in seen.append("pulse \(old)→\(new)") }
        consumer.add(doubled, isEqual: { abs($0 - $1) < 3 }) { old, new in seen.append("coarse \(old)→\(new)") }
        store.dispatch(ShopAction.tax(2))
        store.dispatch(ShopAction.tax(3))
        #expect(
            seen.values == [
                "instantly 2→2",
                "instantly 2→4", "pulse 2→4",
                "instantly 4→6", "pulse 4→6", "coarse 2→6",
            ])
        subscription.cancel()
    }

    @Test func ownerFormAndQueuedDeliveryWorkOnDerivedValues() {
        final class Owner: Sendable {
            let seen = Recorder<Int>()
        }
        let doubled = Derived(\ShopState.taxPercent) { $0 * 2 }
        let store = Store(initialState: ShopState(), reducer: shopReducer)
        let queue = DispatchQueue(label: "derived-delivery")
        let consumer = StateConsumer<ShopState>(deliveringOn: queue)
        var owner: Owner? = Owner()
        let seen = owner!.seen
        consumer.add(doubled, owner: owner!) { owner, _, new in owner.seen.append(new) }
        let subscription = store.subscribe(consumer)
        store.dispatch(ShopAction.tax(5))
        queue.sync {}
        owner = nil
        store.dispatch(ShopAction.tax(6))
        queue.sync {}
        #expect(seen.values == [10])
        #expect(consumer.count == 0)
        subscription.cancel()
    }

    @Test func pagesWatchingOneDerivedGlobalValueShareItsComputation() {
        let calls = ComputationCounter()
        let total = Derived(\ShopState.orders) { orders in
            calls.tick()
            return orders.count
        }
        let global = Store(initialState: ShopState(), reducer: shopReducer)
        let seen = Recorder<Int>()
        let pages = (0..<20).map { _ in
            let page = PageStore(global: global, initialState: { $0.taxPercent }, reducer: Reducer { _, _ in })
            page.globalConsumer.add(total) { new in seen.append(new) }
            return page
        }
        global.dispatch(ShopAction.add(1))
        global.dispatch(ShopAction.touch)
        #expect(calls.count == 2)
        #expect(seen.values == Array(repeating: 1, count: 20))
        for page in pages { page.close() }
        #expect(global.subscriberCount == 0)
    }

    @Test func aConsumerFedByHandComputesItsDerivedValuesToo() {
        let calls = ComputationCounter()
        let total = Derived(\ShopState.orders) { orders in
            calls.tick()
            return orders.reduce(0, +)
        }
        let consumer = StateConsumer<ShopState>()
        let seen = Recorder<String>()
        consumer.add(total) { old, new in seen.append("\(old)→\(new)") }
        consumer.consume(newState: ShopState(orders: [1]))
        consumer.consume(newState: ShopState(orders: [1], unrelated: 3))
        consumer.consume(newState: ShopState(orders: [1, 2]))
        #expect(seen.values == ["1→3"])
        #expect(calls.count == 2)
    }

    /// Reads keep a derived value's memo unretained while its function runs: the members (and
    /// their evaluation) going away from inside the function must not take the memo with them.
    @Test func aDerivationThatRemovesTheMembersWatchingItLeavesTheStoreWorking() {
        let tokens = Lock<[ConsumerToken]>([])
        let count = Derived(\ShopState.orders) { orders in orders.count }
        let removing = Derived(count, Derived(\ShopState.taxPercent)) { count, tax in
            let members = tokens.withLock { members in
                defer { members = [] }
                return members
            }
            for member in members { member.cancel() }
            return count + tax
        }
        let store = Store(initialState: ShopState(), reducer: shopReducer)
        let consumer = StateConsumer<ShopState>()
        let counts = Recorder<Int>()
        consumer.add(count) { new in counts.append(new) }
        let subscription = store.subscribe(consumer)
        let members = (0..<3).map { _ in consumer.add(removing) { _ in } }
        tokens.withLock { $0 = members }
        store.dispatch(ShopAction.add(1))
        store.dispatch(ShopAction.add(2))
        let last = consumer.add(removing) { _ in }
        tokens.withLock { $0 = [last] }
        store.dispatch(ShopAction.tax(1))
        store.dispatch(ShopAction.add(3))
        #expect(counts.values == [1, 2, 3])
        #expect(consumer.count == 1)
        subscription.cancel()
    }

    /// The derivation function is user code: it runs outside the store's lock, so it may read the
    /// store (here, from the function of a value watched by a subscribed consumer).
    @Test func aDerivationRunsOutsideTheStoresLock() {
        let storeBox = Lock<Store<ShopState>?>(nil)
        let readsTheStore = Derived(\ShopState.orders) { orders in
            let store = storeBox.withLock { $0 }
            return orders.count * 100 + (store?.state.taxPercent ?? -1)
        }
        let store = Store(initialState: ShopState(taxPercent: 7), reducer: shopReducer)
        storeBox.withLock { $0 = store }
        let consumer = StateConsumer<ShopState>()
        let seen = Recorder<String>()
        consumer.add(readsTheStore) { old, new in seen.append("\(old)→\(new)") }
        let finished = finishesWithoutDeadlock {
            let subscription = store.subscribe(consumer)
            store.dispatch(ShopAction.add(1))
            store.dispatch(ShopAction.add(2))
            subscription.cancel()
        }
        #expect(finished)
        #expect(seen.values == ["7→107", "107→207"])
        // The derivation's function holds the store (through the box), and the store's cache of
        // derived values refers to the derivation only weakly: no cycle (LeakSanitizer in CI).
    }
}
