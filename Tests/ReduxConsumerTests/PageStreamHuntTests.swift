// Exit tests need a child process: not available on iOS, tvOS, watchOS or visionOS.
#if os(macOS) || os(Linux) || os(FreeBSD) || os(OpenBSD) || os(Windows)
    import Dispatch
    import Foundation
    import ReduxConsumer
    import ReduxConsumerTestSupport
    import Testing

    /// Stores and pages released, closed and streamed under threads: what their consumers,
    /// streams and counts are left with.
    struct PageStreamHuntTests {
        /// Guarantee 7: a consumer whose store is gone is free at once. Another thread that sees
        /// the store gone (a weak reference to it is `nil`) subscribes the consumer to another
        /// store right away; before the fix, the store's `deinit` had not yet marked its host
        /// ended, and the subscription stopped the program as "subscribed to two stores".
        @Test func aConsumerIsFreeAsSoonAsAWeakReferenceSeesItsStoreGone() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                Self.releaseOnOneThreadAndJoinOnAnother(thenSubscribe: true)
            }
            Self.expectNoMisuse(result)
        }

        /// As above, feeding the consumer by hand instead.
        @Test func aConsumerIsFedByHandAsSoonAsAWeakReferenceSeesItsStoreGone() async {
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                Self.releaseOnOneThreadAndJoinOnAnother(thenSubscribe: false)
            }
            Self.expectNoMisuse(result)
        }

        /// Rounds of: a consumer subscribed to a store with a stream and a closure subscriber
        /// (a teardown to run as it goes); one thread drops the last reference to the store, and
        /// another, as soon as a weak reference to it is `nil`, subscribes the consumer to the
        /// next store (`thenSubscribe`) or feeds it by hand. Stops the process unless the member's
        /// chain is unbroken and it heard the new source.
        static func releaseOnOneThreadAndJoinOnAnother(thenSubscribe subscribes: Bool) {
            final class Weak: @unchecked Sendable {
                // @unchecked: written before the releasing thread starts, read after.
                weak var store: Store<AppState>?
            }
            let consumer = StateConsumer<AppState>()
            let heard = Recorder<Change<Int>>()
            consumer.add(\.counter) { old, new in heard.append(Change(old: old, new: new)) }
            var current = makeStore(AppState(counter: 0))
            var subscription = current.subscribe(consumer)
            for round in 1...2_000 {
                let gone = Slot<Store<AppState>?>(current)
                let weak = Weak()
                weak.store = current
                // Something that ends with the store: its teardown widens the window in `deinit`.
                gone.value!.subscribe { _, _ in }
                gone.value!.dispatch(CounterAction.set(round * 10))
                subscription.cancel()
                subscription = gone.value!.subscribe(consumer)
                let next = makeStore(AppState(counter: round * 10 + 5))
                current = next
                let releaser = spawn { gone.value = nil }
                spin { weak.store == nil }
                if subscribes {
                    subscription = next.subscribe(consumer)
                } else {
                    consumer.consume(newState: AppState(counter: round * 10 + 5))
                }
                releaser.wait()
                precondition(
                    heard.last?.new == round * 10 + 5, "round \(round): heard \(String(describing: heard.last))")
                if !subscribes { subscription = next.subscribe(consumer) }
            }
            let changes = heard.values
            for (earlier, later) in zip(changes, changes.dropFirst()) {
                precondition(earlier.new == later.old, "broken chain: \(earlier) then \(later)")
            }
            subscription.cancel()
        }

        /// Guarantees 1, 4, 5 and 6: a page closed at once by two threads, by its own consumer, by
        /// one of its global consumers, by its middleware and by its effect, while other threads
        /// dispatch to the page and to the global store. No close returns while a callback of the
        /// page can still start; nothing deadlocks; the page is freed and the global store counts
        /// what it counted before.
        @Test func aPageClosedFromEveryPlaceAtOnceEndsEverything() async {
            let global = makeRootStore()
            let baseline = global.subscriberCount
            final class Weak: @unchecked Sendable {
                // @unchecked: written before the threads start, read after they are joined.
                weak var page: PageStore<MainState, RootState>?
            }
            let lateCalls = Recorder<String>()
            let pages = Recorder<Weak>()
            let finished = await finishesWithoutDeadlock {
                for round in 0..<300 {
                    let closed = Slot(false)
                    let pageSlot = Slot<PageStore<MainState, RootState>?>(nil)
                    let closer: Middleware<MainState> = { _, _ in
                        { next in
                            { action in
                                next(action)
                                if action as? MainAction == .set(-1) { pageSlot.value?.close() }
                            }
                        }
                    }
                    let effect = Effect<MainState>.on(MainAction.self, when: { $0 == .set(-2) }) { _, _ in
                        pageSlot.value?.close()
                    }
                    let page = PageStore(
                        global: global,
                        initialState: { _ in MainState() },
                        reducer: mainReducer,
                        middleware: [closer],
                        effects: [effect],
                        diagnostics: { _ in }
                    )
                    pageSlot.value = page
                    let weak = Weak()
                    weak.page = page
                    pages.append(weak)
                    page.forwardActions { _ in true }
                    page.consumer.add(\.count) { _, new in
                        if closed.value { lateCalls.append("round \(round): page consumer heard \(new)") }
                        if new % 7 == 0 { pageSlot.value?.close() }
                    }
                    page.globalConsumer.add(\.foreground) { _, new in
                        if closed.value { lateCalls.append("round \(round): global consumer heard \(new)") }
                        if !new { pageSlot.value?.close() }
                    }
                    // Streams being read as the page closes: they finish.
                    let pageChanges = page.changes(of: \.count)
                    let globalChanges = page.globalChanges(of: \.auth.user)
                    let readers = [
                        Task { for await _ in pageChanges {} },
                        Task { for await _ in globalChanges {} },
                    ]
                    let threads = [
                        spawn {
                            for value in [1, 2, -1, 3, -2, 4] { pageSlot.value?.dispatch(MainAction.set(value)) }
                        },
                        spawn {
                            global.dispatch(LifecycleAction.enterForeground)
                            global.dispatch(AuthAction.logIn("a"))
                            global.dispatch(LifecycleAction.enterBackground)
                        },
                        spawn {
                            if round.isMultiple(of: 3) { pageSlot.value?.dispatch(MainAction.set(7)) }
                            pageSlot.value?.close()
                            closed.value = true
                        },
                        spawn {
                            pageSlot.value?.dispatchGlobal(LifecycleAction.enterForeground)
                            pageSlot.value?.close()
                            closed.value = true
                        },
                    ]
                    // Joined from a thread of its own: the task's thread is not blocked meanwhile.
                    await withCheckedContinuation { (joined: CheckedContinuation<Void, Never>) in
                        Thread {
                            for thread in threads { thread.wait() }
                            joined.resume()
                        }
                        .start()
                    }
                    for reader in readers { await reader.value }
                    #expect(page.isClosed)
                    await page.effectsIdleWithoutThePage()
                    pageSlot.value = nil
                }
            }
            guard finished else { return }
            #expect(lateCalls.values == [])
            #expect(global.subscriberCount == baseline)
            #expect(pages.values.filter { $0.page != nil }.count == 0)
        }

        /// Guarantees 3 and 5: streams of a store released by another thread while they are read,
        /// and of a page closed meanwhile, finish; each one's changes form an unbroken chain; the
        /// store, the page and the consumers behind the streams are freed, and the global store
        /// counts what it counted before.
        @Test func streamsOfAStoreReleasedAndAPageClosedMidIterationFinish() async {
            final class Weak: @unchecked Sendable {
                // @unchecked: written before the readers start, read after they finished.
                weak var store: Store<AppState>?
                weak var page: PageStore<MainState, RootState>?
            }
            let global = makeRootStore()
            let baseline = global.subscriberCount
            let failures = Recorder<String>()
            let weaks = Recorder<Weak>()
            let finished = await finishesWithoutDeadlock {
                for round in 0..<200 {
                    let storeSlot = Slot<Store<AppState>?>(makeStore())
                    let page = PageStore(
                        global: global, initialState: { _ in MainState() }, reducer: mainReducer, diagnostics: { _ in })
                    let weak = Weak()
                    weak.store = storeSlot.value
                    weak.page = page
                    weaks.append(weak)
                    let storeChanges = storeSlot.value!.changes(of: \.counter)
                    let storeStates = storeSlot.value!.states
                    let pageChanges = page.changes(of: \.count)
                    let globalChanges = page.globalChanges(of: \.foreground)
                    func chain(_ changes: [Change<Int>], _ name: String) {
                        for (earlier, later) in zip(changes, changes.dropFirst()) where earlier.new != later.old {
                            failures.append("round \(round): \(name): \(earlier) then \(later)")
                        }
                    }
                    await withTaskGroup(of: Void.self) { group in
                        group.addTask {
                            var heard: [Change<Int>] = []
                            for await change in storeChanges { heard.append(change) }
                            chain(heard, "store changes")
                        }
                        group.addTask {
                            var heard: [Change<Int>] = []
                            for await change in storeStates {
                                heard.append(Change(old: change.old.counter, new: change.new.counter))
                            }
                            chain(heard, "store states")
                        }
                        group.addTask {
                            var heard: [Change<Int>] = []
                            for await change in pageChanges { heard.append(change) }
                            chain(heard, "page changes")
                        }
                        group.addTask {
                            for await _ in globalChanges {}
                        }
                        group.addTask {
                            for value in 1...20 { await page.send(MainAction.set(value)) }
                            await page.sendGlobal(LifecycleAction.enterForeground)
                        }
                        group.addTask {
                            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                                Thread {
                                    for value in 1...20 { storeSlot.value?.dispatch(CounterAction.set(value)) }
                                    storeSlot.value = nil
                                    page.close()
                                    done.resume()
                                }
                                .start()
                            }
                        }
                    }
                }
            }
            guard finished else { return }
            #expect(failures.values == [])
            #expect(global.subscriberCount == baseline)
            #expect(weaks.values.filter { $0.store != nil || $0.page != nil }.count == 0)
        }

        /// Guarantees 3 and 7 with a `deliveringOn:` consumer whose queue is behind: its store is
        /// released on one thread while another, as soon as it sees the store gone, subscribes the
        /// consumer to the next store. The member's chain is unbroken across the two stores, and
        /// it ends on the next store's value.
        @Test func aQueuedConsumerWhoseStoreGoesKeepsItsChainOnTheNextStore() {
            final class Weak: @unchecked Sendable {
                // @unchecked: written before the releasing thread starts, read after.
                weak var store: Store<AppState>?
            }
            let queue = DispatchQueue(label: "PageStreamHuntTests.queued")
            let consumer = StateConsumer<AppState>(deliveringOn: queue)
            let heard = Recorder<Change<Int>>()
            consumer.add(\.counter) { old, new in heard.append(Change(old: old, new: new)) }
            let current = Slot(makeStore())
            let subscription = Slot(current.value.subscribe(consumer))
            let finished = finishesWithoutDeadlock(within: 120) {
                for round in 1...500 {
                    let gone = Slot<Store<AppState>?>(current.value)
                    let weak = Weak()
                    weak.store = current.value
                    let next = makeStore(AppState(counter: round * 10 + 5))
                    current.value = next
                    // The queue falls behind: the store's calls are pending when it goes.
                    let gate = DispatchSemaphore(value: 0)
                    queue.async { gate.wait() }
                    gone.value!.dispatch(CounterAction.set(round * 10))
                    gone.value!.dispatch(CounterAction.set(round * 10 + 1))
                    let releaser = spawn { gone.value = nil }
                    spin { weak.store == nil }
                    subscription.value = next.subscribe(consumer)
                    if round.isMultiple(of: 2) { next.dispatch(CounterAction.increment) }
                    gate.signal()
                    releaser.wait()
                    queue.sync {}
                    let expected = round * 10 + 5 + (round.isMultiple(of: 2) ? 1 : 0)
                    if heard.last?.new != expected {
                        Issue.record("round \(round): heard \(String(describing: heard.last)), not \(expected)")
                        return
                    }
                }
            }
            guard finished else { return }
            let changes = heard.values
            let broken = zip(changes, changes.dropFirst()).filter { $0.new != $1.old }
            #expect(broken.isEmpty, "\(broken.prefix(5))")
            subscription.value.cancel()
            #expect(current.value.subscriberCount == 0)
        }

        /// Guarantees 3, 4 and 7: the last reference to a `deliveringOn:` consumer's store is
        /// dropped inside the consumer's own queued callback, which then subscribes it to the next
        /// store (or another thread does). Nothing deadlocks, the member hears the next store, and
        /// its chain is unbroken.
        @Test(arguments: [false, true])
        func aStoreReleasedInsideItsQueuedConsumerHandsTheConsumerOn(elsewhere: Bool) {
            let queue = DispatchQueue(label: "PageStreamHuntTests.inside")
            let consumer = StateConsumer<AppState>(deliveringOn: queue)
            let heard = Recorder<Change<Int>>()
            let gone = Slot<Store<AppState>?>(makeStore())
            let next = makeStore(AppState(counter: 100))
            let joined = Slot<Subscription?>(nil)
            let handedOn = DispatchSemaphore(value: 0)
            // Weak: the member's callback would otherwise keep its own consumer alive.
            consumer.add(\.counter) { [weak consumer] old, new in
                heard.append(Change(old: old, new: new))
                guard new == 2, let consumer else { return }
                gone.value = nil
                if elsewhere {
                    spawn { joined.value = next.subscribe(consumer) }.wait()
                } else {
                    joined.value = next.subscribe(consumer)
                }
                handedOn.signal()
            }
            let finished = finishesWithoutDeadlock(within: 60) {
                gone.value!.subscribe(consumer)
                // The queue waits until this thread holds the store no more: the slot's reference,
                // which the callback drops, is then the last.
                let gate = DispatchSemaphore(value: 0)
                queue.async { gate.wait() }
                gone.value!.dispatch(CounterAction.set(1))
                gone.value!.dispatch(CounterAction.set(2))
                gate.signal()
                handedOn.wait()
                next.dispatch(CounterAction.increment)
                queue.sync {}
            }
            guard finished else { return }
            let changes = heard.values
            #expect(changes.last?.new == 101, "\(changes)")
            let broken = zip(changes, changes.dropFirst()).filter { $0.new != $1.old }
            #expect(broken.isEmpty, "\(changes)")
            joined.value?.cancel()
            #expect(next.subscriberCount == 0)
        }

        private static func expectNoMisuse(_ result: ExitTest.Result?) {
            let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
            #expect(!message.contains("a consumer belongs to one store at a time"), "\(message)")
            #expect(!message.contains("a consumer is fed by one source at a time"), "\(message)")
        }
    }
#endif
