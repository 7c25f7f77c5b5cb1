import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Actions that cross between a page and its global store keep their order, whichever threads run
/// the two stores: a page reduces the actions it forwards in the order the global store reduced
/// them, and the global store reduces the actions a page's callbacks dispatch to it in the order
/// the page made them. An action that comes into a store running on this thread, from another
/// store's processing nested inside it, waits behind the actions other threads queued before.
@Suite struct ForwardOrderTests {
    private struct Global: Sendable {
        var ticks: [Int] = []
        var hold = 0
    }

    private struct Page: Sendable {
        var trigger = 0
        var forwarded: [Int] = []
    }

    private enum Tick: Action {
        case number(Int)
    }

    private enum Trigger: Action {
        case go
    }

    private enum Hold: Action {
        case hold
    }

    /// Dispatches a hold to `global` on this thread; while its subscribers hear it, runs
    /// `otherThread` on another thread, waits for it, then runs `here`, still inside the hold's
    /// processing. Returns once the hold's `dispatch` has returned.
    private static func hold(
        _ global: Store<Global>, whileAnotherThread otherThread: @escaping @Sendable () -> Void,
        thenHere here: @escaping @Sendable () -> Void
    ) {
        let holding = DispatchSemaphore(value: 0)
        let otherDone = DispatchSemaphore(value: 0)
        let subscription = global.subscribe { old, new in
            guard new.hold != old.hold else { return }
            holding.signal()
            #expect(otherDone.wait(timeout: .now() + 30) == .success)
            here()
        }
        let other = spawn {
            #expect(holding.wait(timeout: .now() + 30) == .success)
            otherThread()
            otherDone.signal()
        }
        global.dispatch(Hold.hold)
        #expect(other.wait(timeout: .now() + 30) == .success)
        subscription.cancel()
    }

    /// A global store that counts holds and records ticks in the order it reduces them.
    private static func makeGlobal() -> Store<Global> {
        Store(
            initialState: Global(),
            reducer: Reducer<Global> { state, action in
                if action is Hold { state.hold += 1 }
                if case .number(let number)? = action as? Tick { state.ticks.append(number) }
            })
    }

    @Test func aForwardMadeWhileThePageRunsHereFollowsTheForwardsQueuedBeforeIt() {
        let global = Self.makeGlobal()
        let page = PageStore(
            global: global, initialState: { _ in Page() },
            reducer: Reducer<Page> { state, action in
                if action is Trigger { state.trigger += 1 }
                if case .number(let number)? = action as? Tick { state.forwarded.append(number) }
            })
        page.forwardActions { $0 is Tick }
        let inCallback = DispatchSemaphore(value: 0)
        let otherDispatched = DispatchSemaphore(value: 0)
        let token = page.consumer.add(\.trigger) { _, _ in
            // This thread runs the page; another dispatches tick 1 to the global store, whose
            // forward into the busy page is queued.
            inCallback.signal()
            #expect(otherDispatched.wait(timeout: .now() + 30) == .success)
            // The global store is idle again: tick 2 runs it here, and its forward comes into the
            // page this thread is running.
            page.dispatchGlobal(Tick.number(2))
        }
        let other = spawn {
            #expect(inCallback.wait(timeout: .now() + 30) == .success)
            global.dispatch(Tick.number(1))
            otherDispatched.signal()
        }
        page.dispatch(Trigger.go)
        #expect(other.wait(timeout: .now() + 30) == .success)
        // This thread served the page's queue before `dispatch` returned.
        #expect(global.state.ticks == [1, 2])
        #expect(page.state.forwarded == [1, 2])
        token.cancel()
    }

    @Test func actionsAPagesCallbacksDispatchToItsGlobalStoreAreReducedInThePagesOrder() {
        let global = Self.makeGlobal()
        let page = PageStore(
            global: global, initialState: { _ in Page() },
            reducer: Reducer<Page> { (state, _: Trigger) in state.trigger += 1 })
        // Each change of the page's `trigger` dispatches a tick with its new value to the global
        // store: ticks 1 then 2, in the page's order.
        let token = page.consumer.add(\.trigger) { _, new in
            global.dispatch(Tick.number(new))
        }
        Self.hold(
            global,
            // Another thread runs the idle page, whose tick 1 is queued on the busy global store.
            whileAnotherThread: { page.dispatch(Trigger.go) },
            // The page is idle again: this thread runs it, inside the global store's processing,
            // and its tick 2 comes into the global store this thread is running.
            thenHere: { page.dispatch(Trigger.go) })
        // This thread served the global store's queue before `dispatch` returned.
        #expect(page.state.trigger == 2)
        #expect(global.state.ticks == [1, 2])
        token.cancel()
    }

    /// README: the processing the thread is in, innermost first, decides: a callback of the
    /// global store called from inside the page's processing (an `.instantly` call inside `add`)
    /// is part of the page's processing, and its dispatch to the global store waits behind the
    /// actions other threads queued there.
    @Test func aGlobalCallbackCalledFromThePagesProcessingDispatchesBehindTheQueue() {
        let global = Self.makeGlobal()
        let page = PageStore(
            global: global, initialState: { _ in Page() },
            reducer: Reducer<Page> { state, action in
                if action is Hold { state.trigger += 1 }
            })
        page.forwardActions { $0 is Hold }
        // The hold is forwarded into the page, which runs on this thread inside the global store's
        // processing; its callback adds a global member whose `.instantly` call (inside `add`)
        // dispatches tick 2.
        let tokens = Recorder<ConsumerToken>()
        let pageToken = page.consumer.add(\.trigger) { _, _ in
            tokens.append(
                page.globalConsumer.add(\.hold, options: .instantly) { _, _ in
                    global.dispatch(Tick.number(2))
                })
        }
        // A thread inside another store's processing queues without waiting.
        let other = Store(initialState: Page(), reducer: Reducer<Page> { (state, _: Trigger) in state.trigger += 1 })
        let otherSubscription = other.subscribe { _, _ in global.dispatch(Tick.number(1)) }
        // Another thread queues tick 1 on the busy global store meanwhile.
        Self.hold(global, whileAnotherThread: { other.dispatch(Trigger.go) }, thenHere: {})
        #expect(tokens.count == 1)
        #expect(global.state.ticks == [1, 2])
        otherSubscription.cancel()
        pageToken.cancel()
    }
}
