import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 4's last promise: a chain of actions, each dispatched while processing the previous
/// one, ends at `Store.chainLimit` with a diagnostic naming the action it dropped; never a hang or
/// a stack overflow.
struct RunawayChainTests {
    /// Where the feedback comes from: each dispatches `increment` on every change it sees.
    enum Feedback: String, CaseIterable, Sendable {
        case consumer, closureSubscriber, actionListener, middleware, reducer
    }

    @Test(arguments: Feedback.allCases)
    func aStoreDispatchingOnEveryChangeStopsAtTheChainLimit(feedback: Feedback) {
        let diagnostics = Recorder<String>()
        let store = FeedbackStore(feedback, diagnostics: diagnostics)
        guard finishesWithoutDeadlock(within: 60, { store.store.dispatch(CounterAction.increment) }) else { return }

        // The action dispatched from outside, then `chainLimit` more, each caused by the previous.
        #expect(store.store.state.counter == Store<AppState>.chainLimit + 1)
        #expect(diagnostics.values.count == 1)
        let message = diagnostics.values.first ?? ""
        #expect(message.contains("dropped ReduxConsumerTestSupport.CounterAction.increment"), "\(message)")
        #expect(message.contains("action number \(Store<AppState>.chainLimit + 2) of a chain"), "\(message)")
        #expect(message.contains("limit \(Store<AppState>.chainLimit)"), "\(message)")

        // The store goes on: an action that feeds nothing back is an ordinary action.
        store.store.dispatch(CounterAction.rename("after"))
        #expect(store.store.state.name == "after")
        #expect(diagnostics.values.count == 1)
        store.stop()
    }

    @Test func aPageDispatchingOnEveryChangeReportsToThePagesDiagnostics() {
        let diagnostics = Recorder<String>()
        let global = makeStore()
        let page = PageStore(
            global: global, initialState: { _ in AppState() }, reducer: appReducer, diagnostics: diagnostics.append)
        page.consumer.add(\.counter) { [weak page] _ in page?.dispatch(CounterAction.increment) }
        guard finishesWithoutDeadlock(within: 60, { page.dispatch(CounterAction.increment) }) else { return }

        #expect(page.state.counter == Store<AppState>.chainLimit + 1)
        #expect(diagnostics.values.count == 1)
        let message = diagnostics.values.first ?? ""
        #expect(message.contains("dropped ReduxConsumerTestSupport.CounterAction.increment"), "\(message)")
        page.close()
    }

    @Test func aChainAcrossTwoStoresStopsAtTheChainLimit() {
        let leftDiagnostics = Recorder<String>()
        let rightDiagnostics = Recorder<String>()
        let left = Store(initialState: AppState(), reducer: appReducer, diagnostics: leftDiagnostics.append)
        let right = Store(initialState: AppState(), reducer: appReducer, diagnostics: rightDiagnostics.append)
        let subscriptions = [(left, right), (right, left)].map { store, other in
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter) { _ in other.dispatch(CounterAction.increment) }
            return store.subscribe(consumer)
        }
        guard finishesWithoutDeadlock(within: 60, { left.dispatch(CounterAction.increment) }) else { return }

        // Links alternate, left first: left reduces links 0, 2, …, 10,000, right 1, 3, …, 9,999;
        // the link after the limit would go to right, which drops it.
        #expect(left.state.counter == Store<AppState>.chainLimit / 2 + 1)
        #expect(right.state.counter == Store<AppState>.chainLimit / 2)
        #expect(leftDiagnostics.values.isEmpty)
        #expect(rightDiagnostics.values.count == 1)
        let message = rightDiagnostics.values.first ?? ""
        #expect(message.contains("dropped ReduxConsumerTestSupport.CounterAction.increment"), "\(message)")
        #expect(message.contains("action number \(Store<AppState>.chainLimit + 2) of a chain"), "\(message)")
        for subscription in subscriptions { subscription.cancel() }
    }

    @Test func aQueuedConsumerDispatchingOnEveryChangeStopsWithADiagnostic() {
        let diagnostics = Recorder<String>()
        let stopped = DispatchSemaphore(value: 0)
        let store = Store(initialState: AppState(), reducer: appReducer) { message in
            diagnostics.append(message)
            stopped.signal()
        }
        let consumer = StateConsumer<AppState>(deliveringOn: DispatchQueue(label: "runaway-chain"))
        consumer.add(\.counter) { _ in store.dispatch(CounterAction.increment) }
        let subscription = store.subscribe(consumer)
        let finished = finishesWithoutDeadlock(within: 60) {
            store.dispatch(CounterAction.increment)
            stopped.wait()
        }
        guard finished else { return }
        subscription.cancel()

        // Every link of the chain is an action the store reduced, up to the documented limit, as
        // with a consumer that calls back synchronously.
        #expect(diagnostics.values.count == 1)
        let message = diagnostics.values.first ?? ""
        #expect(message.contains("dropped ReduxConsumerTestSupport.CounterAction.increment"), "\(message)")
        #expect(message.contains("action number \(Store<AppState>.chainLimit + 2) of a chain"), "\(message)")
        #expect(store.state.counter == Store<AppState>.chainLimit + 1)
    }

    /// The same for a member on an actor, and for one isolated to no actor: each action its
    /// callback dispatches continues the chain of the change it was called for.
    @Test(arguments: [false, true])
    func anActorMemberDispatchingOnEveryChangeStopsWithADiagnostic(isolatedToNoActor: Bool) async {
        let diagnostics = Recorder<String>()
        let stopped = Signal()
        let store = Store(initialState: AppState(), reducer: appReducer) { message in
            diagnostics.append(message)
            stopped.fire()
        }
        let consumer = StateConsumer<AppState>()
        // A chain that runs past the limit ends here, a failure, rather than never.
        let feedsBack: @Sendable (Int) -> Void = { counter in
            guard counter <= Store<AppState>.chainLimit + 100 else { return stopped.fire() }
            store.dispatch(CounterAction.increment)
        }
        if isolatedToNoActor {
            consumer.add(\.counter, on: TestActor.shared) { _, new in feedsBack(new) }
        } else {
            consumer.add(\.counter, on: TestActor.shared) { @TestActor _, new in feedsBack(new) }
        }
        let subscription = store.subscribe(consumer)
        let finished = await finishesWithoutDeadlock(within: 60) {
            store.dispatch(CounterAction.increment)
            await stopped.wait()
        }
        guard finished else { return }
        subscription.cancel()
        #expect(diagnostics.values.count == 1)
        let message = diagnostics.values.first ?? ""
        #expect(message.contains("dropped ReduxConsumerTestSupport.CounterAction.increment"), "\(message)")
        #expect(message.contains("action number \(Store<AppState>.chainLimit + 2) of a chain"), "\(message)")
        #expect(store.state.counter == Store<AppState>.chainLimit + 1)
    }
}

/// A store whose `feedback` dispatches `increment` for every action it sees, until `stop()`.
private final class FeedbackStore: Sendable {
    let store: Store<AppState>
    private let isStopped = Lock(false)
    private let subscriptions = Lock<[Subscription]>([])
    private let slot = Lock<Store<AppState>?>(nil)

    init(_ feedback: RunawayChainTests.Feedback, diagnostics: Recorder<String>) {
        let isStopped = isStopped
        let slot = slot
        let feeds = { @Sendable in !isStopped.withLock { $0 } }
        var middleware: [Middleware<AppState>] = []
        var reducer = appReducer
        switch feedback {
        case .middleware:
            middleware = [
                { dispatch, _ in
                    { next in
                        { action in
                            next(action)
                            if feeds(), case CounterAction.increment = action { dispatch(CounterAction.increment) }
                        }
                    }
                }
            ]
        case .reducer:
            reducer = Reducer { state, action in
                appReducer(&state, action)
                if feeds(), case CounterAction.increment = action {
                    slot.withLock { $0 }?.dispatch(CounterAction.increment)
                }
            }
        default:
            break
        }
        let store = Store(
            initialState: AppState(), reducer: reducer, middleware: middleware, diagnostics: diagnostics.append)
        self.store = store
        slot.withLock { $0 = store }
        switch feedback {
        case .consumer:
            let consumer = StateConsumer<AppState>()
            consumer.add(\.counter) { _ in if feeds() { store.dispatch(CounterAction.increment) } }
            subscriptions.withLock { $0.append(store.subscribe(consumer)) }
        case .closureSubscriber:
            let subscription = store.subscribe { old, new in
                if feeds(), old.counter != new.counter { store.dispatch(CounterAction.increment) }
            }
            subscriptions.withLock { $0.append(subscription) }
        case .actionListener:
            let subscription = store.observeActions { action in
                if feeds(), case CounterAction.increment = action { store.dispatch(CounterAction.increment) }
            }
            subscriptions.withLock { $0.append(subscription) }
        case .middleware, .reducer:
            break
        }
    }

    /// Ends the feedback and every registration, and breaks the reducer's link to the store.
    func stop() {
        isStopped.withLock { $0 = true }
        for subscription in subscriptions.withLock({ $0 }) { subscription.cancel() }
        slot.withLock { $0 = nil }
    }
}
