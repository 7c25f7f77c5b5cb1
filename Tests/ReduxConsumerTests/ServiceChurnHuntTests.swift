import Dispatch
import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

// Red-team hunt: where services live. Registrations added and removed from many threads while
// others dispatch (to the same store and to other stores), owners released on other threads,
// pages created and dropped at a high rate, and stores that read and dispatch into each other.

// MARK: - Fixtures

private struct HubState: Equatable, Sendable {
    var ticks = 0
    var fromA = 0
    var fromB = 0
    /// Sequence numbers another store's processing sent here, in the order this store reduced them.
    var sequence: [Int] = []
    var mirrored = 0
    var reads = 0
}

private enum HubAction: Action, Equatable {
    case tick
    case fromA
    case fromB
    case sequenced(Int)
    case mirror
}

private let hubReducer = Reducer<HubState> { (state, action: HubAction) in
    switch action {
    case .tick: state.ticks += 1
    case .fromA: state.fromA += 1
    case .fromB: state.fromB += 1
    case .sequenced(let number): state.sequence.append(number)
    case .mirror: state.mirrored += 1
    }
}

private struct LeafState: Equatable, Sendable {
    var ticks = 0
    var bumps = 0
    var echoes = 0
    var forwarded = 0
}

private enum LeafAction: Action, Equatable {
    case tick
    case bump
    case echo
}

private let leafReducer = Reducer<LeafState>.combine(
    Reducer { (state, action: LeafAction) in
        switch action {
        case .tick: state.ticks += 1
        case .bump: state.bumps += 1
        case .echo: state.echoes += 1
        }
    },
    Reducer { (state, action: HubAction) in
        if action == .tick { state.forwarded += 1 }
    }
)

/// Waits (on the calling thread, at most `seconds`) until `store`'s state satisfies `condition`:
/// a completion signal from a closure subscriber, not a timed sleep. Returns whether it got there.
private func waitUntil<State: Sendable>(
    _ store: Store<State>, seconds: Double = 20, _ condition: @escaping @Sendable (State) -> Bool
) -> Bool {
    let reached = DispatchSemaphore(value: 0)
    let subscription = store.subscribe { _, new in
        if condition(new) { reached.signal() }
    }
    defer { subscription.cancel() }
    if condition(store.state) { return true }
    return reached.wait(timeout: .now() + seconds) == .success
}

/// A thread-safe flag.
private final class Flag: Sendable {
    private let value = Lock(false)

    func set() {
        value.withLock { $0 = true }
    }

    var isSet: Bool {
        value.withLock { $0 }
    }
}

/// A hand-off of objects from the threads that create them to the thread that releases them.
private final class Handoff<Object: AnyObject & Sendable>: Sendable {
    private let items = Lock<(queue: [Object], isFinished: Bool)>(([], false))
    private let available = DispatchSemaphore(value: 0)

    func put(_ object: Object) {
        items.withLock { $0.queue.append(object) }
        available.signal()
    }

    func finish() {
        items.withLock { $0.isFinished = true }
        available.signal()
    }

    /// The next object, or `nil` once finished and drained. The caller releases what it gets.
    func take() -> Object? {
        while true {
            available.wait()
            let next = items.withLock { items -> (Object?, Bool) in
                if !items.queue.isEmpty { return (items.queue.removeFirst(), false) }
                return (nil, items.isFinished)
            }
            if let object = next.0 { return object }
            if next.1 {
                available.signal()
                return nil
            }
        }
    }
}

/// A request-like owner: holds a page, watches the global ticks with an `owner:` member and the
/// page count with a plain member. Its release releases the page; once the page's release
/// returned (inside this deinit), its probes are marked removed.
private final class RequestOwner: Sendable {
    private let page: Lock<PageStore<LeafState, HubState>?>
    let globalProbe = CallProbe("owner: global member of a released request page")
    let pageProbe = CallProbe("plain page member of a released request page")

    init(global: Store<HubState>, forwards: Bool, watch: LeakWatch) {
        let page = PageStore(global: global, initialState: { _ in LeafState() }, reducer: leafReducer)
        self.page = Lock(page)
        watch.track(page)
        if forwards { page.forwardActions { $0 is HubAction } }
        page.globalConsumer.add(\.ticks, owner: self) { owner, old, new in
            owner.globalProbe.call(old: old, new: new)
        }
        let pageProbe = pageProbe
        page.consumer.add(\.ticks) { old, new in pageProbe.call(old: old, new: new) }
        page.dispatch(LeafAction.tick)
        page.dispatch(LeafAction.tick)
    }

    deinit {
        weak let weakPage = page.withLock { $0 }
        page.withLock { $0 = nil }
        // The page was held only here: its release ran (and returned) on this line above.
        if weakPage == nil { pageProbe.removed() }
        globalProbe.removed()
    }
}

// MARK: - Hunts expected to hold

@Suite struct ServiceChurnHuntTests {
    /// Page A's consumer dispatches to the global store, whose consumer (page B's global consumer)
    /// dispatches to page B, whose consumer dispatches to the global store, whose consumer (page
    /// A's) dispatches back to page A; five threads feed the three stores at once.
    @Test func pagesPingPongThroughTheGlobalStoreFromFiveThreads() {
        let perThread = scaled(1_500, sanitized: 200)
        let every = 5
        let global = Store(initialState: HubState(), reducer: hubReducer)
        let baseline = global.subscriberCount
        let watch = LeakWatch()
        var pageA: PageStore<LeafState, HubState>? = PageStore(
            global: global, initialState: { _ in LeafState() }, reducer: leafReducer)
        var pageB: PageStore<LeafState, HubState>? = PageStore(
            global: global, initialState: { _ in LeafState() }, reducer: leafReducer)
        watch.track(pageA!)
        watch.track(pageB!)
        let bumpProbe = CallProbe("page B's bumps")
        let fromBProbe = CallProbe("page A's global fromB")
        pageA!.consumer.add(\.ticks, owner: pageA!) { page, _, new in
            if new.isMultiple(of: every) { page.dispatchGlobal(HubAction.fromA) }
        }
        pageB!.globalConsumer.add(\.fromA, owner: pageB!) { page, _, _ in
            page.dispatch(LeafAction.bump)
        }
        pageB!.consumer.add(\.bumps, owner: pageB!) { page, old, new in
            bumpProbe.call(old: old, new: new)
            page.dispatchGlobal(HubAction.fromB)
        }
        pageA!.globalConsumer.add(\.fromB, owner: pageA!) { page, old, new in
            fromBProbe.call(old: old, new: new)
            page.dispatch(LeafAction.echo)
        }
        weak let a = pageA
        weak let b = pageB
        let rounds = 2 * perThread / every
        let finished = finishesWithoutDeadlock(within: 60) {
            let threads = [
                spawn { for _ in 0..<perThread { a?.dispatch(LeafAction.tick) } },
                spawn { for _ in 0..<perThread { a?.dispatch(LeafAction.tick) } },
                spawn { for _ in 0..<perThread { global.dispatch(HubAction.tick) } },
                spawn { for _ in 0..<perThread { global.dispatch(HubAction.tick) } },
                spawn { for _ in 0..<perThread { b?.dispatch(LeafAction.tick) } },
            ]
            for thread in threads { thread.wait() }
            if let store = a?.store {
                #expect(waitUntil(store) { $0.echoes == rounds }, "page A's echoes: \(store.state.echoes) of \(rounds)")
            }
        }
        guard finished else { return }
        #expect(pageA!.state == LeafState(ticks: 2 * perThread, bumps: 0, echoes: rounds))
        #expect(pageB!.state == LeafState(ticks: perThread, bumps: rounds, echoes: 0))
        #expect(global.state.ticks == 2 * perThread)
        #expect(global.state.fromA == rounds && global.state.fromB == rounds)
        #expect(bumpProbe.report == CallProbe.Report(calls: rounds, last: rounds))
        #expect(fromBProbe.report == CallProbe.Report(calls: rounds, last: rounds))
        pageA = nil
        pageB = nil
        #expect(watch.survivors.isEmpty, "outlived their release: \(watch.survivors)")
        #expect(global.subscriberCount == baseline)
    }

    /// "The actions one store's processing dispatches to another are reduced in the order it made
    /// them, whichever threads ran it": store A, fed by two threads, sends its counter to store B
    /// after every action; B is busy with two threads of its own and sends back to A.
    @Test func actionsOneStoreSendsAnotherKeepItsOrderWhileBothAreBusy() {
        let perThread = scaled(2_000, sanitized: 250)
        let left = Store(initialState: HubState(), reducer: hubReducer)
        let right = Store(initialState: HubState(), reducer: hubReducer)
        let toRight = StateConsumer<HubState>()
        toRight.add(\.ticks) { new in right.dispatch(HubAction.sequenced(new)) }
        let toLeft = StateConsumer<HubState>()
        toLeft.add(\.ticks) { new in
            if new.isMultiple(of: 7) { left.dispatch(HubAction.fromB) }
        }
        let subscriptions = [left.subscribe(toRight), right.subscribe(toLeft)]
        let total = 2 * perThread
        let finished = finishesWithoutDeadlock(within: 60) {
            let threads = [left, left, right, right].map { store in
                spawn { for _ in 0..<perThread { store.dispatch(HubAction.tick) } }
            }
            for thread in threads { thread.wait() }
            #expect(waitUntil(right) { $0.sequence.count == total })
            #expect(waitUntil(left) { $0.fromB == total / 7 })
        }
        guard finished else { return }
        let sequence = right.state.sequence
        let firstDisorder = zip(sequence, sequence.dropFirst()).first { $0.0 + 1 != $0.1 }
        #expect(sequence.count == total)
        #expect(firstDisorder == nil, "B reduced A's actions out of A's order at \(String(describing: firstDisorder))")
        for subscription in subscriptions { subscription.cancel() }
    }

    /// Two global stores whose middleware reads the other's state and dispatches into it, whose
    /// reducers read the other's state, from four threads.
    @Test func middlewareReadingAndDispatchingIntoEachOthersStoreFromFourThreads() {
        let perThread = scaled(2_000, sanitized: 250)
        let every = 4
        let links = (left: Lock<Store<HubState>?>(nil), right: Lock<Store<HubState>?>(nil))
        let reads = Lock(0)
        /// Reads the other store's state before and after the action (reads never wait).
        func reading(_ other: Lock<Store<HubState>?>) -> Middleware<HubState> {
            { _, _ in
                { next in
                    { action in
                        let before = other.withLock { $0 }?.state.ticks ?? 0
                        next(action)
                        let after = other.withLock { $0 }?.state.ticks ?? 0
                        if after >= before { reads.withLock { $0 += 1 } }
                    }
                }
            }
        }
        func mirroring(_ other: Lock<Store<HubState>?>) -> Middleware<HubState> {
            { _, getState in
                { next in
                    { action in
                        next(action)
                        if let tick = action as? HubAction, tick == .tick, let state = getState(),
                            state.ticks.isMultiple(of: every)
                        {
                            other.withLock { $0 }?.dispatch(HubAction.mirror)
                        }
                    }
                }
            }
        }
        func reducer(_ other: Lock<Store<HubState>?>) -> Reducer<HubState> {
            .combine(
                hubReducer,
                Reducer { (state, _: HubAction) in
                    if let otherStore = other.withLock({ $0 }) {
                        _ = otherStore.state
                        state.reads += 1
                    }
                })
        }
        let left = Store(
            initialState: HubState(), reducer: reducer(links.right),
            middleware: [reading(links.right), mirroring(links.right)])
        let right = Store(
            initialState: HubState(), reducer: reducer(links.left),
            middleware: [reading(links.left), mirroring(links.left)])
        links.right.withLock { $0 = right }
        links.left.withLock { $0 = left }
        defer {
            links.right.withLock { $0 = nil }
            links.left.withLock { $0 = nil }
        }
        let total = 2 * perThread
        let finished = finishesWithoutDeadlock(within: 60) {
            let threads = [left, right, left, right].map { store in
                spawn { for _ in 0..<perThread { store.dispatch(HubAction.tick) } }
            }
            for thread in threads { thread.wait() }
            #expect(waitUntil(left) { $0.mirrored == total / every })
            #expect(waitUntil(right) { $0.mirrored == total / every })
        }
        guard finished else { return }
        for store in [left, right] {
            #expect(store.state.ticks == total)
            #expect(store.state.mirrored == total / every)
            #expect(store.state.reads == total + total / every)
        }
        #expect(reads.withLock { $0 } == 2 * (total + total / every))
    }

    /// Requests (pages) created by two threads at a high rate and released by a third, while the
    /// global store is dispatched from another: nothing leaks, no call after the release, every
    /// member's chain intact, the global store's subscribers back at the baseline.
    @Test func requestPagesCreatedAndReleasedOnDifferentThreadsWhileTheGlobalStoreDispatches() {
        let perCreator = scaled(1_000, sanitized: 150)
        let global = Store(initialState: HubState(), reducer: hubReducer)
        let baseline = global.subscriberCount
        let watch = LeakWatch()
        let probes = Lock<[CallProbe]>([])
        let handoff = Handoff<RequestOwner>()
        let creatorsDone = Flag()
        let finished = finishesWithoutDeadlock(within: 60) {
            let dispatcher = spawn {
                while !creatorsDone.isSet { global.dispatch(HubAction.tick) }
            }
            let releaser = spawn {
                while let owner = handoff.take() {
                    let ownerProbes = [owner.globalProbe, owner.pageProbe]
                    weak let weakOwner = owner
                    _ = consume owner
                    // A global call in progress may hold the owner (the `owner:` form): then
                    // its release, and the page's, happen on the dispatching thread.
                    probes.withLock { $0 += ownerProbes }
                    _ = weakOwner
                }
            }
            let creators = (0..<2).map { index in
                spawn {
                    for round in 0..<perCreator {
                        handoff.put(
                            RequestOwner(global: global, forwards: (round + index).isMultiple(of: 2), watch: watch))
                    }
                }
            }
            for creator in creators { creator.wait() }
            handoff.finish()
            releaser.wait()
            creatorsDone.set()
            dispatcher.wait()
        }
        guard finished else { return }
        let all = probes.withLock { $0 }
        let late = all.filter { $0.report.lateCalls > 0 }.map { "\($0.name): \($0.report)" }
        let disordered = all.filter { $0.report.disorders > 0 }.map { "\($0.name): \($0.report)" }
        #expect(late.isEmpty, "called after the release: \(late.prefix(5))")
        #expect(disordered.isEmpty, "old not the previous new: \(disordered.prefix(5))")
        #expect(all.count == 4 * perCreator)
        #expect(watch.survivors.isEmpty, "\(watch.survivors.count) pages outlived their owners")
        #expect(global.subscriberCount == baseline)
        // What the global store still walks: nothing of the released pages.
        let ticks = global.state.ticks
        global.dispatch(HubAction.tick)
        #expect(global.state.ticks == ticks + 1)
    }

    /// Pages closed from inside a callback of the global store that feeds them (forwarded
    /// actions), while two threads dispatch to the global store and one to the pages: no call of a
    /// page's consumer starts after its close returned, no forwarded action is reduced after it.
    @Test func pagesClosedFromInsideTheGlobalCallbackThatFeedsThem() {
        let pageCount = scaled(40, sanitized: 10)
        let perThread = scaled(1_500, sanitized: 200)
        let global = Store(initialState: HubState(), reducer: hubReducer)
        let baseline = global.subscriberCount
        let watch = LeakWatch()
        var pages: [PageStore<LeafState, HubState>] = []
        var probes: [CallProbe] = []
        let frozen = Lock<[Int: LeafState]>([:])
        for index in 0..<pageCount {
            let page = PageStore(global: global, initialState: { _ in LeafState() }, reducer: leafReducer)
            watch.track(page)
            page.forwardActions { $0 is HubAction }
            let probe = CallProbe("consumer of a page closed from a global callback", .forward)
            page.consumer.add(\.forwarded) { old, new in probe.call(old: old, new: new) }
            // Closes from the global store's pass, on whichever thread runs it.
            let closeAt = 50 + index * perThread / pageCount
            page.globalConsumer.add(\.ticks, owner: page) { page, _, new in
                if new == closeAt {
                    page.close()
                    probe.removed()
                    frozen.withLock { $0[index] = page.state }
                }
            }
            pages.append(page)
            probes.append(probe)
        }
        let closedPages = Lock(pages)
        let finished = finishesWithoutDeadlock(within: 60) {
            let threads = [
                spawn { for _ in 0..<perThread { global.dispatch(HubAction.tick) } },
                spawn { for _ in 0..<perThread { global.dispatch(HubAction.tick) } },
                spawn {
                    for round in 0..<perThread {
                        closedPages.withLock { $0[round % $0.count] }.dispatch(LeafAction.tick)
                    }
                },
            ]
            for thread in threads { thread.wait() }
        }
        closedPages.withLock { $0 = [] }
        guard finished else { return }
        #expect(pages.allSatisfy { $0.isClosed })
        let late = probes.filter { $0.report.lateCalls > 0 }.map(\.report)
        #expect(late.isEmpty, "page consumers called after close returned: \(late)")
        #expect(probes.allSatisfy { $0.report.disorders == 0 })
        let states = frozen.withLock { $0 }
        for (index, page) in pages.enumerated() {
            #expect(page.state == states[index], "page \(index) changed after its close returned")
        }
        pages = []
        #expect(watch.survivors.isEmpty, "\(watch.survivors)")
        #expect(global.subscriberCount == baseline)
    }

    /// A callback of store A removes a member of store B whose call is running on another thread
    /// (busy, not waiting inside the library): the removal must wait for it (the exception is only
    /// for a thread itself waiting inside the library), and the member is never called again.
    @Test func aRemovalFromAnotherStoresCallbackWaitsForTheRunningCall() {
        let rounds = scaled(10, sanitized: 4)
        for _ in 0..<rounds {
            let left = makeStore()
            let right = makeStore()
            let consumer = StateConsumer<AppState>()
            let running = Lock(false)
            let entered = DispatchSemaphore(value: 0)
            let removalReturned = Flag()
            let probe = CallProbe("member of B removed from A's callback")
            let sawRunning = Flag()
            let token = consumer.add(\.counter) { old, new in
                probe.call(old: old, new: new)
                running.withLock { $0 = true }
                entered.signal()
                // Busy for a while, or until the removal returned (which it must not do while
                // this runs): bounded, so a correct removal returns.
                for _ in 0..<5_000 where !removalReturned.isSet { sched_yield() }
                running.withLock { $0 = false }
            }
            let subscription = right.subscribe(consumer)
            let remover = StateConsumer<AppState>()
            remover.add(\.counter) { _ in
                token.cancel()
                if running.withLock({ $0 }) { sawRunning.set() }
                probe.removed()
                removalReturned.set()
            }
            let removerSubscription = left.subscribe(remover)
            let finished = finishesWithoutDeadlock(within: 20) {
                let busy = spawn { right.dispatch(CounterAction.increment) }
                entered.wait()
                left.dispatch(CounterAction.increment)
                busy.wait()
                right.dispatch(CounterAction.increment)
            }
            guard finished else { return }
            #expect(!sawRunning.isSet, "the removal returned while the removed callback was running")
            #expect(probe.report.lateCalls == 0)
            subscription.cancel()
            removerSubscription.cancel()
        }
    }

    /// Sessions: each holds a bag with a closure subscription on one store, a consumer
    /// subscription on another and a token of a shared consumer; created on two threads, released
    /// on a third, while both stores are dispatched. Every removed registration's chain intact and
    /// never called after its bag was released.
    @Test func sessionBagsReleasedOnAnotherThreadAcrossTwoBusyStores() {
        let perCreator = scaled(1_000, sanitized: 150)
        let first = makeStore()
        let second = makeStore()
        let shared = StateConsumer<AppState>()
        let sharedSubscription = first.subscribe(shared)
        let baselines = (first.subscriberCount, second.subscriberCount)
        let watch = LeakWatch()
        let probes = Lock<[CallProbe]>([])
        let handoff = Handoff<SessionOwner>()
        let creatorsDone = Flag()
        let finished = finishesWithoutDeadlock(within: 60) {
            let dispatchers = [first, second].map { store in
                spawn { while !creatorsDone.isSet { store.dispatch(CounterAction.increment) } }
            }
            let releaser = spawn {
                while let session = handoff.take() {
                    // Its deinit (here, or on the creating thread if that one still held it)
                    // releases the bag, then marks the probes.
                    probes.withLock { $0 += session.probes }
                }
            }
            let creators = (0..<2).map { _ in
                spawn {
                    for _ in 0..<perCreator {
                        handoff.put(SessionOwner(first: first, second: second, shared: shared, watch: watch))
                    }
                }
            }
            for creator in creators { creator.wait() }
            handoff.finish()
            releaser.wait()
            creatorsDone.set()
            for dispatcher in dispatchers { dispatcher.wait() }
        }
        guard finished else { return }
        let all = probes.withLock { $0 }
        let late = all.filter { $0.report.lateCalls > 0 }.map { "\($0.name): \($0.report)" }
        let disordered = all.filter { $0.report.disorders > 0 }.map { "\($0.name): \($0.report)" }
        #expect(late.isEmpty, "called after the bag's release returned: \(late.prefix(5))")
        #expect(disordered.isEmpty, "\(disordered.prefix(5))")
        #expect(watch.survivors.isEmpty, "\(watch.survivors.count) outlived their session")
        #expect(first.subscriberCount == baselines.0 && second.subscriberCount == baselines.1)
        #expect(shared.count == 0)
        sharedSubscription.cancel()
    }

    /// A page's global consumer, running on the global store's thread, closes its page while a
    /// plain thread is closing it too (and waits for that very callback): no deadlock, both
    /// return, and nothing of the page is called after the plain thread's close returned.
    @Test func aPageClosedFromItsOwnCallbackWhileAnotherThreadClosesIt() {
        let rounds = scaled(30, sanitized: 8)
        for _ in 0..<rounds {
            let global = Store(initialState: HubState(), reducer: hubReducer)
            let baseline = global.subscriberCount
            let watch = LeakWatch()
            var page: PageStore<LeafState, HubState>? = PageStore(
                global: global, initialState: { _ in LeafState() }, reducer: leafReducer)
            watch.track(page!)
            let entered = DispatchSemaphore(value: 0)
            let probe = CallProbe("the page's global member")
            page!.globalConsumer.add(\.ticks, owner: page!) { page, old, new in
                probe.call(old: old, new: new)
                entered.signal()
                spin { page.isClosed }  // the plain thread's close began
                page.close()
            }
            weak let weakPage = page
            let finished = finishesWithoutDeadlock(within: 20) {
                let busy = spawn { global.dispatch(HubAction.tick) }
                entered.wait()
                weakPage?.close()
                probe.removed()
                global.dispatch(HubAction.tick)
                busy.wait()
            }
            guard finished else { return }
            #expect(probe.report.lateCalls == 0)
            page = nil
            #expect(watch.survivors.isEmpty)
            #expect(global.subscriberCount == baseline)
        }
    }

    /// Two pages whose consumers, running at the same time on two threads, close each other.
    @Test func twoPagesWhoseCallbacksCloseEachOtherOnTwoThreads() {
        let rounds = scaled(30, sanitized: 8)
        for _ in 0..<rounds {
            let global = Store(initialState: HubState(), reducer: hubReducer)
            let watch = LeakWatch()
            var pages: [PageStore<LeafState, HubState>]? = (0..<2).map { _ in
                PageStore(global: global, initialState: { _ in LeafState() }, reducer: leafReducer)
            }
            for page in pages! { watch.track(page) }
            let arrived = Lock(0)
            let probes = [CallProbe("page 0's member"), CallProbe("page 1's member")]
            let closeReturned = [Flag(), Flag()]
            for index in 0..<2 {
                weak let other = pages![1 - index]
                let probe = probes[index]
                let returned = closeReturned[1 - index]
                pages![index].consumer.add(\.ticks) { old, new in
                    probe.call(old: old, new: new)
                    arrived.withLock { $0 += 1 }
                    spin { arrived.withLock { $0 } >= 2 }  // both callbacks are running
                    other?.close()
                    returned.set()
                }
            }
            weak let first = pages![0]
            weak let second = pages![1]
            let finished = finishesWithoutDeadlock(within: 20) {
                // Weak all the way: a thread's block may outlive the thread's signal.
                let threads = [
                    spawn { first?.dispatch(LeafAction.tick) },
                    spawn { second?.dispatch(LeafAction.tick) },
                ]
                for thread in threads { thread.wait() }
            }
            guard finished else { return }
            #expect(closeReturned.allSatisfy { $0.isSet })
            #expect(pages!.allSatisfy { $0.isClosed })
            pages = nil
            #expect(watch.survivors.isEmpty)
            #expect(global.subscriberCount == 0)
        }
    }

    /// Two threads empty the same consumer with `removeAll()` while one of its members runs on a
    /// third: each removal returns only once that call is over.
    @Test func twoConcurrentRemoveAllsBothWaitForTheRunningCall() {
        let rounds = scaled(10, sanitized: 4)
        for _ in 0..<rounds {
            let store = makeStore()
            let consumer = StateConsumer<AppState>()
            let running = Lock(false)
            let entered = DispatchSemaphore(value: 0)
            let returned = Flag()
            let sawRunning = Lock(0)
            consumer.add(\.counter) { _ in
                running.withLock { $0 = true }
                entered.signal()
                for _ in 0..<5_000 where !returned.isSet { sched_yield() }
                running.withLock { $0 = false }
            }
            let subscription = store.subscribe(consumer)
            let finished = finishesWithoutDeadlock(within: 20) {
                let busy = spawn { store.dispatch(CounterAction.increment) }
                entered.wait()
                let removers = (0..<2).map { _ in
                    spawn {
                        consumer.removeAll()
                        if running.withLock({ $0 }) { sawRunning.withLock { $0 += 1 } }
                        returned.set()
                    }
                }
                for remover in removers { remover.wait() }
                busy.wait()
            }
            guard finished else { return }
            #expect(sawRunning.withLock { $0 } == 0, "a removeAll() returned while the removed call ran")
            subscription.cancel()
        }
    }

    /// Guarantee 1: "Once a removal returns — … a `ConsumerBag` emptied or released … — what it
    /// removed is never started again, on any thread". Two places empty one bag at once (a
    /// request's teardown and its session's): the second `removeAll()` waits for the first, which
    /// is still cancelling (waiting for a call in progress). (It returned at once, and the bag's
    /// member was called after it.)
    @Test func aSecondRemoveAllOfABagWaitsForTheFirst() {
        let busyStore = makeStore()
        let target = makeStore()
        let bag = ConsumerBag()
        let entered = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        // First in the bag: a closure subscriber whose call is running on another thread, so the
        // first emptying waits for it (as guarantee 1 says it must).
        busyStore.subscribe { _, _ in
            entered.signal()
            go.wait()
        }
        .store(in: bag)
        let consumer = StateConsumer<AppState>()
        let probe = CallProbe("member whose token is in the bag")
        consumer.add(\.counter) { old, new in probe.call(old: old, new: new) }.store(in: bag)
        let subscription = target.subscribe(consumer)
        let secondReturned = DispatchSemaphore(value: 0)
        // Set before the first emptying's cancellation can end: the second, which must wait for
        // that emptying, can only return after it.
        let released = Flag()
        let returnedEarly = Flag()
        let finished = finishesWithoutDeadlock(within: 20) {
            let busy = spawn { busyStore.dispatch(CounterAction.increment) }
            entered.wait()
            let first = spawn {
                bag.removeAll()  // waits for the closure subscriber's call in progress
            }
            spin { bag.isEmpty }  // the first emptying took the bag's items
            let second = spawn {
                bag.removeAll()
                probe.removed()
                if !released.isSet { returnedEarly.set() }
                target.dispatch(CounterAction.increment)
                secondReturned.signal()
            }
            // The second waits for the first, which waits for `go` (or it returned early): go on.
            spin { bag.waitingEmptyings == 1 || secondReturned.wait(timeout: .now()) == .success }
            released.set()
            go.signal()
            for thread in [second, first, busy] { thread.wait() }
        }
        guard finished else { return }
        #expect(!returnedEarly.isSet, "bag.removeAll() returned while the bag's registrations were still live")
        #expect(probe.report.lateCalls == 0, "the bag's member was called after removeAll() returned: \(probe.report)")
        subscription.cancel()
    }
}

/// A session: a bag holding a closure subscription on `first`, a consumer subscription on
/// `second` and a token of `shared` (subscribed to `first`).
private final class SessionOwner: Sendable {
    private let held = Lock<ConsumerBag?>(ConsumerBag())
    let probes: [CallProbe]

    deinit {
        held.withLock { $0 = nil }  // the bag's release: it cancels everything it holds
        for probe in probes { probe.removed() }
    }

    init(first: Store<AppState>, second: Store<AppState>, shared: StateConsumer<AppState>, watch: LeakWatch) {
        let closure = CallProbe("closure subscriber in a session bag")
        let own = CallProbe("own consumer's member in a session bag")
        let sharedMember = CallProbe("shared consumer's member in a session bag")
        probes = [closure, own, sharedMember]
        let bag = held.withLock { $0! }
        first.subscribe { old, new in closure.call(old: old.counter, new: new.counter) }.store(in: bag)
        let consumer = StateConsumer<AppState>()
        watch.track(consumer)
        consumer.add(\.counter) { old, new in own.call(old: old, new: new) }.store(in: bag)
        second.subscribe(consumer).store(in: bag)
        shared.add(\.counter) { old, new in sharedMember.call(old: old, new: new) }.store(in: bag)
        watch.track(bag)
    }
}
