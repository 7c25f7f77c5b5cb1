import Dispatch
import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

// Independent checks of concurrency and lifetime rules, combining what the other suites test
// one by one: pages with everything created and ended per "request" while the global store is
// busy, owners and bags released on other threads, queued consumers cancelled while their queue is
// backed up, three stores reading and dispatching into each other with churn, consumers moving
// between stores, and async sequences cancelled or outliving their store.

// MARK: - Fixtures

struct HuntGlobal: Equatable, Sendable {
    var counter = 0
    var other = 0
}

enum HuntGlobalAction: Action, Equatable {
    case increment
    case bumpOther
}

let huntGlobalReducer = Reducer<HuntGlobal> { (state, action: HuntGlobalAction) in
    switch action {
    case .increment: state.counter += 1
    case .bumpOther: state.other += 1
    }
}

struct HuntPage: Equatable, Sendable {
    var count = 0
    var forwarded = 0
    var answers = 0
}

enum HuntPageAction: Action, Equatable {
    case increment
    case fetch
    case answered
}

let huntPageReducer = Reducer<HuntPage>.combine(
    Reducer<HuntPage> { (state, action: HuntPageAction) in
        switch action {
        case .increment: state.count += 1
        case .fetch: break
        case .answered: state.answers += 1
        }
    },
    Reducer<HuntPage> { (state, action: HuntGlobalAction) in
        if action == .increment { state.forwarded += 1 }
    }
)

let huntFetch = Effect<HuntPage>.on(HuntPageAction.self, when: { $0 == .fetch }) { _, context in
    await Task.yield()
    await context.send(HuntPageAction.answered)
}

/// An owner whose deinit marks its probes removed: any call after that is late.
final class HuntOwner: Sendable {
    let probes: [CallProbe]

    init(_ probes: [CallProbe]) {
        self.probes = probes
    }

    deinit {
        for probe in probes { probe.removed() }
    }
}

/// Something a callback captures, to watch when the callback is freed.
final class HuntCaptured: Sendable {}

/// Counts calls that start after `removed()`.
final class LateCounter: Sendable {
    private let state = Lock((calls: 0, late: 0, removed: false))
    func call() {
        state.withLock {
            $0.calls += 1
            if $0.removed { $0.late += 1 }
        }
    }
    func removed() { state.withLock { $0.removed = true } }
    var late: Int { state.withLock { $0.late } }
    var calls: Int { state.withLock { $0.calls } }
}

struct HuntWeak: @unchecked Sendable {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

private func runThreads(_ bodies: [@Sendable () -> Void]) {
    let joins = bodies.map { spawn($0) }
    for join in joins { join.wait() }
}

private func report(_ probes: [CallProbe], sourceLocation: SourceLocation = #_sourceLocation) {
    let bad = probes.filter { $0.report.disorders != 0 || $0.report.lateCalls != 0 }
    #expect(
        bad.isEmpty,
        "\(bad.prefix(5).map { "\($0.name): \($0.report)" })",
        sourceLocation: sourceLocation)
}

// MARK: - Tests

struct HuntTests {
    // MARK: Pages per request

    /// Threads create pages with global consumers on shared key paths, page consumers, an effect and
    /// forwarding, dispatch to page and global, then close or release them, while other threads
    /// dispatch to the global store.
    @Test func pagesWithEverythingComeAndGoWhileTheGlobalStoreIsBusy() {
        let global = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
        let steadyConsumer = StateConsumer<HuntGlobal>()
        let steady = CallProbe("steady counter")
        steadyConsumer.add(\.counter) { old, new in steady.call(old: old, new: new) }
        let steadySubscription = global.subscribe(steadyConsumer)
        let baseline = global.subscriberCount
        let pagesPerThread = scaled(400, sanitized: 60)
        let dispatches = scaled(3_000, sanitized: 600)
        let probes = Lock<[CallProbe]>([])
        let weaks = Lock<[HuntWeak]>([])
        let closedPages = Lock<[(PageStore<HuntPage, HuntGlobal>, HuntPage)]>([])
        let finished = finishesWithoutDeadlock(within: 60) {
            let dispatcher: @Sendable () -> Void = {
                for index in 0..<dispatches {
                    global.dispatch(index.isMultiple(of: 5) ? HuntGlobalAction.bumpOther : .increment)
                }
            }
            let pager: @Sendable (Int) -> Void = { thread in
                for round in 0..<pagesPerThread {
                    let name = "t\(thread)p\(round)"
                    let globalProbe = CallProbe("\(name) global counter")
                    let ownerProbe = CallProbe("\(name) owner counter")
                    let otherProbe = CallProbe("\(name) global other")
                    let countProbe = CallProbe("\(name) count")
                    let forwardedProbe = CallProbe("\(name) forwarded")
                    let answerProbe = CallProbe("\(name) answers")
                    let all = [globalProbe, ownerProbe, otherProbe, countProbe, forwardedProbe, answerProbe]
                    probes.withLock { $0 += all }
                    var owner: HuntOwner? = HuntOwner([ownerProbe])
                    var page: PageStore<HuntPage, HuntGlobal>? = PageStore(
                        global: global, initialState: { _ in HuntPage() }, reducer: huntPageReducer,
                        effects: [huntFetch])
                    page!.forwardActions { ($0 as? HuntGlobalAction) == .increment }
                    page!.globalConsumer.add(\.counter) { old, new in globalProbe.call(old: old, new: new) }
                    page!.globalConsumer.add(\.counter, owner: owner!) { _, old, new in
                        ownerProbe.call(old: old, new: new)
                    }
                    page!.globalConsumer.add({ $0.other }) { old, new, _ in otherProbe.call(old: old, new: new) }
                    page!.consumer.add(\.count) { old, new in countProbe.call(old: old, new: new) }
                    page!.consumer.add(\.forwarded) { old, new in forwardedProbe.call(old: old, new: new) }
                    page!.consumer.add(\.answers) { old, new in answerProbe.call(old: old, new: new) }
                    weaks.withLock {
                        $0 += [
                            HuntWeak(page!), HuntWeak(page!.store), HuntWeak(page!.consumer),
                            HuntWeak(page!.globalConsumer), HuntWeak(owner!),
                        ]
                    }
                    page!.dispatch(HuntPageAction.increment)
                    page!.dispatch(HuntPageAction.fetch)
                    page!.dispatchGlobal(HuntGlobalAction.increment)
                    page!.dispatch(HuntPageAction.increment)
                    switch round % 3 {
                    case 0:
                        page!.close()
                        for probe in all { probe.removed() }
                        closedPages.withLock { $0.append((page!, page!.state)) }
                        page = nil
                        owner = nil
                    case 1:
                        let weakPage = HuntWeak(page!)
                        page = nil
                        for probe in all { probe.removed() }
                        if weakPage.object != nil { Issue.record("\(name): page outlived its release") }
                        owner = nil
                    default:
                        // The owner goes first, on this thread, while the page still lives.
                        owner = nil
                        page = nil
                        for probe in all { probe.removed() }
                    }
                }
            }
            runThreads([dispatcher, dispatcher, { pager(0) }, { pager(1) }])
        }
        guard finished else { return }
        #expect(global.state.counter == 2 * (dispatches - (dispatches + 4) / 5) + 2 * pagesPerThread)
        #expect(global.subscriberCount == baseline)
        let closed = closedPages.withLock { $0 }
        let changedAfterClose = closed.filter { $0.0.state != $0.1 }.count
        #expect(changedAfterClose == 0)
        closedPages.withLock { $0 = [] }
        _ = consume closed
        // The pages' effects may still be winding down; they hold their stores weakly.
        let survivors = weaks.withLock { $0.filter { $0.object != nil }.count }
        #expect(survivors == 0)
        report(probes.withLock { $0 } + [steady])
        steadySubscription.cancel()
        #expect(global.subscriberCount == 0)
    }

    // MARK: Owners and bags released on other threads

    @Test func ownerMembersWhoseOwnersAreReleasedOnAnotherThreadDuringDispatch() {
        let store = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
        let consumer = StateConsumer<HuntGlobal>()
        let steady = CallProbe("steady")
        consumer.add(\.counter) { old, new in steady.call(old: old, new: new) }
        let subscription = store.subscribe(consumer)
        let ownerCount = scaled(300, sanitized: 80)
        let dispatches = scaled(4_000, sanitized: 800)
        let watch = LeakWatch()
        var probes: [CallProbe] = []
        var owners: [HuntOwner?] = []
        for index in 0..<ownerCount {
            let probe = CallProbe("owner \(index)")
            let owner = HuntOwner([probe])
            let captured = watch.track(HuntCaptured())
            if index.isMultiple(of: 2) {
                consumer.add(\.counter, owner: owner) { _, old, new in
                    withExtendedLifetime(captured) { probe.call(old: old, new: new) }
                }
            } else {
                consumer.add({ $0.counter }, owner: owner) { _, old, new in
                    withExtendedLifetime(captured) { probe.call(old: old, new: new) }
                }
            }
            probes.append(probe)
            owners.append(owner)
        }
        let held = Lock(owners)
        owners = []
        let ownerWeaks = held.withLock { $0.map { HuntWeak($0!) } }
        let finished = finishesWithoutDeadlock(within: 60) {
            let dispatcher: @Sendable () -> Void = {
                for _ in 0..<dispatches { store.dispatch(HuntGlobalAction.increment) }
            }
            let releaser: @Sendable (UInt64) -> Void = { seed in
                var random = SplitMix64(seed: seed)
                for _ in 0..<ownerCount {
                    let index = Int.random(in: 0..<ownerCount, using: &random)
                    var taken = held.withLock { owners -> HuntOwner? in
                        defer { owners[index] = nil }
                        return owners[index]
                    }
                    taken = nil
                    _ = taken
                    // Some steps also read the consumer's count, which leaves inert members out.
                    _ = consumer.count
                }
            }
            runThreads([dispatcher, dispatcher, { releaser(1) }, { releaser(2) }])
        }
        guard finished else { return }
        held.withLock { $0 = $0.map { _ in nil } }
        #expect(ownerWeaks.allSatisfy { $0.object == nil })
        #expect(consumer.count == 1)
        store.dispatch(HuntGlobalAction.increment)
        // Inert members remove themselves at their next change, and free what they captured.
        #expect(watch.survivors.isEmpty, "\(watch.survivors.count) captured objects survive")
        report(probes + [steady])
        #expect(steady.report.calls == 2 * dispatches + 1)
        subscription.cancel()
    }

    @Test func bagsReleasedOnOtherThreadsWhileTheStoreIsDispatched() {
        let store = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
        let shared = StateConsumer<HuntGlobal>()
        let sharedSubscription = store.subscribe(shared)
        let baseline = store.subscriberCount
        let bagCount = scaled(200, sanitized: 60)
        let dispatches = scaled(4_000, sanitized: 800)
        var bags: [ConsumerBag?] = []
        var probes: [CallProbe] = []
        var listeners: [LateCounter] = []
        let watch = LeakWatch()
        for index in 0..<bagCount {
            let bag = ConsumerBag()
            let memberProbe = CallProbe("bag \(index) shared member")
            let ownProbe = CallProbe("bag \(index) own consumer")
            let closureProbe = CallProbe("bag \(index) closure")
            let listener = LateCounter()
            let captured = watch.track(HuntCaptured())
            shared.add(\.counter) { old, new in
                withExtendedLifetime(captured) { memberProbe.call(old: old, new: new) }
            }.store(in: bag)
            let own = watch.track(StateConsumer<HuntGlobal>())
            own.add(\.counter) { old, new in ownProbe.call(old: old, new: new) }
            store.subscribe(own).store(in: bag)
            store.subscribe { old, new in closureProbe.call(old: old.counter, new: new.counter) }.store(in: bag)
            store.observeActions { _ in listener.call() }.store(in: bag)
            bags.append(bag)
            probes += [memberProbe, ownProbe, closureProbe]
            listeners.append(listener)
        }
        let held = Lock(bags)
        bags = []
        let allProbes = probes
        let allListeners = listeners
        let finished = finishesWithoutDeadlock(within: 60) {
            let dispatcher: @Sendable () -> Void = {
                for _ in 0..<dispatches { store.dispatch(HuntGlobalAction.increment) }
            }
            let releaser: @Sendable (Int) -> Void = { parity in
                for index in stride(from: parity, to: bagCount, by: 2) {
                    let bag = held.withLock { bags -> ConsumerBag? in
                        defer { bags[index] = nil }
                        return bags[index]
                    }
                    if index.isMultiple(of: 4) {
                        bag?.removeAll()
                    }
                    _ = consume bag
                    for probe in allProbes[(3 * index)..<(3 * index + 3)] { probe.removed() }
                    allListeners[index].removed()
                }
            }
            runThreads([dispatcher, dispatcher, { releaser(0) }, { releaser(1) }])
        }
        guard finished else { return }
        report(allProbes)
        #expect(allListeners.map(\.late).reduce(0, +) == 0)
        #expect(store.subscriberCount == baseline)
        #expect(shared.count == 0)
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        sharedSubscription.cancel()
    }

    /// Queued consumers cancelled (by token, remove, removeAll, subscription, bag) while their
    /// queue is blocked, from several threads, while others dispatch: no call after the removal.
    @Test func queuedConsumersCancelledWhileTheirQueueIsBackedUp() {
        let store = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
        let rounds = scaled(80, sanitized: 16)
        let dispatches = scaled(200, sanitized: 60)
        let probes = Lock<[CallProbe]>([])
        let finished = finishesWithoutDeadlock(within: 60) {
            let worker: @Sendable (Int) -> Void = { thread in
                for round in 0..<rounds {
                    let queue = DispatchQueue(label: "hunt.queue.\(thread).\(round)")
                    let gate = DispatchSemaphore(value: 0)
                    queue.async { gate.wait() }
                    let consumer = StateConsumer<HuntGlobal>(deliveringOn: queue)
                    let probe = CallProbe("queued t\(thread) r\(round)", .forward)
                    let other = CallProbe("queued other t\(thread) r\(round)", .forward)
                    probes.withLock { $0 += [probe, other] }
                    let bag = ConsumerBag()
                    let token = consumer.add(\.counter) { old, new in probe.call(old: old, new: new) }
                    let otherToken = consumer.add(\.other) { old, new in other.call(old: old, new: new) }
                    let subscription = store.subscribe(consumer)
                    token.store(in: bag)
                    for index in 0..<dispatches {
                        store.dispatch(index.isMultiple(of: 3) ? HuntGlobalAction.bumpOther : .increment)
                    }
                    let unblockFirst = round.isMultiple(of: 2)
                    if unblockFirst { gate.signal() }
                    switch round % 5 {
                    case 0:
                        token.cancel()
                        otherToken.cancel()
                    case 1:
                        consumer.remove(token)
                        consumer.remove(otherToken)
                    case 2: consumer.removeAll()
                    case 3: subscription.cancel()
                    default:
                        bag.removeAll()
                        otherToken.cancel()
                    }
                    probe.removed()
                    other.removed()
                    if !unblockFirst { gate.signal() }
                    queue.sync {}
                    subscription.cancel()
                }
            }
            let dispatcher: @Sendable () -> Void = {
                for _ in 0..<(rounds * dispatches) { store.dispatch(HuntGlobalAction.increment) }
            }
            runThreads([{ worker(0) }, { worker(1) }, { worker(2) }, dispatcher])
        }
        guard finished else { return }
        report(probes.withLock { $0 })
        #expect(store.subscriberCount == 0)
    }

    // MARK: Three stores

    /// Three stores whose reducers read the next one's state and whose consumers dispatch into the
    /// next one, from four threads, while a fifth subscribes and cancels probes on all three.
    @Test func threeStoresReadingAndDispatchingIntoEachOtherWithChurn() {
        let links = (0..<3).map { _ in Lock<Store<TriState>?>(nil) }
        let stores = (0..<3).map { index in
            Store(initialState: TriState(), reducer: triReducer(reading: links[(index + 1) % 3]))
        }
        for index in 0..<3 { links[(index + 1) % 3].withLock { $0 = stores[(index + 1) % 3] } }
        let echoes = (0..<3).map { index in
            let next = stores[(index + 1) % 3]
            let consumer = StateConsumer<TriState>()
            consumer.add(\.counter) { new in
                if new.isMultiple(of: 10) { next.dispatch(TriAction.echo) }
            }
            return stores[index].subscribe(consumer)
        }
        let baselines = stores.map(\.subscriberCount)
        let perThread = scaled(8_000, sanitized: 800)
        let probes = Lock<[CallProbe]>([])
        let finished = finishesWithoutDeadlock(within: 60) {
            let dispatcher: @Sendable (Int) -> Void = { thread in
                for index in 0..<perThread {
                    // Threads 0-2 each favour one store; thread 3 rotates.
                    let target = thread < 3 ? (index.isMultiple(of: 4) ? (thread + 1) % 3 : thread) : index % 3
                    stores[target].dispatch(TriAction.increment)
                }
            }
            let churner: @Sendable () -> Void = {
                var random = SplitMix64(seed: 7)
                var live: [(Subscription, CallProbe, Subscription?, LateCounter)] = []
                for step in 0..<(perThread / 4) {
                    if live.count < 4 && Bool.random(using: &random) || live.isEmpty {
                        let target = Int.random(in: 0..<3, using: &random)
                        let reader = stores[(target + 2) % 3]
                        let probe = CallProbe("churn \(step) on store \(target)")
                        let consumer = StateConsumer<TriState>()
                        consumer.add(\.counter) { old, new in
                            probe.call(old: old, new: new)
                            _ = reader.state  // reads never wait
                        }
                        let closure = LateCounter()
                        let closureSubscription =
                            step.isMultiple(of: 2) ? stores[target].subscribe { _, _ in closure.call() } : nil
                        probes.withLock { $0.append(probe) }
                        live.append((stores[target].subscribe(consumer), probe, closureSubscription, closure))
                    } else {
                        let (subscription, probe, closureSubscription, closure) = live.remove(
                            at: Int.random(in: 0..<live.count, using: &random))
                        subscription.cancel()
                        probe.removed()
                        closureSubscription?.cancel()
                        closure.removed()
                        if closure.late != 0 { Issue.record("closure subscriber called after cancel") }
                    }
                }
                for (subscription, probe, closureSubscription, _) in live {
                    subscription.cancel()
                    probe.removed()
                    closureSubscription?.cancel()
                }
            }
            runThreads([{ dispatcher(0) }, { dispatcher(1) }, { dispatcher(2) }, { dispatcher(3) }, churner])
        }
        guard finished else { return }
        let counters = stores.map(\.state.counter)
        #expect(counters.reduce(0, +) == 4 * perThread)
        for index in 0..<3 {
            let state = stores[index].state
            let source = counters[(index + 2) % 3]
            #expect(state.echoes == source / 10, "store \(index)")
            #expect(state.reads == state.counter + state.echoes, "store \(index)")
            #expect(state.lastRead <= counters[(index + 1) % 3])
            #expect(stores[index].subscriberCount == baselines[index])
        }
        report(probes.withLock { $0 })
        for echo in echoes { echo.cancel() }
        for link in links { link.withLock { $0 = nil } }
    }

    // MARK: Consumers moving between stores

    @Test func consumersMovingBetweenStoresWhileBothDispatch() {
        let stores = (0..<2).map { id in
            Store(initialState: TriState(id: id), reducer: triReducer(reading: Lock(nil)))
        }
        let moves = scaled(400, sanitized: 100)
        let dispatches = scaled(4_000, sanitized: 800)
        let problems = Recorder<String>()
        let finished = finishesWithoutDeadlock(within: 60) {
            let mover: @Sendable (Int) -> Void = { thread in
                let consumer = StateConsumer<TriState>()
                let expected = Lock<(store: Int?, last: Tagged?)>((nil, nil))
                consumer.add({ Tagged(id: $0.id, counter: $0.counter) }) { old, new in
                    expected.withLock { expected in
                        if expected.store != new.id {
                            problems.append(
                                "t\(thread): called for store \(new.id), subscribed to \(String(describing: expected.store))"
                            )
                        }
                        if let last = expected.last, last != old {
                            problems.append("t\(thread): old \(old) after \(last)")
                        }
                        if old.id == new.id && new.counter <= old.counter {
                            problems.append("t\(thread): \(old) → \(new) goes back")
                        }
                        expected.last = new
                    }
                }
                var random = SplitMix64(seed: UInt64(thread) + 11)
                var current = Int.random(in: 0..<2, using: &random)
                expected.withLock { $0.store = current }
                var subscription = stores[current].subscribe(consumer)
                for step in 0..<moves {
                    if step.isMultiple(of: 3) { stores[current].dispatch(TriAction.increment) }
                    subscription.cancel()
                    current = 1 - current
                    expected.withLock { $0.store = current }
                    subscription = stores[current].subscribe(consumer)
                }
                subscription.cancel()
                expected.withLock { $0.store = nil }
                stores[0].dispatch(TriAction.increment)
                stores[1].dispatch(TriAction.increment)
            }
            let dispatcher: @Sendable (Int) -> Void = { index in
                for _ in 0..<dispatches { stores[index].dispatch(TriAction.increment) }
            }
            runThreads([{ mover(0) }, { mover(1) }, { mover(2) }, { dispatcher(0) }, { dispatcher(1) }])
        }
        guard finished else { return }
        #expect(problems.values.isEmpty, "\(problems.values.prefix(5))")
        #expect(stores.map(\.subscriberCount) == [0, 0])
    }

    // MARK: Async sequences

    /// Tasks reading `changes(of:)` and `actions` are cancelled mid-way while threads dispatch: each
    /// iteration ends, its elements chain, and the store's subscriber count is back at its baseline.
    @Test func sequencesCancelledMidWayWhileThreadsDispatch() async {
        let store = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
        let baseline = store.subscriberCount
        let dispatches = scaled(20_000, sanitized: 3_000)
        await finishesWithoutDeadlock(within: 60) {
            let done = Lock(false)
            let dispatching = (0..<2).map { _ in
                spawn {
                    for index in 0..<dispatches {
                        store.dispatch(index.isMultiple(of: 4) ? HuntGlobalAction.bumpOther : .increment)
                    }
                    done.withLock { $0 = true }
                }
            }
            let readers = (0..<6).map { reader in
                Task { () -> [String] in
                    var problems: [String] = []
                    var last: Int?
                    var seen = 0
                    if reader < 4 {
                        let stream =
                            reader.isMultiple(of: 2)
                            ? store.changes(of: \.counter) : store.changes(of: \.counter, buffering: .unbounded)
                        for await change in stream {
                            if let last, last != change.old {
                                problems.append("r\(reader): old \(change.old) after \(last)")
                            }
                            if reader.isMultiple(of: 2) ? change.new <= change.old : change.new != change.old + 1 {
                                problems.append("r\(reader): \(change.old) → \(change.new)")
                            }
                            last = change.new
                            seen += 1
                        }
                    } else {
                        for await action in store.actions {
                            if !(action is HuntGlobalAction) { problems.append("r\(reader): \(action)") }
                            seen += 1
                        }
                    }
                    return problems
                }
            }
            // Cancel readers one by one while the dispatching goes on.
            for reader in readers {
                for _ in 0..<50 { await Task.yield() }
                reader.cancel()
            }
            var problems: [String] = []
            for reader in readers { problems += await reader.value }
            #expect(problems.isEmpty, "\(problems.prefix(5))")
            #expect(store.subscriberCount == baseline)
            for thread in dispatching {
                await withCheckedContinuation { continuation in
                    Thread {
                        thread.wait()
                        continuation.resume()
                    }.start()
                }
            }
        }
        #expect(store.subscriberCount == baseline)
    }

    /// Stores released while tasks iterate their sequences: every sequence finishes, having
    /// delivered every action dispatched while it was subscribed, and the last change.
    @Test func storesReleasedWhileTheirSequencesAreIterated() async {
        let rounds = scaled(100, sanitized: 30)
        await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                var store: Store<HuntGlobal>? = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
                let weakStore = HuntWeak(store!)
                let actions = store!.actions
                let changes = store!.changes(of: \.counter, options: .instantly)
                let states = store!.states(buffering: .unbounded)
                let actionReader = Task { () -> Int in
                    var count = 0
                    for await _ in actions { count += 1 }
                    return count
                }
                let changeReader = Task { () -> Int? in
                    var last: Int?
                    for await change in changes { last = change.new }
                    return last
                }
                let stateReader = Task { () -> (Int, Bool) in
                    var count = 0
                    var chained = true
                    var last: Int?
                    for await change in states {
                        if let last, last != change.old.counter { chained = false }
                        last = change.new.counter
                        count += 1
                    }
                    return (count, chained)
                }
                while store!.subscriberCount < 3 { await Task.yield() }
                let count = 20 + round % 7
                let box = Lock<Store<HuntGlobal>?>(store)
                store = nil
                // Dispatched and released on another thread.
                await withCheckedContinuation { continuation in
                    Thread {
                        var owned = box.withLock { box in
                            defer { box = nil }
                            return box
                        }
                        for _ in 0..<count { owned!.dispatch(HuntGlobalAction.increment) }
                        owned = nil
                        _ = owned
                        continuation.resume()
                    }.start()
                }
                let seen = await actionReader.value
                let last = await changeReader.value
                let (stateCount, chained) = await stateReader.value
                #expect(weakStore.object == nil, "round \(round)")
                #expect(seen == count, "round \(round)")
                #expect(last == count, "round \(round)")
                #expect(stateCount == count && chained, "round \(round)")
            }
        }
    }

    /// A page whose sequences are iterated is closed from another thread: they finish.
    @Test func pageSequencesFinishWhenThePageClosesOnAnotherThread() async {
        let global = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
        let rounds = scaled(60, sanitized: 20)
        await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let page = PageStore(
                    global: global, initialState: { _ in HuntPage() }, reducer: huntPageReducer, effects: [huntFetch])
                let pageChanges = page.changes(of: \.count)
                let globalChanges = page.globalChanges(of: \.counter)
                let pageReader = Task { () -> Int in
                    var count = 0
                    for await _ in pageChanges { count += 1 }
                    return count
                }
                let globalReader = Task { () -> Int in
                    var count = 0
                    for await _ in globalChanges { count += 1 }
                    return count
                }
                let pageBaseline = page.store.subscriberCount
                _ = pageBaseline
                while page.store.subscriberCount < 1 || global.subscriberCount < 1 { await Task.yield() }
                await withCheckedContinuation { continuation in
                    Thread {
                        for _ in 0..<5 {
                            page.dispatch(HuntPageAction.increment)
                            page.dispatch(HuntPageAction.fetch)
                            global.dispatch(HuntGlobalAction.increment)
                        }
                        page.close()
                        continuation.resume()
                    }.start()
                }
                let pageSeen = await pageReader.value
                let globalSeen = await globalReader.value
                #expect(pageSeen >= 1 && pageSeen <= 5, "round \(round): \(pageSeen)")
                #expect(globalSeen >= 1 && globalSeen <= 5, "round \(round): \(globalSeen)")
                #expect(global.subscriberCount == 0, "round \(round)")
                await page.effectsIdle()
            }
        }
    }
}

// MARK: - Three-store fixtures

struct TriState: Equatable, Sendable {
    var id = 0
    var counter = 0
    var echoes = 0
    var reads = 0
    var lastRead = 0
}

enum TriAction: Action {
    case increment
    case echo
}

struct Tagged: Equatable, Sendable, CustomStringConvertible {
    var id: Int
    var counter: Int
    var description: String { "\(id):\(counter)" }
}

func triReducer(reading other: Lock<Store<TriState>?>) -> Reducer<TriState> {
    Reducer { (state, action: TriAction) in
        switch action {
        case .increment: state.counter += 1
        case .echo: state.echoes += 1
        }
        if let other = other.withLock({ $0 }) {
            state.reads += 1
            state.lastRead = other.state.counter
        }
    }
}

// MARK: - Minimal reproductions

extension HuntTests {
    /// Minimal repro: a consumer whose subscription to store A is cancelled while A is busy on
    /// another thread (the removal is marked and queued, and `cancel()` returns at once), then
    /// subscribed to store B, must work "as after cancel()".
    @Test func reproResubscribingElsewhereAfterACancelQueuedBehindABusyStore() {
        let storeA = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
        let storeB = Store(initialState: HuntGlobal(), reducer: huntGlobalReducer)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocker = StateConsumer<HuntGlobal>()
        blocker.add(\.counter) { new in
            if new == 1 {
                entered.signal()
                release.wait()
            }
        }
        let blockerSubscription = storeA.subscribe(blocker)
        let calls = Recorder<String>()
        let consumer = StateConsumer<HuntGlobal>()
        consumer.add(\.other) { old, new in calls.append("other \(old)→\(new)") }
        let subscriptionA = storeA.subscribe(consumer)
        let finished = finishesWithoutDeadlock {
            let busy = spawn { storeA.dispatch(HuntGlobalAction.increment) }
            entered.wait()
            subscriptionA.cancel()  // storeA is busy on `busy`: marked and queued, returns at once
            calls.append("cancelled")
            let subscriptionB = storeB.subscribe(consumer)  // debug: "a registration attached twice"
            release.signal()
            busy.wait()
            storeA.dispatch(HuntGlobalAction.bumpOther)  // must not reach the consumer
            storeB.dispatch(HuntGlobalAction.bumpOther)
            storeB.dispatch(HuntGlobalAction.bumpOther)
            subscriptionB.cancel()
        }
        guard finished else { return }
        #expect(calls.values == ["cancelled", "other 0→1", "other 1→2"])
        #expect(storeA.subscriberCount == 1 && storeB.subscriberCount == 0)
        blockerSubscription.cancel()
    }
}
