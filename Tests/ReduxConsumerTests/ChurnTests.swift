import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// Guarantees 1, 3 and 6 under load: threads add and remove registrations of every kind while
/// others dispatch to the same store.
struct ChurnTests {
    /// How big the run is; scaled down under sanitizers, which slow every access several times.
    private struct Scale {
        var dispatchers = 8
        var dispatchesPerThread = scaled(20_000, sanitized: 2_500)
        var consumers = scaled(100, sanitized: 20)
        /// Consumers whose steady member watches `counter` (every action) rather than `block`: a
        /// member call costs about 2 µs in a debug build, so most watch the slower field.
        var everyActionConsumers = 4
        var churners = 4
        /// The churning threads make one step (an addition or a removal) per this many dispatches,
        /// so they churn all through the dispatching, at a rate that does not depend on the machine.
        var dispatchesPerChurnStep = scaled(32, sanitized: 8)
        /// Registrations a churning thread keeps at once.
        var liveLimit = 2
    }

    /// Async, its threads started and joined on a thread of their own: it runs for tens of seconds
    /// in a debug build, and a synchronous test would hold a thread of the cooperative pool (half
    /// of it on two cores) all that time, while the rest of the run waits for the pool.
    @Test func addingAndRemovingEveryKindOfRegistrationWhileEightThreadsDispatch() async {
        let scale = Scale()
        let store = Store(initialState: ChurnState(), reducer: churnReducer)
        let consumers = (0..<scale.consumers).map { _ in StateConsumer<ChurnState>() }
        let steady = consumers.enumerated().map { index, consumer in
            let probe = CallProbe("steady member of consumer \(index)")
            if index < scale.everyActionConsumers {
                consumer.add(\.counter) { old, new in probe.call(old: old, new: new) }
            } else {
                consumer.add(\.block) { old, new in probe.call(old: old, new: new) }
            }
            return probe
        }
        let subscriptions = consumers.map { store.subscribe($0) }
        let baseline = store.subscriberCount
        let queues = (0..<2).map { DispatchQueue(label: "churn.delivery.\($0)") }
        let churn = ChurnLog()
        // One signal per churning step; `isDispatching` false tells the churning threads to stop.
        let pace = DispatchSemaphore(value: 0)
        let isDispatching = Lock(true)

        let finished = await finishesWithoutDeadlock(within: scaled(120, sanitized: 300)) {
            await onAThreadOfItsOwn {
                let dispatchers = (0..<scale.dispatchers).map { _ in
                    spawn {
                        for step in 1...scale.dispatchesPerThread {
                            store.dispatch(CounterAction.increment)
                            if step.isMultiple(of: scale.dispatchesPerChurnStep) { pace.signal() }
                        }
                    }
                }
                let churners = (0..<scale.churners).map { thread in
                    spawn {
                        var churner = Churner(
                            store: store, consumers: consumers, queues: queues, log: churn,
                            random: SplitMix64(seed: 0xC4_0000 + UInt64(thread)), liveLimit: scale.liveLimit)
                        while true {
                            pace.wait()
                            guard isDispatching.withLock({ $0 }) else { break }
                            churner.step()
                        }
                        churner.removeEverything()
                    }
                }
                for thread in dispatchers { thread.wait() }
                isDispatching.withLock { $0 = false }
                for _ in churners { pace.signal() }
                for thread in churners { thread.wait() }
                // Queued deliveries still pending run now; a late one would be counted by its probe.
                for queue in queues { queue.sync {} }
            }
        }
        guard finished else { return }

        let total = scale.dispatchers * scale.dispatchesPerThread
        #expect(store.state == ChurnState(counter: total))
        for (index, probe) in steady.enumerated() {
            let last = index < scale.everyActionConsumers ? total : total / ChurnState.blockSize
            let report = probe.report
            #expect(
                report == CallProbe.Report(calls: last, last: last), "steady member of consumer \(index): \(report)")
        }
        let removed = churn.probes
        #expect(
            count(\.lateCalls, in: removed).isEmpty,
            "calls that started after their removal returned: \(count(\.lateCalls, in: removed))")
        #expect(
            count(\.disorders, in: removed).isEmpty,
            "calls whose old was not the previous new: \(count(\.disorders, in: removed))")
        #expect(removed.reduce(0) { $0 + $1.report.calls } > 0, "the churned registrations were never called")
        #expect(store.subscriberCount == baseline)
        #expect(consumers.allSatisfy { $0.count == 1 })
        #expect(churn.watch.survivors.isEmpty, "outlived their removal: \(churn.watch.survivors)")
        #expect(StoreContents(store) == StoreContents(evaluations: 2, consumers: scale.consumers))
        for subscription in subscriptions { subscription.cancel() }
        #expect(store.subscriberCount == 0)
    }
}

/// The total of `field` over `probes`, by probe name, leaving out zeros.
private func count(_ field: KeyPath<CallProbe.Report, Int>, in probes: [CallProbe]) -> [String: Int] {
    probes.reduce(into: [:]) { totals, probe in
        let value = probe.report[keyPath: field]
        if value > 0 { totals[probe.name, default: 0] += value }
    }
}

/// What is left inside a store (read in one of its jobs): what a pass walks, and what its drain
/// still holds. After churn it must be what the steady registrations need, nothing more.
private struct StoreContents: Equatable {
    /// Distinct selections evaluated per state.
    var evaluations = 0
    var consumers = 0
    var closureSubscribers = 0
    var listeners = 0
    var removalMarks = 0
    var queuedJobs = 0

    init(evaluations: Int, consumers: Int) {
        self.evaluations = evaluations
        self.consumers = consumers
    }

    init(_ store: Store<ChurnState>) {
        let contents = Lock<StoreContents?>(nil)
        store.perform(.control) { store in
            let core = store.core.value
            var inside = StoreContents(evaluations: core.engine?.nodeCount ?? 0, consumers: core.consumers.count)
            inside.closureSubscribers = core.closures.count
            inside.listeners = core.listeners.count
            contents.withLock { $0 = inside }
        }
        self = contents.withLock { $0 } ?? StoreContents(evaluations: -1, consumers: -1)
        let drain = store.drain.snapshot
        removalMarks = drain.removalMarks.count
        queuedJobs = drain.queuedCount
    }
}

/// A counter, and the block of `blockSize` actions it is in: a field that changes less often.
private struct ChurnState: Equatable, Sendable {
    static let blockSize = 64

    var counter = 0
    var block = 0

    init(counter: Int = 0) {
        self.counter = counter
        block = counter / Self.blockSize
    }
}

private let churnReducer = Reducer<ChurnState> { (state, action: CounterAction) in
    if action == .increment { state = ChurnState(counter: state.counter + 1) }
}

/// What the churning threads made: a probe per removed registration, and the objects that must
/// be gone once everything was removed.
private final class ChurnLog: Sendable {
    private let removed = Lock<[CallProbe]>([])
    let watch = LeakWatch()

    func record(_ probes: [CallProbe]) {
        removed.withLock { $0 += probes }
    }

    var probes: [CallProbe] {
        removed.withLock { $0 }
    }
}

/// An `owner:` member's owner: its release is the member's removal, so its deinit marks the probe.
private final class ProbeOwner: Sendable {
    let probe = CallProbe("owner: member, its owner released")

    deinit {
        probe.removed()
    }
}

/// One churning thread: keeps a few live registrations, adding and removing them at random.
private struct Churner {
    /// A live registration: its probes, and how to remove it (what must be freed by the end of
    /// the run goes to the log's watch).
    private struct Live {
        /// Probes the churner marks removed once `remove` returned.
        var probes: [CallProbe]
        /// Probes that mark themselves (an owner's release).
        var selfMarking: [CallProbe] = []
        var remove: () -> Void
    }

    let store: Store<ChurnState>
    let consumers: [StateConsumer<ChurnState>]
    let queues: [DispatchQueue]
    let log: ChurnLog
    var random: SplitMix64
    let liveLimit: Int
    private var live: [Live] = []

    init(
        store: Store<ChurnState>, consumers: [StateConsumer<ChurnState>], queues: [DispatchQueue], log: ChurnLog,
        random: SplitMix64, liveLimit: Int
    ) {
        self.store = store
        self.consumers = consumers
        self.queues = queues
        self.log = log
        self.random = random
        self.liveLimit = liveLimit
    }

    mutating func step() {
        if live.count < liveLimit && (live.isEmpty || Bool.random(using: &random)) {
            live.append(add())
        } else {
            remove(at: Int.random(in: live.indices, using: &random))
        }
    }

    mutating func removeEverything() {
        while !live.isEmpty {
            remove(at: live.count - 1)
        }
    }

    private mutating func remove(at index: Int) {
        let registration = live.remove(at: index)
        registration.remove()
        for probe in registration.probes { probe.removed() }
        log.record(registration.probes + registration.selfMarking)
    }

    private mutating func add() -> Live {
        switch Int.random(in: 0..<5, using: &random) {
        case 0: sharedKeyPathMember()
        case 1: ownerMember()
        case 2: closureSubscriber()
        case 3: queuedConsumer()
        default: page()
        }
    }

    /// A member on the key path every steady member watches, in one of the shared consumers,
    /// removed by its token, by `remove(_:)` or by releasing the bag holding its token.
    private mutating func sharedKeyPathMember() -> Live {
        let removal = Int.random(in: 0..<3, using: &random)
        let probe = CallProbe("key-path member, \(["token.cancel()", "remove(_:)", "its bag released"][removal])")
        let consumer = consumers[Int.random(in: consumers.indices, using: &random)]
        let token = consumer.add(\.counter) { old, new in probe.call(old: old, new: new) }
        switch removal {
        case 0:
            return Live(probes: [probe]) {
                token.cancel()
            }
        case 1:
            return Live(probes: [probe]) {
                consumer.remove(token)
            }
        default:
            var bag: ConsumerBag? = ConsumerBag()
            token.store(in: bag!)
            log.watch.track(bag!)
            return Live(probes: [probe]) {
                bag = nil
            }
        }
    }

    /// An `owner:` member of a shared consumer, removed by releasing its owner. A call in progress
    /// on another thread may hold the owner a little longer; its deinit marks the probe.
    private mutating func ownerMember() -> Live {
        let consumer = consumers[Int.random(in: consumers.indices, using: &random)]
        var owner: ProbeOwner? = ProbeOwner()
        consumer.add(\.counter, owner: owner!) { owner, old, new in owner.probe.call(old: old, new: new) }
        log.watch.track(owner!)
        return Live(probes: [], selfMarking: [owner!.probe]) {
            owner = nil
        }
    }

    private mutating func closureSubscriber() -> Live {
        let probe = CallProbe("closure subscriber, cancel()")
        let subscription = store.subscribe { old, new in probe.call(old: old.counter, new: new.counter) }
        return Live(probes: [probe]) {
            subscription.cancel()
        }
    }

    /// A consumer that delivers on a queue, removed by its token, by `removeAll()` or by
    /// cancelling its subscription (which ends anyway, to return to the baseline).
    private mutating func queuedConsumer() -> Live {
        let removal = Int.random(in: 0..<3, using: &random)
        let probe = CallProbe(
            "deliveringOn: member, \(["token.cancel()", "removeAll()", "its subscription cancelled"][removal])",
            .forward)
        var consumer: StateConsumer<ChurnState>? = StateConsumer(
            deliveringOn: queues[Int.random(in: queues.indices, using: &random)])
        let token = consumer!.add(\.counter) { old, new in probe.call(old: old, new: new) }
        let subscription = store.subscribe(consumer!)
        log.watch.track(consumer!)
        return Live(probes: [probe]) {
            switch removal {
            case 0: token.cancel()
            case 1: consumer!.removeAll()
            default: subscription.cancel()
            }
            subscription.cancel()
            consumer = nil
        }
    }

    /// A page on the store, with a consumer of each state, perhaps forwarding the global actions
    /// (an action listener on the store), closed then released, or released.
    private mutating func page() -> Live {
        let forwards = Bool.random(using: &random)
        let closes = Bool.random(using: &random)
        let kind = "page\(forwards ? " forwarding global actions" : ""), \(closes ? "closed" : "released")"
        let global = CallProbe("global consumer of a \(kind)")
        let local = CallProbe("consumer of a \(kind)")
        var page: PageStore<ChurnState, ChurnState>? = PageStore(
            global: store, initialState: { $0 }, reducer: churnReducer)
        if forwards {
            page!.forwardActions { $0 is CounterAction }
        }
        page!.globalConsumer.add(\.counter) { old, new in global.call(old: old, new: new) }
        page!.consumer.add(\.counter) { old, new in local.call(old: old, new: new) }
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            page!.dispatch(CounterAction.increment)
        }
        log.watch.track(page!)
        return Live(probes: [global, local]) {
            if closes { page!.close() }
            page = nil
        }
    }
}
