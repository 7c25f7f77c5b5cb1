import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// The README's quick start, line for line (with `print` collected), so the front door compiles
/// and prints what it says.
struct ReadmeQuickStartTests {
    struct QuickState: Sendable {
        var counter = 0
        var name: String?
        var works: [String] = []
    }

    enum QuickAction: Action {
        case increment
        case rename(String?)
        case addWork(String)
    }

    @Test func quickStartPrintsWhatTheReadmeSays() {
        let printed = Recorder<String>()
        let reducer = Reducer<QuickState> { (state, action: QuickAction) in
            switch action {
            case .increment: state.counter += 1
            case .rename(let name): state.name = name
            case .addWork(let work): state.works.append(work)
            }
        }

        let store = Store(initialState: QuickState(), reducer: reducer)
        let consumer = StateConsumer<QuickState>()
        consumer.add(\.counter) { old, new in printed.append("counter: \(old) → \(new)") }
        consumer.add(\.name) { old, new in printed.append("name: \(old ?? "nil") → \(new ?? "nil")") }
        let subscription = store.subscribe(consumer)

        store.dispatch(QuickAction.increment)
        store.dispatch(QuickAction.rename("Kim"))
        store.dispatch(QuickAction.addWork("doc"))

        #expect(printed.values == ["counter: 0 → 1", "name: nil → Kim"])
        subscription.cancel()
    }
}
