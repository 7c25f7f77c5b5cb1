import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// The example of the README's "Derived values" section and of the DocC article, run as written.
private struct Order: Equatable, Sendable {
    var amount: Int
    var isOpen: Bool
}

private struct ShopState: Equatable, Sendable {
    var orders: [Order] = []
    var taxPercent = 0
    var currency = "EUR"
    var lastSeen = 0
}

private enum ShopAction: Action {
    case order(Int)
    case close(Int)
    case tax(Int)
    case currency(String)
    case seen(Int)
}

private let shopReducer = Reducer<ShopState> { (state, action: ShopAction) in
    switch action {
    case .order(let amount): state.orders.append(Order(amount: amount, isOpen: true))
    case .close(let index): state.orders[index].isOpen = false
    case .tax(let percent): state.taxPercent = percent
    case .currency(let code): state.currency = code
    case .seen(let time): state.lastSeen = time
    }
}

struct DerivedDocumentationTests {
    @Test func readmeExampleComputesOncePerInputChangeForEveryConsumer() {
        let computed = Recorder<String>()
        let printed = Recorder<String>()

        // The README's example, with `print` sent to a recorder.
        let openTotal = Derived(\ShopState.orders) { orders in
            computed.append("openTotal")
            return orders.filter(\.isOpen).map(\.amount).reduce(0, +)
        }
        let withTax = Derived(openTotal, Derived(\ShopState.taxPercent)) { total, tax in
            computed.append("withTax")
            return total * (100 + tax) / 100
        }
        let label = Derived(withTax, Derived(\ShopState.currency)) { amount, currency in
            computed.append("label")
            return "\(amount) \(currency)"
        }
        let header = StateConsumer<ShopState>()
        header.add(label) { old, new in printed.append("header: \(old) → \(new)") }
        let badge = StateConsumer<ShopState>()
        badge.add(label) { new in printed.append("badge: \(new)") }

        let store = Store(initialState: ShopState(), reducer: shopReducer)
        let subscriptions = [store.subscribe(header), store.subscribe(badge)]
        #expect(computed.values == ["openTotal", "withTax", "label"])  // the starting value, once

        store.dispatch(ShopAction.order(100))  // every step recomputes
        store.dispatch(ShopAction.seen(1))  // no input changed: nothing runs
        store.dispatch(ShopAction.currency("KRW"))  // only the label
        store.dispatch(ShopAction.order(0))  // orders changed, the total did not: it stops there
        #expect(
            computed.values == [
                "openTotal", "withTax", "label",
                "openTotal", "withTax", "label",
                "label",
                "openTotal",
            ])
        #expect(
            printed.values == [
                "header: 0 EUR → 100 EUR", "badge: 100 EUR",
                "header: 100 EUR → 100 KRW", "badge: 100 KRW",
            ])
        for subscription in subscriptions { subscription.cancel() }
    }
}
