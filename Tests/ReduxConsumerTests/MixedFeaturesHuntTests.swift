import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Features that meet: pages that read and dispatch to the global store while they close, owners
/// released while their members' calls are in flight, bags emptied while members on queues and
/// actors fire, derived values of pages, streams, effects and stores that call into each other.
struct MixedFeaturesHuntTests {
    /// The lifetime rule: "an `owner:` member never keeps its owner alive", and G1: "an `owner:`
    /// member is inert from the moment its owner is released". A member on a busy actor whose call
    /// is already on its way there (posted, the pump waiting for the actor) must neither keep its
    /// owner alive nor be called with it once the owner's last reference is dropped. Before the
    /// fix, the pump took the owner strongly before hopping to the actor: the owner lived on until
    /// the actor was free, and was then handed to the callback. The same for a derived value.
    @Test(.serialized, arguments: [false, true])
    func anOwnerReleasedWhileItsMembersCallWaitsForABusyActorIsFreedAndNotCalled(derived: Bool) async {
        final class Weak: @unchecked Sendable {
            // @unchecked: written before the scenario's thread starts, read after it returned.
            weak var owner: LoggingOwner?
        }
        let store = makeStore()
        let consumer = StateConsumer<AppState>()
        let calls = Recorder<Int>()
        let weak = Weak()
        let ownerSlot = Slot<LoggingOwner?>(LoggingOwner(log: Recorder()))
        weak.owner = ownerSlot.value
        if derived {
            let doubled = Derived(\AppState.counter) { $0 * 2 }
            consumer.add(doubled, owner: ownerSlot.value!, on: MixedHeldActor.shared) { @MixedHeldActor _, _, new in
                calls.append(new)
            }
        } else {
            consumer.add(\.counter, owner: ownerSlot.value!, on: MixedHeldActor.shared) { @MixedHeldActor _, _, new in
                calls.append(new)
            }
        }
        let subscription = store.subscribe(consumer)
        // Blocking waits run on a thread of their own, never in the cooperative pool.
        let finished = await finishesWithoutDeadlock(within: 30) {
            let (arrived, aliveWhileWaiting) = await onAThreadOfItsOwn { () -> (Bool, Bool) in
                let holding = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                MixedHeldActor.queue.async {
                    holding.signal()
                    release.wait()
                }
                holding.wait()  // the actor is busy from here…
                store.dispatch(CounterAction.increment)
                // The member's call has reached the actor: the pump looked at the owner first.
                let arrived = waitCountingFairTime(for: MixedHeldActor.executor.jobArrived, seconds: 30)
                ownerSlot.value = nil  // the owner's last reference outside the library
                let alive = weak.owner != nil
                release.signal()  // …to here
                MixedHeldActor.queue.sync {}  // the call's job, enqueued before this one, has run
                return (arrived, alive)
            }
            #expect(arrived)
            #expect(!aliveWhileWaiting, "the member's call waiting for the actor kept its owner alive")
        }
        guard finished else { return }
        #expect(calls.values == [], "the member was called after its owner was released")
        #expect(weak.owner == nil)
        subscription.cancel()
    }

    /// G1 and G3 across pages, derived values, streams, effects, owners and actors: rounds of a
    /// page on one global store, whose global consumer watches a derived value of the global state
    /// (synchronously, on a queue or on an actor, for an owner), whose page consumer does too,
    /// whose effect sends to the page and reads its state, whose middleware dispatches to the
    /// global store, and whose global changes are streamed; one thread dispatches to the global
    /// store, one to the page, one closes the page at a random moment. No member is called after
    /// the close returned, every member's and the stream's values chain, the stream finishes, and
    /// the page, its owner and its consumers are freed; the global store counts what it counted.
    @Test func pagesWithDerivedMembersStreamsAndEffectsCloseWhileTheGlobalStoreDispatches() async {
        let global = makeRootStore()
        let baseline = global.subscriberCount
        let violations = Recorder<String>()
        let leaks = LeakWatch()
        let userLength = Derived(\RootState.auth.user) { $0?.count ?? -1 }
        let rounds = scaled(40, sanitized: 10)
        let queue = DispatchQueue(label: "MixedFeaturesHuntTests.pages")
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                var random = SplitMix64(seed: UInt64(round) &+ 0x5EED)
                let owner = leaks.track(LoggingOwner(log: Recorder()))
                let relay: Middleware<MainState> = { dispatch, _ in
                    { next in
                        { action in
                            next(action)
                            if case .set(let value) = action as? MainAction, value.isMultiple(of: 4) {
                                dispatch(LifecycleAction.enterForeground)
                            }
                        }
                    }
                }
                let effect = Effect<MainState>.on(MainAction.self, when: { $0 == .increment }) { _, context in
                    for value in 100..<103 {
                        guard let state = context.state, state.count < 1_000 else { return }
                        await context.send(MainAction.set(value))
                    }
                }
                let page = leaks.track(
                    PageStore(
                        global: global,
                        initialState: { _ in MainState(count: 0) },
                        reducer: mainReducer,
                        middleware: [relay],
                        effects: [effect],
                        deliveringOn: round.isMultiple(of: 3) ? queue : nil,
                        diagnostics: { _ in }
                    ))
                page.forwardActions { $0 is AuthAction }
                let probes = [
                    Probe("round \(round) global derived", violations),
                    Probe("round \(round) global derived on an actor", violations),
                    Probe("round \(round) page count", violations),
                    Probe("round \(round) page count on an actor", violations),
                ]
                page.globalConsumer.add(userLength, owner: owner) { _, old, new in probes[0].call(old, new) }
                page.globalConsumer.add(userLength, owner: owner, on: MixedActorX.shared) {
                    @MixedActorX _, old, new in probes[1].call(old, new)
                }
                page.consumer.add(\.count, owner: owner) { _, old, new in probes[2].call(old, new) }
                page.consumer.add(\.count, owner: owner, on: MixedActorY.shared) {
                    @MixedActorY _, old, new in probes[3].call(old, new)
                }
                let stream = page.globalChanges(of: userLength)
                let streamProbe = Probe("round \(round) stream", violations)
                let reader = Task {
                    for await change in stream { streamProbe.call(change.old, change.new) }
                }
                let closeAfter = Int(random.next() % 12)
                let names = (0..<8).map { _ in String(repeating: "u", count: Int(random.next() % 5)) }
                let threads = [
                    spawn {
                        for (index, name) in names.enumerated() {
                            global.dispatch(index.isMultiple(of: 3) ? AuthAction.logOut : AuthAction.logIn(name))
                            global.dispatch(
                                index.isMultiple(of: 2)
                                    ? LifecycleAction.enterBackground : LifecycleAction.enterForeground)
                        }
                    },
                    spawn {
                        for value in 0..<8 {
                            page.dispatch(value.isMultiple(of: 3) ? MainAction.increment : MainAction.set(value))
                            page.dispatchGlobal(AuthAction.logIn(String(repeating: "p", count: value % 4)))
                        }
                    },
                    spawn {
                        for step in 0..<12 {
                            if step == closeAfter {
                                page.close()
                                for probe in probes { probe.markRemoved() }
                            }
                            global.dispatch(AuthAction.logIn(String(repeating: "c", count: step % 6)))
                        }
                    },
                ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                }
                await reader.value
                await page.effectsIdleWithoutThePage()
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        // The actors' pumps may still be letting go of their last calls of a gone owner.
        for _ in 0..<1_000 where !leaks.survivors.isEmpty { await Task.yield() }
        #expect(leaks.survivors == [])
        #expect(global.subscriberCount == baseline)
    }

    /// G1, G3 and G4 where two stores call into each other: store A's members (synchronous, on a
    /// queue, on an actor) dispatch to B, B's dispatch back to A (bounded by the values), while
    /// three threads dispatch to both; the registrations of each round live in one bag, emptied
    /// by two threads at once (one waits for the other, per the bag's rule) while a third
    /// releases the owner of some of them. No member starts after an emptying from a plain thread
    /// returned, every chain holds, nothing deadlocks, and both stores end with no consumer left.
    @Test func storesCallingIntoEachOtherWhileABagOfQueueAndActorMembersIsEmptiedTwice() async {
        let first = makeStore()
        let second = makeStore()
        let baselines = (first.subscriberCount, second.subscriberCount)
        let violations = Recorder<String>()
        let leaks = LeakWatch()
        let rounds = scaled(40, sanitized: 10)
        let queue = DispatchQueue(label: "MixedFeaturesHuntTests.bag")
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let bag = ConsumerBag()
                let owner = leaks.track(LoggingOwner(log: Recorder()))
                let ownerSlot = Slot<LoggingOwner?>(owner)
                var probes: [Probe] = []
                func probe(_ name: String) -> Probe {
                    let probe = Probe("round \(round) \(name)", violations)
                    probes.append(probe)
                    return probe
                }
                for (store, other, name) in [(first, second, "first"), (second, first, "second")] {
                    let plain = StateConsumer<AppState>()
                    let queued = StateConsumer<AppState>(deliveringOn: queue)
                    let (p0, p1, p2, p3) = (
                        probe("\(name) plain"), probe("\(name) queued"), probe("\(name) actor"),
                        probe("\(name) owner")
                    )
                    plain.add(\.counter) { old, new in
                        p0.call(old, new)
                        if new.isMultiple(of: 5), other.state.counter < 400 { other.dispatch(CounterAction.increment) }
                    }
                    .store(in: bag)
                    queued.add(\.counter) { old, new in
                        p1.call(old, new)
                        if new.isMultiple(of: 7), other.state.counter < 400 { other.dispatch(CounterAction.increment) }
                    }
                    .store(in: bag)
                    queued.add(\.counter, on: MixedActorX.shared) { @MixedActorX old, new in
                        p2.call(old, new)
                        if new.isMultiple(of: 11), other.state.counter < 400 { other.dispatch(CounterAction.increment) }
                    }
                    .store(in: bag)
                    plain.add(\.counter, owner: owner, on: MixedActorY.shared) { @MixedActorY _, old, new in
                        p3.call(old, new)
                    }
                    .store(in: bag)
                    store.subscribe(plain).store(in: bag)
                    store.subscribe(queued).store(in: bag)
                }
                let emptyAfter = round % 6
                let threads = [
                    spawn { for _ in 0..<12 { first.dispatch(CounterAction.increment) } },
                    spawn { for _ in 0..<12 { second.dispatch(CounterAction.increment) } },
                    spawn {
                        for step in 0..<8 {
                            if step == emptyAfter { bag.removeAll() }
                            first.dispatch(CounterAction.decrement)
                        }
                    },
                    spawn {
                        for step in 0..<8 {
                            if step == emptyAfter { ownerSlot.value = nil }
                            second.dispatch(CounterAction.decrement)
                        }
                    },
                ]
                // A plain thread: once its emptying returned, the earlier one on the other thread
                // is done too, and nothing in the bag starts again.
                let allProbes = probes
                await onAThreadOfItsOwn {
                    for _ in 0..<emptyAfter { first.dispatch(CounterAction.increment) }
                    bag.removeAll()
                    for probe in allProbes { probe.markRemoved() }
                    for thread in threads { thread.wait() }
                }
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        #expect(first.subscriberCount == baselines.0 && second.subscriberCount == baselines.1)
        for _ in 0..<1_000 where !leaks.survivors.isEmpty { await Task.yield() }
        #expect(leaks.survivors == [])
    }

    /// G1, G4 and G5 for a page delivering on a queue whose owner is released from inside one of
    /// the page's own calls on that queue (the call holds the last reference): the page is closed
    /// by its release from inside its consumer's call, while another thread dispatches to the
    /// global store and a third to the page. Nothing deadlocks, nothing is called for the owner
    /// after the call that released it, and the screen, its page and the page's store are freed;
    /// the global store counts what it counted.
    @Test func aQueuedPageReleasedByItsOwnCallOnTheQueueFreesEverything() async {
        final class Screen: Sendable {
            let page: PageStore<MainState, RootState>
            let released: Lock<Bool> = Lock(false)
            init(_ page: PageStore<MainState, RootState>) { self.page = page }
        }
        final class Weak: @unchecked Sendable {
            // @unchecked: written before the threads start, read after they are joined.
            weak var page: PageStore<MainState, RootState>?
        }
        let global = makeRootStore()
        let baseline = global.subscriberCount
        let violations = Recorder<String>()
        let leaks = LeakWatch()
        let rounds = scaled(100, sanitized: 20)
        let releasedByCalls = Recorder<Int>()
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let queue = DispatchQueue(label: "MixedFeaturesHuntTests.release.\(round)")
                let page = PageStore(
                    global: global, initialState: { _ in MainState(count: 0) }, reducer: mainReducer,
                    deliveringOn: queue, diagnostics: { _ in })
                let weak = Weak()
                weak.page = page
                let slot = Slot<Screen?>(leaks.track(Screen(page)))
                leaks.track(page)
                let fromGlobal = round.isMultiple(of: 2)
                let release: @Sendable (Screen) -> Void = { screen in
                    if screen.released.withLock({ $0 }) {
                        violations.append("round \(round): called after the call that released the screen")
                    }
                    screen.released.withLock { $0 = true }
                    releasedByCalls.append(round)
                    slot.value = nil
                }
                page.consumer.add(\.count, owner: slot.value!) { screen, _, new in
                    if !fromGlobal, new >= 3 { release(screen) }
                }
                page.globalConsumer.add(\.foreground, owner: slot.value!) { screen, _, _ in
                    if fromGlobal { release(screen) }
                }
                page.forwardActions { _ in true }
                let threads = [
                    spawn {
                        for index in 0..<6 {
                            global.dispatch(
                                index.isMultiple(of: 2)
                                    ? LifecycleAction.enterForeground : LifecycleAction.enterBackground)
                        }
                    },
                    spawn {
                        for _ in 0..<6 { weak.page?.dispatch(MainAction.increment) }
                    },
                ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                    queue.sync {}
                }
                if slot.value != nil {
                    // Not released by a call this round (the value never got there): let go here.
                    slot.value = nil
                }
                await onAThreadOfItsOwn { queue.sync {} }
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        #expect(releasedByCalls.count > rounds / 2, "\(releasedByCalls.count) of \(rounds) released by a call")
        for _ in 0..<1_000 where !leaks.survivors.isEmpty { await Task.yield() }
        #expect(leaks.survivors == [])
        #expect(global.subscriberCount == baseline)
    }

    /// G3 and G7 for derived values on a consumer that moves between two stores while both are
    /// dispatched: a derived value, one derived from it, and the same derived value on a queue,
    /// each shared with a steady consumer of each store (one read per store, cached per store).
    /// The mover's members chain across the moves and never fire without a change; the steady
    /// consumers' members chain too.
    @Test func derivedMembersOfAConsumerMovingBetweenTwoBusyStoresKeepTheirChains() async {
        let violations = Recorder<String>()
        let third = Derived(\AppState.counter) { $0 / 3 }
        let parity = Derived(third) { $0 % 2 }
        let first = makeStore()
        let second = makeStore(AppState(counter: 1_000))
        let queue = DispatchQueue(label: "MixedFeaturesHuntTests.mover")
        let mover = StateConsumer<AppState>()
        let queued = StateConsumer<AppState>(deliveringOn: queue)
        let probes = (0..<4).map { Probe("mover \($0)", violations) }
        mover.add(third) { old, new in probes[0].call(old, new) }
        mover.add(parity) { old, new in probes[1].call(old, new) }
        queued.add(third) { old, new in probes[2].call(old, new) }
        queued.add(parity) { old, new in probes[3].call(old, new) }
        var steady: [Subscription] = []
        for (index, store) in [first, second].enumerated() {
            let consumer = StateConsumer<AppState>()
            let a = Probe("steady \(index) third", violations)
            let b = Probe("steady \(index) parity", violations)
            consumer.add(third) { old, new in a.call(old, new) }
            consumer.add(parity) { old, new in b.call(old, new) }
            steady.append(store.subscribe(consumer))
        }
        let moves = scaled(150, sanitized: 40)
        let finished = await finishesWithoutDeadlock(within: 60) {
            let stop = Slot(false)
            let threads = [
                spawn { while !stop.value { first.dispatch(CounterAction.increment) } },
                spawn { while !stop.value { second.dispatch(CounterAction.decrement) } },
                spawn {
                    var random = SplitMix64(seed: 0xD0E5)
                    for move in 0..<moves {
                        let store = move.isMultiple(of: 2) ? first : second
                        let subscriptions = [store.subscribe(mover), store.subscribe(queued)]
                        for _ in 0..<Int(random.next() % 3) { store.dispatch(CounterAction.increment) }
                        for subscription in subscriptions.shuffled(using: &random) { subscription.cancel() }
                    }
                    stop.value = true
                },
            ]
            await onAThreadOfItsOwn {
                for thread in threads { thread.wait() }
                queue.sync {}
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        for subscription in steady { subscription.cancel() }
    }

    /// G1 and G4: a page's callback makes the page's global consumer (its first use subscribes it
    /// to the busy global store) and adds members to it, while a global callback on another thread
    /// closes the page, which waits for that page callback. Nothing deadlocks; no member added to
    /// the global consumer is called after the close returned, and the global store counts what it
    /// counted before.
    @Test func aPageCallbackSubscribingToTheGlobalStoreWhileAGlobalCallbackClosesThePage() async {
        let global = makeRootStore()
        let baseline = global.subscriberCount
        let violations = Recorder<String>()
        let rounds = scaled(80, sanitized: 20)
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let page = PageStore(
                    global: global, initialState: { _ in MainState(count: 0) }, reducer: mainReducer,
                    diagnostics: { _ in })
                let probes = Recorder<Probe>()
                let closed = Slot(false)
                page.consumer.add(\.count) { _, new in
                    let probe = Probe("round \(round) global member \(new)", violations)
                    probes.append(probe)
                    page.globalConsumer.add(\.auth.user) { old, new in
                        probe.call(old?.count ?? -1, new?.count ?? -1)
                    }
                    if new == 2 { page.dispatchGlobal(AuthAction.logIn("page")) }
                }
                let closer = global.subscribe { _, new in
                    if new.auth.user?.count == round % 4 + 1, !closed.value {
                        page.close()
                        for probe in probes.values { probe.markRemoved() }
                        closed.value = true
                    }
                }
                let threads = [
                    spawn { for _ in 0..<4 { page.dispatch(MainAction.increment) } },
                    spawn {
                        for length in 1...5 { global.dispatch(AuthAction.logIn(String(repeating: "g", count: length))) }
                    },
                ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                }
                closer.cancel()
                page.close()
                for probe in probes.values { probe.markRemoved() }
                global.dispatch(AuthAction.logOut)
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        #expect(global.subscriberCount == baseline)
    }

    /// G1 and G2: a global action listener adds `.instantly` members to a page's global consumer
    /// (their first call comes inside `add`, between actions) while another thread closes the page
    /// and a third dispatches to the global store. Once the close returned, no member of the
    /// page's global consumer, added before or after, is called; each one's first call is its
    /// instant call (`old == new`), and its values chain.
    @Test func instantMembersAddedByAGlobalListenerWhileThePageCloses() async {
        let global = makeRootStore()
        let baseline = global.subscriberCount
        let violations = Recorder<String>()
        let rounds = scaled(100, sanitized: 25)
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let page = PageStore(
                    global: global, initialState: { _ in MainState(count: 0) }, reducer: mainReducer,
                    diagnostics: { _ in })
                let closedAt = Slot<Int?>(nil)
                let calls = Recorder<String>()
                let added = Slot(0)
                let listener = global.observeActions { _ in
                    added.value += 1
                    let member = added.value
                    let firstSeen = Slot(true)
                    page.globalConsumer.add(\.auth.user, options: .instantly) { old, new in
                        if closedAt.value != nil { calls.append("member \(member) called after the close") }
                        if firstSeen.value, old != new {
                            calls.append("member \(member): first call \(old ?? "nil") → \(new ?? "nil")")
                        }
                        firstSeen.value = false
                    }
                }
                let threads = [
                    spawn {
                        for length in 1...6 { global.dispatch(AuthAction.logIn(String(repeating: "l", count: length))) }
                    },
                    spawn {
                        for _ in 0..<round % 5 { page.dispatch(MainAction.increment) }
                        page.close()
                        closedAt.value = added.value
                    },
                ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                }
                listener.cancel()
                for call in calls.values { violations.append("round \(round): \(call)") }
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        #expect(global.subscriberCount == baseline)
    }

    /// G1 and G4: a page closed at once by a plain thread and by its own consumers' calls on an
    /// actor and on its queue (each close made there waits for the one in progress, which waits
    /// for the calls); and a bag emptied at once by a plain thread and by a member's call on an
    /// actor. Nothing deadlocks, and nothing is called once the plain thread's close or emptying
    /// returned.
    @Test func aPageAndABagEndedAtOnceByAPlainThreadAndByCallsOnAnActorAndAQueue() async {
        let global = makeRootStore()
        let baseline = global.subscriberCount
        let violations = Recorder<String>()
        let rounds = scaled(60, sanitized: 15)
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let queue = DispatchQueue(label: "MixedFeaturesHuntTests.ended.\(round)")
                let page = PageStore(
                    global: global, initialState: { _ in MainState(count: 0) }, reducer: mainReducer,
                    deliveringOn: round.isMultiple(of: 2) ? queue : nil, diagnostics: { _ in })
                let bag = ConsumerBag()
                let store = makeStore()
                let ended = Slot(false)
                let trigger = round % 3 + 1
                page.consumer.add(\.count, on: MixedActorX.shared) { @MixedActorX _, new in
                    if ended.value {
                        violations.append("round \(round): page member on an actor called after the close")
                    }
                    if new >= trigger { page.close() }
                }
                page.consumer.add(\.count) { _, new in
                    if ended.value { violations.append("round \(round): page member called after the close") }
                    if new >= trigger + 1 { page.close() }
                }
                page.globalConsumer.add(\.foreground, on: MixedActorY.shared) { @MixedActorY _, _ in
                    if ended.value { violations.append("round \(round): global member called after the close") }
                    page.close()
                }
                let member = StateConsumer<AppState>()
                member.add(\.counter, on: MixedActorY.shared) { @MixedActorY _, new in
                    if ended.value { violations.append("round \(round): bag member called after the emptying") }
                    if new >= trigger { bag.removeAll() }
                }
                .store(in: bag)
                member.add(\.counter) { _, _ in
                    if ended.value { violations.append("round \(round): bag member called after the emptying") }
                }
                .store(in: bag)
                store.subscribe(member).store(in: bag)
                let threads = [
                    spawn {
                        for _ in 0..<5 {
                            page.dispatch(MainAction.increment)
                            store.dispatch(CounterAction.increment)
                        }
                    },
                    spawn {
                        global.dispatch(round.isMultiple(of: 3) ? LifecycleAction.enterForeground : AuthAction.logOut)
                    },
                    spawn {
                        for _ in 0..<trigger { store.dispatch(CounterAction.increment) }
                        page.close()
                        bag.removeAll()
                        ended.value = true
                    },
                ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                    queue.sync {}
                }
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        #expect(global.subscriberCount == baseline)
    }

    /// G3 and G5: streams of a page (its state, a global derived value, its states, its actions)
    /// whose reading tasks are cancelled while another thread closes the page and others dispatch
    /// to the page and the global store. Every reader ends, each stream's changes chain, and the
    /// page and its store are freed; the global store counts what it counted before.
    @Test func pageStreamsCancelledWhileThePageCloses() async {
        let global = makeRootStore()
        let baseline = global.subscriberCount
        let violations = Recorder<String>()
        let leaks = LeakWatch()
        let userLength = Derived(\RootState.auth.user) { $0?.count ?? -1 }
        let rounds = scaled(60, sanitized: 15)
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                var random = SplitMix64(seed: UInt64(round) &+ 0xCA9CE1)
                let page = leaks.track(
                    PageStore(
                        global: global, initialState: { _ in MainState(count: 0) }, reducer: mainReducer,
                        diagnostics: { _ in }))
                let counts = page.changes(of: \.count)
                let lengths = page.globalChanges(of: userLength)
                let states = page.states
                let actions = page.actions
                let countProbe = Probe("round \(round) count stream", violations)
                let lengthProbe = Probe("round \(round) global stream", violations)
                let stateProbe = Probe("round \(round) states stream", violations)
                let readers = [
                    Task { for await change in counts { countProbe.call(change.old, change.new) } },
                    Task { for await change in lengths { lengthProbe.call(change.old, change.new) } },
                    Task {
                        var last: Int?
                        for await change in states {
                            if let last, last != change.old.count {
                                stateProbe.call(last, change.old.count)  // reports the broken chain
                            }
                            last = change.new.count
                        }
                    },
                    Task { for await _ in actions {} },
                ]
                let cancelled = readers.shuffled(using: &random).prefix(Int(random.next() % 5))
                let closeAt = Int(random.next() % 6)
                let threads = [
                    spawn {
                        for step in 0..<6 {
                            if step == closeAt { page.close() }
                            page.dispatch(MainAction.increment)
                        }
                    },
                    spawn {
                        for length in 0..<6 {
                            global.dispatch(AuthAction.logIn(String(repeating: "s", count: length % 4)))
                        }
                    },
                    spawn { for reader in cancelled { reader.cancel() } },
                ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                }
                page.close()
                for reader in readers { await reader.value }
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        for _ in 0..<1_000 where !leaks.survivors.isEmpty { await Task.yield() }
        #expect(leaks.survivors == [])
        #expect(global.subscriberCount == baseline)
    }

    /// G1, G4 and G5 for a screen whose last reference goes inside its own member's call on an
    /// actor: the call holds the screen, so the screen, its page and the page's consumers are
    /// released on the actor as that call ends, the page closing from inside a call of its own
    /// global consumer (or its own consumer). Nothing deadlocks, and the screen and page are
    /// freed; the global store counts what it counted before.
    @Test func aScreenReleasedByItsOwnMembersCallOnAnActorFreesItsPage() async {
        final class Screen: Sendable {
            let page: PageStore<MainState, RootState>
            init(_ page: PageStore<MainState, RootState>) { self.page = page }
        }
        let global = makeRootStore()
        let baseline = global.subscriberCount
        let releasedInACall = Recorder<Int>()
        let leaks = LeakWatch()
        let rounds = scaled(60, sanitized: 15)
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let slot = Slot<Screen?>(
                    Screen(
                        PageStore(
                            global: global, initialState: { _ in MainState(count: 0) }, reducer: mainReducer,
                            diagnostics: { _ in })))
                let onGlobal = round.isMultiple(of: 2)
                // Set up in a scope of its own: from here on, the slot holds the screen's only
                // reference outside the library.
                let page = Slot<PageStore<MainState, RootState>?>(nil)
                do {
                    let screen = slot.value!
                    leaks.track(screen)
                    leaks.track(screen.page)
                    page.value = screen.page
                    screen.page.globalConsumer.add(\.foreground, owner: screen, on: MixedActorX.shared) {
                        @MixedActorX _, _, _ in
                        if onGlobal, slot.value != nil {
                            releasedInACall.append(round)
                            slot.value = nil
                        }
                    }
                    screen.page.consumer.add(\.count, owner: screen, on: MixedActorY.shared) { @MixedActorY _, _, new in
                        if !onGlobal, new >= 2, slot.value != nil {
                            releasedInACall.append(round)
                            slot.value = nil
                        }
                    }
                }
                let threads = [
                    spawn {
                        for index in 0..<4 {
                            global.dispatch(
                                index.isMultiple(of: 2)
                                    ? LifecycleAction.enterForeground : LifecycleAction.enterBackground)
                        }
                    },
                    spawn {
                        for _ in 0..<4 { page.value?.dispatch(MainAction.increment) }
                        page.value = nil
                    },
                ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                }
                slot.value = nil
            }
        }
        guard finished else { return }
        #expect(releasedInACall.count > 0)
        for _ in 0..<1_000 where !leaks.survivors.isEmpty { await Task.yield() }
        #expect(leaks.survivors == [])
        #expect(global.subscriberCount == baseline)
    }

    /// G1 and G3 for adds queued on a busy store: a callback of store B adds `.instantly` members
    /// (plain, on a queue's consumer, for an owner) to consumers of store A while A is busy on
    /// other threads (the add is queued behind A's action), and cancels some of them at once, or
    /// has them cancelled by a bag emptied on another thread. No member is called once its
    /// removal returned, each member's first call is its instant call (merged with what followed,
    /// on the queue that fell behind), and its values chain.
    @Test func instantMembersAddedFromAnotherStoresCallbackAndCancelledBeforeTheirAddRan() async {
        let first = makeStore()
        let second = makeStore()
        let queue = DispatchQueue(label: "MixedFeaturesHuntTests.queuedAdds")
        let plain = StateConsumer<AppState>()
        let queued = StateConsumer<AppState>(deliveringOn: queue)
        let subscriptions = [first.subscribe(plain), first.subscribe(queued)]
        let violations = Recorder<String>()
        let owner = LoggingOwner(log: Recorder())
        let rounds = scaled(40, sanitized: 10)
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let bag = ConsumerBag()
                let probes = Recorder<Probe>()
                let adder = second.subscribe { _, new in
                    for (index, consumer) in [plain, queued].enumerated() {
                        let probe = Probe("round \(round) state \(new.counter) consumer \(index)", violations)
                        let instant = InstantProbe(probe, mayMerge: consumer === queued)
                        probes.append(probe)
                        let token =
                            new.counter.isMultiple(of: 2)
                            ? consumer.add(\.counter, options: .instantly) { old, new in instant.call(old, new) }
                            : consumer.add(\.counter, owner: owner, options: .instantly) { _, old, new in
                                instant.call(old, new)
                            }
                        if new.counter.isMultiple(of: 3) {
                            token.cancel()
                            probe.markRemoved()
                        } else {
                            token.store(in: bag)
                        }
                    }
                }
                let threads = [
                    spawn { for _ in 0..<6 { first.dispatch(CounterAction.increment) } },
                    spawn { for _ in 0..<6 { first.dispatch(CounterAction.decrement) } },
                    spawn { for _ in 0..<6 { second.dispatch(CounterAction.increment) } },
                ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                    adder.cancel()
                    bag.removeAll()
                    for probe in probes.values { probe.markRemoved() }
                    first.dispatch(CounterAction.increment)
                    queue.sync {}
                }
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
        #expect(plain.count == 0 && queued.count == 0)
        for subscription in subscriptions { subscription.cancel() }
        withExtendedLifetime(owner) {}
    }

    /// G1 and G3 for a consumer fed by hand from three threads at once, with members on the
    /// feeding thread, on a derived value, on an actor and for an owner, one of which feeds the
    /// consumer again from inside its callback (consumed right after the pass), while a fourth
    /// thread removes members. Every member's values chain and change, none starts after its
    /// removal returned, and the consumer ends with the members it kept.
    @Test func aConsumerFedByHandFromThreeThreadsWhileItsMembersGo() async {
        let violations = Recorder<String>()
        let rounds = scaled(60, sanitized: 15)
        let half = Derived(\AppState.counter) { $0 / 2 }
        let finished = await finishesWithoutDeadlock(within: 60) {
            for round in 0..<rounds {
                let consumer = StateConsumer<AppState>()
                let owner = LoggingOwner(log: Recorder())
                let probes = (0..<5).map { Probe("round \(round) member \($0)", violations) }
                let kept = Probe("round \(round) kept", violations)
                let tokens = [
                    consumer.add(\.counter) { old, new in
                        probes[0].call(old, new)
                        if new == 1_000 + round { consumer.consume(newState: AppState(counter: -1)) }
                    },
                    consumer.add(half) { old, new in probes[1].call(old, new) },
                    consumer.add(\.counter, on: MixedActorX.shared) { @MixedActorX old, new in probes[2].call(old, new)
                    },
                    consumer.add(half, owner: owner) { _, old, new in probes[3].call(old, new) },
                    consumer.add({ $0.counter % 3 }) { old, new in probes[4].call(old, new) },
                ]
                consumer.add(\.counter) { old, new in kept.call(old, new) }
                var random = SplitMix64(seed: UInt64(round) &* 7 &+ 1)
                let order = tokens.indices.shuffled(using: &random)
                let threads =
                    (0..<3).map { thread in
                        spawn {
                            for step in 0..<20 {
                                let value = step == 10 && thread == 0 ? 1_000 + round : step * 3 + thread
                                consumer.consume(newState: AppState(counter: value))
                            }
                        }
                    } + [
                        spawn {
                            for index in order {
                                tokens[index].cancel()
                                probes[index].markRemoved()
                            }
                        }
                    ]
                await onAThreadOfItsOwn {
                    for thread in threads { thread.wait() }
                }
                #expect(consumer.count == 1)
                withExtendedLifetime(owner) {}
            }
        }
        guard finished else { return }
        #expect(violations.values == [])
    }
}

/// One registration's calls: they must chain (each `old` the previous `new`), change something,
/// and never start once its removal returned.
private final class Probe: Sendable {
    private let name: String
    private let violations: Recorder<String>
    private let state = Lock<(isRemoved: Bool, last: Int?)>((false, nil))

    init(_ name: String, _ violations: Recorder<String>) {
        self.name = name
        self.violations = violations
    }

    func call(_ old: Int, _ new: Int) {
        let (isRemoved, last) = state.withLock { state in
            defer { state.last = new }
            return (state.isRemoved, state.last)
        }
        if isRemoved { violations.append("\(name): called with \(old) → \(new) after its removal returned") }
        if old == new { violations.append("\(name): called with no change (\(old) → \(new))") }
        if let last, last != old { violations.append("\(name): broken chain, \(last) then \(old) → \(new)") }
    }

    /// A member's `.instantly` call: `old == new` unless `mayMerge`, and the start of its chain.
    func instant(_ old: Int, _ new: Int, mayMerge: Bool) {
        let isRemoved = state.withLock { state in
            defer { state.last = new }
            return state.isRemoved
        }
        if isRemoved { violations.append("\(name): instant call \(old) → \(new) after its removal returned") }
        if old != new, !mayMerge { violations.append("\(name): first call \(old) → \(new) is not an instant call") }
    }

    func markRemoved() {
        state.withLock { $0.isRemoved = true }
    }
}

/// A member's calls, of which the first must be its `.instantly` call (`old == new`), or, when
/// `mayMerge` (a member on a queue that fell behind), that call merged with the changes after it
/// (the first `old`, the latest `new`); the rest go to `probe`.
private final class InstantProbe: Sendable {
    private let probe: Probe
    private let mayMerge: Bool
    private let isFirst = Lock(true)

    init(_ probe: Probe, mayMerge: Bool) {
        self.probe = probe
        self.mayMerge = mayMerge
    }

    func call(_ old: Int, _ new: Int) {
        let isFirst = isFirst.withLock { isFirst in
            defer { isFirst = false }
            return isFirst
        }
        if isFirst {
            probe.instant(old, new, mayMerge: mayMerge)
        } else {
            probe.call(old, new)
        }
    }
}

@globalActor
private actor MixedActorX {
    static let shared = MixedActorX()
}

@globalActor
private actor MixedActorY {
    static let shared = MixedActorY()
}

/// A global actor whose jobs run on a serial queue a test can hold, signalling each job's arrival.
@globalActor
private actor MixedHeldActor {
    static let shared = MixedHeldActor()
    static let queue = DispatchQueue(label: "MixedFeaturesHuntTests.MixedHeldActor")
    static let executor = SignallingQueueExecutor(queue: queue)

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }
}
