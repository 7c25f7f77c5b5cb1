import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 3: a member never sees a value go backwards. Every callback's `old` is the previous
/// callback's `new` (or the member's starting value), and the values follow the store's order of
/// states: for a counter that only goes up, they strictly increase.
struct MonotonicTests {
    private let threads = 4
    private let dispatchesPerThread = scaled(5_000, sanitized: 500)
    private var total: Int { threads * dispatchesPerThread }

    /// How a member selects the counter.
    enum Selection: CaseIterable, CustomStringConvertible {
        case keyPath
        case closureSelector
        /// A coarse `isEqual`: values closer than `coarseStep` count as the same, so the member
        /// hears every `coarseStep`-th state, and `old` is the last value it was given.
        case isEqualMember

        static let coarseStep = 3

        /// The exact difference between consecutive values when the member hears every state.
        var step: Int { self == .isEqualMember ? Self.coarseStep : 1 }

        /// The last value the member is given when it heard every state from 0 and the counter
        /// ends at `total`.
        func lastValue(upTo total: Int) -> Int { total - total % step }

        /// The values the member may be given last when the counter ends at `total`, whatever value
        /// it started from after an absence.
        func lastValues(upTo total: Int) -> ClosedRange<Int> { (total - step + 1)...total }

        /// Adds a member recording its calls, and calling `reached` once when it is given a value at
        /// least `threshold`.
        func add(
            to consumer: StateConsumer<AppState>, recording calls: Recorder<Call>, threshold: Int = .max,
            reached: @escaping @Sendable () -> Void = {}
        ) {
            let record: @Sendable (Int, Int) -> Void = { old, new in
                calls.append(Call(old: old, new: new))
                if old < threshold && new >= threshold { reached() }
            }
            switch self {
            case .keyPath: consumer.add(\.counter, record)
            case .closureSelector: consumer.add({ $0.counter }, record)
            case .isEqualMember: consumer.add(\.counter, isEqual: { abs($0 - $1) < Self.coarseStep }, record)
            }
        }

        var description: String {
            switch self {
            case .keyPath: "\\.counter"
            case .closureSelector: "{ $0.counter }"
            case .isEqualMember: "\\.counter, isEqual:"
            }
        }
    }

    @Test(arguments: Selection.allCases)
    func membersHearEveryStateInOrderFromFourDispatchingThreads(selection: Selection) {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Call>()
        selection.add(to: consumer, recording: calls)
        let subscription = store.subscribe(consumer)
        guard finishesWithoutDeadlock({ dispatchFromThreads(to: store) }) else { return }
        let values = calls.values
        let last = selection.lastValue(upTo: total)
        expectMonotonic(values, from: 0, to: last...last, step: selection.step)
        #expect(values.count == total / selection.step)
        subscription.cancel()
    }

    /// A `deliveringOn:` consumer whose queue is held busy while four threads dispatch gets, per
    /// member, one merged call: the first `old`, the latest `new`.
    @Test(arguments: Selection.allCases)
    func aQueueHeldBusyGetsOneMergedCallPerMember(selection: Selection) {
        let store = makeStore()
        let queue = DispatchQueue(label: "MonotonicTests.held")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<Call>()
        let last = selection.lastValue(upTo: total)
        let delivered = DispatchSemaphore(value: 0)
        selection.add(to: consumer, recording: calls, threshold: last) { delivered.signal() }
        let subscription = store.subscribe(consumer)
        let release = DispatchSemaphore(value: 0)
        queue.async { release.wait() }
        guard
            finishesWithoutDeadlock({
                dispatchFromThreads(to: store)
                release.signal()
                delivered.wait()
                queue.sync {}
            })
        else { return }
        #expect(calls.values == [Call(old: 0, new: last)])
        subscription.cancel()
    }

    /// A `deliveringOn:` consumer whose callbacks take longer than the dispatches falls behind
    /// unevenly: whatever it merges, each `old` is the previous `new` and values only go up.
    @Test(arguments: Selection.allCases)
    func aQueueFallingBehindFourDispatchingThreadsNeverGoesBackwards(selection: Selection) {
        let store = makeStore()
        let queue = DispatchQueue(label: "MonotonicTests.behind")
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let calls = Recorder<Call>()
        let last = selection.lastValue(upTo: total)
        let delivered = DispatchSemaphore(value: 0)
        let slowCalls = Recorder<Call>()
        selection.add(to: consumer, recording: calls, threshold: last) { delivered.signal() }
        // A second, slower member of the same consumer: its work keeps the queue behind.
        consumer.add(\.counter) { old, new in
            var random = SplitMix64(seed: UInt64(new))
            var sum: UInt64 = 0
            for _ in 0..<200 { sum &+= random.next() }
            withExtendedLifetime(sum) { slowCalls.append(Call(old: old, new: new)) }
        }
        let subscription = store.subscribe(consumer)
        guard
            finishesWithoutDeadlock({
                dispatchFromThreads(to: store)
                delivered.wait()
                queue.sync {}
            })
        else { return }
        let values = calls.values
        expectMonotonic(values, from: 0, to: last...last)
        #expect(values.count <= total / selection.step)
        expectMonotonic(slowCalls.values, from: 0, to: total...total)
        subscription.cancel()
    }

    /// A consumer re-subscribed after being away catches up from the last value it was given: its
    /// first call back has that `old`, never a value it missed or one it already had.
    @Test(arguments: Selection.allCases)
    func aConsumerResubscribedAfterBeingAwayCarriesOnFromItsLastValue(selection: Selection) {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Call>()
        selection.add(to: consumer, recording: calls)
        var subscription = store.subscribe(consumer)
        for _ in 0..<7 { store.dispatch(CounterAction.increment) }
        subscription.cancel()
        for _ in 0..<11 { store.dispatch(CounterAction.increment) }
        subscription = store.subscribe(consumer)
        for _ in 0..<7 { store.dispatch(CounterAction.increment) }
        expectMonotonic(calls.values, from: 0, to: selection.lastValues(upTo: 25))
        subscription.cancel()
    }

    /// An `isEqual:` member cut off by its consumer leaving mid-pass, then caught up when the
    /// consumer comes back, goes on from the value it was given. (Found by the churn test below:
    /// the group's own comparison had kept a value the member never heard, and the next call's
    /// `old` was that value.)
    @Test func anIsEqualMemberCutOffByItsConsumerLeavingGoesOnFromWhatItHeard() {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Call>()
        let bag = ConsumerBag()
        consumer.add(\.counter) { new in
            if new == 3 { bag.removeAll() }  // leaves before the member below hears 3
        }
        consumer.add(\.counter, isEqual: { abs($0 - $1) < 3 }) { old, new in calls.append(Call(old: old, new: new)) }
        store.subscribe(consumer).store(in: bag)
        for _ in 0..<4 { store.dispatch(CounterAction.increment) }  // 3 unheard; away at 4
        let subscription = store.subscribe(consumer)  // catches up: 0 → 4
        for _ in 0..<3 { store.dispatch(CounterAction.increment) }  // 5, 6 equal to 4; 7 is not

        // Before the fix: [0→4, 3→6] (3 is the value the member never heard).
        #expect(calls.values == [Call(old: 0, new: 4), Call(old: 4, new: 7)])
        subscription.cancel()
        consumer.removeAll()
    }

    /// One thread subscribes and cancels the consumer over and over while four others dispatch:
    /// across every absence, the chain of `old` and `new` holds.
    @Test(arguments: Selection.allCases)
    func aConsumerComingAndGoingWhileThreadsDispatchNeverGoesBackwards(selection: Selection) {
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Call>()
        selection.add(to: consumer, recording: calls)
        let absences = scaled(500, sanitized: 50)
        guard
            finishesWithoutDeadlock({
                let churn = spawn {
                    for _ in 0..<absences {
                        store.subscribe(consumer).cancel()
                    }
                }
                dispatchFromThreads(to: store)
                churn.wait()
            })
        else { return }
        // Back for good: the next state brings it up to date.
        let subscription = store.subscribe(consumer)
        store.dispatch(CounterAction.increment)
        // The starting value is the state at the first subscription, made while threads dispatch.
        let values = calls.values
        expectMonotonic(values, from: values.first?.old, to: selection.lastValues(upTo: total + 1))
        subscription.cancel()
    }

    /// `threads` threads each dispatch `dispatchesPerThread` increments; returns when all did.
    private func dispatchFromThreads(to store: Store<AppState>) {
        let dispatchesPerThread = dispatchesPerThread
        let dispatchers = (0..<threads).map { _ in
            spawn { for _ in 0..<dispatchesPerThread { store.dispatch(CounterAction.increment) } }
        }
        for dispatcher in dispatchers { dispatcher.wait() }
    }
}

/// One callback's arguments.
struct Call: Equatable, Sendable, CustomStringConvertible {
    var old: Int
    var new: Int

    var description: String { "\(old)→\(new)" }
}

/// Expects `calls` to form one chain from `start` (when known) into `end`: the first `old` is `start`, every
/// `old` is the previous `new`, every `new` is above its `old` (by exactly `step` when given), and
/// the last `new` is in `end`.
private func expectMonotonic(
    _ calls: [Call], from start: Int?, to end: ClosedRange<Int>, step: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard var previous = start else {
        Issue.record("no call at all", sourceLocation: sourceLocation)
        return
    }
    for (index, call) in calls.enumerated() {
        let isInStep = step.map { call.new == call.old + $0 } ?? (call.new > call.old)
        guard call.old == previous, isInStep else {
            let around = calls[max(0, index - 2)..<min(calls.count, index + 3)].map(\.description)
            Issue.record(
                "call \(index) of \(calls.count) breaks the chain after \(previous): \(around)",
                sourceLocation: sourceLocation)
            return
        }
        previous = call.new
    }
    #expect(
        end.contains(previous), "the last value given was \(previous), not in \(end)", sourceLocation: sourceLocation)
}
