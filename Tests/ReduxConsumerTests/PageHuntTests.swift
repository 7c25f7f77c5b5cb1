import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Page stores beside a global store under threads: closes and releases racing the threads that
/// run the page and the global store.
struct PageHuntTests {
    /// One thread's `close()` waits for a page callback in progress on a second thread, and that
    /// callback closes the page too: its `close()` returns at once (a close from inside the page's
    /// own callback must not wait), but only once no consumer of the page, its global ones
    /// included, can start again (guarantee 1). The callback then changes the global state.
    @Test func aCloseThatReturnsWhileAnotherIsInProgressLeavesNoConsumerBehind() {
        let global = makeRootStore()
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        let entered = DispatchSemaphore(value: 0)
        let closedTwice = Slot(false)
        page.consumer.add(\.count) { _, _ in
            entered.signal()
            // The other thread's close is under way, waiting for this callback to return.
            spin { page.isClosed }
            page.close()
            closedTwice.value = true
            global.dispatch(LifecycleAction.enterForeground)
        }
        let lateGlobalCalls = Recorder<Bool>()
        page.globalConsumer.add(\.foreground) { _, new in
            if closedTwice.value { lateGlobalCalls.append(new) }
        }

        let finished = finishesWithoutDeadlock(within: 60) {
            let busy = spawn { page.dispatch(MainAction.increment) }
            entered.wait()
            page.close()
            busy.wait()
        }
        guard finished else { return }
        #expect(lateGlobalCalls.values.isEmpty)
        #expect(global.subscriberCount == 0)
    }

    /// As above with an effect of the page running: the close that returns while the other is in
    /// progress has cancelled it (the page's effects end with the close).
    @Test func aCloseThatReturnsWhileAnotherIsInProgressHasCancelledTheEffects() async {
        let global = makeRootStore()
        let cancelled = Slot(false)
        let never = Signal()
        let running = Signal()
        let effect = Effect<MainState>.on(MainAction.self, when: { $0 == .set(1) }) { _, _ in
            await withTaskCancellationHandler {
                running.fire()
                await never.wait()
            } onCancel: {
                cancelled.value = true
            }
        }
        let page = PageStore(
            global: global,
            initialState: { _ in MainState() },
            reducer: mainReducer,
            effects: [effect]
        )
        let entered = DispatchSemaphore(value: 0)
        let cancelledWhenClosed = Slot<Bool?>(nil)
        page.consumer.add(\.count) { _, new in
            guard new == 2 else { return }
            entered.signal()
            spin { page.isClosed }
            page.close()
            cancelledWhenClosed.value = cancelled.value
        }

        // The effect needs a thread of the cooperative pool, which the other tests of a parallel
        // run (under ThreadSanitizer) may keep busy for seconds.
        let finished = await finishesWithoutDeadlock(within: 120) {
            page.dispatch(MainAction.set(1))
            // Awaited: a blocking wait here would hold a pool thread the effect's task may need.
            await running.wait()
            await onAThreadOfItsOwn {
                let busy = spawn { page.dispatch(MainAction.set(2)) }
                entered.wait()
                page.close()
                busy.wait()
            }
        }
        guard finished else { return }
        #expect(cancelledWhenClosed.value == true)
    }

    /// As above, and the callback then adds an `.instantly` member to each consumer of the page:
    /// a closed page's consumers are never fed, so neither fires.
    @Test func membersAddedAfterACloseReturnedNeverFireWhileAnotherCloseIsInProgress() {
        let global = makeRootStore()
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        let entered = DispatchSemaphore(value: 0)
        let lateCalls = Recorder<String>()
        let globalConsumer = page.globalConsumer
        page.consumer.add(\.count) { _, _ in
            entered.signal()
            spin { page.isClosed }
            page.close()
            globalConsumer.add(\.foreground, options: .instantly) { _, _ in lateCalls.append("global") }
            page.consumer.add(\.count, options: .instantly) { _, _ in lateCalls.append("page") }
        }

        let finished = finishesWithoutDeadlock(within: 60) {
            let busy = spawn { page.dispatch(MainAction.increment) }
            entered.wait()
            page.close()
            busy.wait()
        }
        guard finished else { return }
        global.dispatch(LifecycleAction.enterForeground)
        #expect(lateCalls.values.isEmpty)
        #expect(global.subscriberCount == 0)
    }

    /// The same members added after a plain `close()`: never fed.
    @Test func membersAddedAfterCloseNeverFire() {
        let global = makeRootStore()
        let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
        let globalConsumer = page.globalConsumer
        let consumer = page.consumer
        let lateCalls = Recorder<String>()
        page.close()
        globalConsumer.add(\.foreground, options: .instantly) { _, _ in lateCalls.append("global") }
        consumer.add(\.count, options: .instantly) { _, _ in lateCalls.append("page") }
        page.globalConsumer.add(\.foreground, options: .instantly) { _, _ in lateCalls.append("global 2") }
        page.consumer.add(\.count, options: .instantly) { _, _ in lateCalls.append("page 2") }
        global.dispatch(LifecycleAction.enterForeground)
        #expect(lateCalls.values.isEmpty)
    }

    /// The service pattern under threads: two threads dispatch globally while two others open one
    /// page per request (forwarding, a reducer that reads the global state, consumers of both
    /// states added lazily, a global consumer that dispatches into the page) and end it in each of
    /// the ways a page ends: closed by its own thread, by another thread, from inside its own
    /// callback, from inside a global callback, or released. No callback starts after its page's
    /// close returned, and nothing outlives the run.
    @Test func requestPagesEndInEveryWayWhileTheGlobalStoreIsBusy() {
        let global = makeStore()
        let start = global.subscriberCount
        let lateCalls = CallCounter()
        let leftovers = Lock<[WeakBox]>([])
        let handedOver = Lock<[Request]>([])
        let pending = DispatchSemaphore(value: 0)
        let rounds = 1_000

        let finished = finishesWithoutDeadlock(within: 120) {
            var threads: [DispatchSemaphore] = []
            for _ in 0..<2 {
                threads.append(
                    spawn {
                        for _ in 0..<3_000 { global.dispatch(CounterAction.increment) }
                    })
            }
            for worker in 0..<2 {
                threads.append(
                    spawn {
                        for round in 0..<rounds {
                            let request = Request(global: global, lateCalls: lateCalls)
                            leftovers.withLock { $0 += [WeakBox(request), WeakBox(request.page)] }
                            request.page.dispatch(TicketAction.open)
                            switch (round + worker) % 5 {
                            case 0:
                                request.close()
                            case 1:
                                handedOver.withLock { $0.append(request) }
                                pending.signal()
                            case 2:
                                request.closeFromOwnCallback()
                            case 3:
                                request.closeFromGlobalCallback()
                            default:
                                break  // released here
                            }
                        }
                    })
            }
            let closer = spawn {
                for _ in 0..<(2 * rounds / 5) {
                    pending.wait()
                    let request = handedOver.withLock { $0.removeFirst() }
                    request.close()
                }
            }
            for thread in threads { thread.wait() }
            closer.wait()
        }
        guard finished else { return }
        #expect(lateCalls.value == 0)
        #expect(global.subscriberCount == start)
        #expect(leftovers.withLock { $0.filter { $0.object != nil }.count } == 0)
    }

    /// Waits and streams on pages that another thread closes at any moment, before, during or
    /// after the readers start: every wait throws `storeGone`, every sequence ends, none hangs.
    @Test func waitsAndStreamsOfAPageClosedConcurrentlyEnd() async {
        let global = makeStore()
        let start = global.subscriberCount
        let outcomes = Recorder<String>()
        let finished = await finishesWithoutDeadlock {
            for round in 0..<300 {
                // Sends after the close are ignored, as they should be: not worth a line each.
                let page = PageStore(
                    global: global,
                    initialState: { _ in MainState() },
                    reducer: mainReducer,
                    diagnostics: { _ in }
                )
                page.forwardActions { _ in true }
                let readers = Task {
                    await withTaskGroup(of: String.self) { group in
                        group.addTask {
                            do {
                                _ = try await page.wait(until: { $0.count < 0 })
                                return "wait returned"
                            } catch {
                                return error as? StoreWaitError == .storeGone ? "" : "wait threw \(error)"
                            }
                        }
                        group.addTask {
                            for await _ in page.states {}
                            return ""
                        }
                        group.addTask {
                            for await _ in page.actions {}
                            return ""
                        }
                        group.addTask {
                            for await _ in page.changes(of: \.count, options: .pulse) {}
                            return ""
                        }
                        group.addTask {
                            for await _ in page.globalChanges(of: \.counter, options: .instantly) {}
                            return ""
                        }
                        group.addTask {
                            await page.send(MainAction.increment)
                            await page.sendGlobal(CounterAction.increment)
                            return ""
                        }
                        var failures: [String] = []
                        for await outcome in group where !outcome.isEmpty { failures.append(outcome) }
                        return failures
                    }
                }
                let closer = spawn {
                    if round.isMultiple(of: 2) { global.dispatch(CounterAction.increment) }
                    page.close()
                }
                for failure in await readers.value { outcomes.append("round \(round): \(failure)") }
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    Thread {
                        closer.wait()
                        done.resume()
                    }
                    .start()
                }
            }
        }
        guard finished else { return }
        #expect(outcomes.values == [])
        #expect(global.subscriberCount == start)
    }

    /// Pages with every kind of registration on the global store (forwarding, a global consumer, a
    /// global stream in progress), released by their owner on one thread while the global
    /// store is busy delivering on another: once the global store is idle again, the page, its
    /// inner store and its consumers are freed, and the global store counts what it counted before.
    @Test func pagesReleasedWhileTheGlobalStoreDeliversFreeEverything() async {
        let global = makeStore()
        let start = global.subscriberCount
        let watch = LeakWatch()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let blocker = StateConsumer<AppState>()
        blocker.add(\.counter) { _, new in
            guard new == 1 else { return }
            entered.signal()
            proceed.wait()
        }
        let blocking = global.subscribe(blocker)
        let finished = await finishesWithoutDeadlock(within: 120) {
            var pages: [PageStore<MainState, AppState>] = []
            var readers: [Task<Void, Never>] = []
            for _ in 0..<50 {
                let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
                watch.track(page)
                watch.track(page.consumer)
                watch.track(page.globalConsumer)
                if let inner = Mirror(reflecting: page).descendant("store") as? Store<MainState> { watch.track(inner) }
                page.forwardActions { _ in true }
                page.globalConsumer.add(\.counter) { _, _ in }
                page.consumer.add(\.count) { _, _ in }
                let stream = page.globalChanges(of: \.counter)
                readers.append(Task { for await _ in stream {} })
                pages.append(page)
            }
            // Every global stream listens (its subscription is a job of the global store, which
            // would otherwise wait for the blocked pass).
            while global.subscriberCount < start + 1 + 50 * 3 { await Task.yield() }
            let busy = spawn { global.dispatch(CounterAction.increment) }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread {
                    entered.wait()
                    done.resume()
                }
                .start()
            }
            pages = []
            for reader in readers { await reader.value }
            proceed.signal()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread {
                    busy.wait()
                    done.resume()
                }
                .start()
            }
        }
        guard finished else { return }
        blocking.cancel()
        #expect(watch.survivors == [])
        #expect(global.subscriberCount == start)
    }

    /// Two threads drive a page and its global store into each other: the global store's consumer
    /// dispatches into the page and now and then closes it (a new page takes its place), while the
    /// page's reducer reads the global state and its consumer dispatches globally, first uses the
    /// page's global consumer, or closes the page. No deadlock, and no callback after its page's
    /// close returned.
    @Test func pagesAndTheGlobalStoreDispatchIntoEachOtherWhileTheyClose() {
        let global = makeStore()
        let start = global.subscriberCount
        let current = Lock<Request?>(nil)
        let lateCalls = CallCounter()
        let openRequest: @Sendable () -> Request = {
            let request = Request(global: global, lateCalls: lateCalls)
            request.page.consumer.add(\.opened, owner: request) { request, _, new in
                request.check()
                if new.isMultiple(of: 3) { request.page.dispatchGlobal(CounterAction.increment) }
                if new.isMultiple(of: 5) {
                    request.page.globalConsumer.add(\.name, owner: request) { request, _, _ in request.check() }
                }
                if new.isMultiple(of: 11) { request.close() }
            }
            return request
        }
        current.withLock { $0 = openRequest() }
        let watcher = StateConsumer<AppState>()
        watcher.add(\.counter) { _, new in
            let request = current.withLock { $0 }
            request?.page.dispatch(TicketAction.open)
            if new.isMultiple(of: 13) {
                request?.close()
                let next = openRequest()
                current.withLock { $0 = next }
            }
        }
        let watching = global.subscribe(watcher)

        let finished = finishesWithoutDeadlock(within: 60) {
            let globalSide = spawn {
                for round in 0..<3_000 {
                    global.dispatch(round.isMultiple(of: 4) ? CounterAction.rename("\(round)") : .increment)
                }
            }
            let pageSide = spawn {
                for _ in 0..<3_000 {
                    let request = current.withLock { $0 }
                    request?.page.dispatch(TicketAction.open)
                }
            }
            globalSide.wait()
            pageSide.wait()
        }
        guard finished else { return }
        watching.cancel()
        current.withLock { $0 }?.close()
        current.withLock { $0 = nil }
        #expect(lateCalls.value == 0)
        #expect(global.subscriberCount == start)
    }

    /// Global actions forwarded into a page that other threads keep busy (its own dispatches, and
    /// its consumer dispatching globally): each reaches the page's reducer once, in the global
    /// store's order.
    @Test func forwardedActionsKeepTheGlobalOrderWhileThePageIsBusy() {
        let global = makeStore()
        let forwarded = Recorder<Int>()
        let page = PageStore(
            global: global,
            initialState: { _ in MainState() },
            reducer: Reducer { state, action in
                if let action = action as? CounterAction, case .set(let value) = action {
                    forwarded.append(value)
                    state.count = global.state.counter
                }
                if action is MainAction { state.count += 1 }
            }
        )
        page.forwardActions { $0 is CounterAction }
        page.consumer.add(\.count) { _, new in
            if new.isMultiple(of: 10) { page.dispatchGlobal(CounterAction.rename("\(new)")) }
        }
        let finished = finishesWithoutDeadlock(within: 60) {
            let globalSide = spawn {
                for value in 1...3_000 { global.dispatch(CounterAction.set(value)) }
            }
            let pageSide = spawn {
                for _ in 0..<3_000 { page.dispatch(MainAction.increment) }
            }
            globalSide.wait()
            pageSide.wait()
        }
        guard finished else { return }
        #expect(forwarded.values == Array(1...3_000))
        page.close()
    }
}

private struct Ticket: Equatable, Sendable {
    var opened = 0
    var globalSeen = 0
}

private enum TicketAction: Action, Equatable {
    case open
}

/// A request's page and what its owner registered, with a flag set once a close returned.
private final class Request: Sendable {
    let page: PageStore<Ticket, AppState>
    private let isDone = Lock(false)
    private let lateCalls: CallCounter

    init(global: Store<AppState>, lateCalls: CallCounter) {
        self.lateCalls = lateCalls
        page = PageStore(
            global: global,
            initialState: { Ticket(globalSeen: $0.counter) },
            reducer: Reducer { state, action in
                if action is CounterAction { state.globalSeen = global.state.counter }
                if action as? TicketAction == .open { state.opened += 1 }
            },
            // Global callbacks dispatch into pages that closed meanwhile: ignored, as they should be.
            diagnostics: { _ in }
        )
        page.forwardActions { $0 is CounterAction }
        page.consumer.add(\.globalSeen, owner: self) { request, _, _ in request.check() }
        page.globalConsumer.add(\.counter, owner: self) { request, _, new in
            request.check()
            if new.isMultiple(of: 7) { request.page.dispatch(TicketAction.open) }
        }
        page.consumer.add(\.opened, owner: self) { request, _, _ in request.check() }
    }

    func check() {
        if isDone.withLock({ $0 }) { lateCalls.increment() }
    }

    func close() {
        page.close()
        isDone.withLock { $0 = true }
    }

    func closeFromOwnCallback() {
        let token = page.consumer.add(\.opened, owner: self) { request, _, _ in request.close() }
        page.dispatch(TicketAction.open)
        token.cancel()
    }

    func closeFromGlobalCallback() {
        page.globalConsumer.add(\.counter, owner: self) { request, _, _ in request.close() }
        page.global.dispatch(CounterAction.increment)
    }
}

private struct WeakBox: Sendable {
    weak let object: (any AnyObject & Sendable)?

    init(_ object: any AnyObject & Sendable) {
        self.object = object
    }
}
