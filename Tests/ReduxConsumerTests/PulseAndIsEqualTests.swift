import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Which wins when a member has both `isEqual` and `.pulse`: "`.pulse` fires for every new state;
/// with `.pulse`, `isEqual` is not consulted" (README, "Consumers").
struct PulseAndIsEqualTests {
    /// The two `add` overloads that take `isEqual`.
    enum Selector: CaseIterable, CustomTestStringConvertible, Sendable {
        case keyPath
        case closure

        var testDescription: String {
            switch self {
            case .keyPath: "add(\\.counter, isEqual:)"
            case .closure: "add({ $0.counter }, isEqual:)"
            }
        }

        /// Adds a member on `AppState.counter` recording `old→new`.
        func add(
            to consumer: StateConsumer<AppState>,
            isEqual: @escaping @Sendable (Int, Int) -> Bool,
            options: ConsumeOptions,
            recordingIn seen: Recorder<String>
        ) {
            switch self {
            case .keyPath:
                consumer.add(\.counter, isEqual: isEqual, options: options) { old, new in seen.append("\(old)→\(new)") }
            case .closure:
                consumer.add({ $0.counter }, isEqual: isEqual, options: options) { old, new in
                    seen.append("\(old)→\(new)")
                }
            }
        }
    }

    @Test(arguments: Selector.allCases)
    func pulseFiresOnEveryStateWhateverIsEqualSays(selector: Selector) {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let subscription = store.subscribe(consumer)
        let pulsed = Recorder<String>()
        let judged = Recorder<String>()
        selector.add(to: consumer, isEqual: { _, _ in true }, options: .pulse, recordingIn: pulsed)
        selector.add(to: consumer, isEqual: { _, _ in true }, options: [], recordingIn: judged)

        store.dispatch(CounterAction.rename("Kim"))  // the counter did not change
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)

        #expect(pulsed.values == ["0→0", "0→1", "1→2"])
        #expect(judged.values.isEmpty, "without .pulse, isEqual decides: always equal, never fired")
        subscription.cancel()
    }

    @Test(arguments: Selector.allCases)
    func withPulseIsEqualIsNotConsulted(selector: Selector) {
        let consumer = StateConsumer<AppState>()
        let comparisons = Recorder<String>()
        let seen = Recorder<String>()
        selector.add(
            to: consumer,
            isEqual: { old, new in
                comparisons.append("\(old)≟\(new)")
                return old == new
            },
            options: .pulse,
            recordingIn: seen
        )

        for counter in [0, 0, 1] {
            consumer.consume(newState: AppState(counter: counter))
        }

        #expect(seen.values == ["0→0", "0→1"])
        #expect(comparisons.values.isEmpty)
    }
}
