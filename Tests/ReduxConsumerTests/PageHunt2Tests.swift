import Dispatch
import Foundation
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// Page stores under threads, second round: registrations a page makes while it closes on another
/// thread.
struct PageHunt2Tests {
    /// A thread sets up forwarding while the global store is busy on a second thread, so its
    /// registration waits in the global store's queue; the page closes meanwhile, then a global
    /// action is queued: once `close()` has returned, the forwarding's filter is never asked
    /// (guarantee 1), and nothing reaches the page.
    @Test func aForwardingSetUpWhileThePageClosesIsNeverAskedAfterTheClose() {
        let lateAsks = Recorder<String>()
        let finished = finishesWithoutDeadlock(within: 60) {
            for _ in 0..<scaled(100, sanitized: 20) {
                let global = makeRootStore()
                let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
                let (busy, proceed) = Self.holdFirstPass(of: global)
                let isClosed = Slot(false)
                let forwarder = spawn {
                    page.forwardActions { action in
                        if isClosed.value { lateAsks.append(String(describing: action)) }
                        return true
                    }
                }
                spin { global.drain.snapshot.queuedCount == 1 }
                page.close()
                isClosed.value = true
                let late = spawn { global.dispatch(AuthAction.logIn("late")) }
                spin { global.drain.snapshot.queuedCount == 2 }
                proceed.signal()
                busy.wait()
                forwarder.wait()
                late.wait()
                #expect(page.state == MainState())
                #expect(global.subscriberCount == 1)
            }
        }
        guard finished else { return }
        #expect(lateAsks.values == [])
    }

    /// The page closes while another thread is inside the page's reducer: once `close()` has
    /// returned, `state` stays what it was then ("after `close()` it stays what it was when the
    /// page closed"), even when that reduction ends later.
    @Test func aReductionInProgressWhenThePageClosesLeavesTheClosedStateAlone() {
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let slowReducer = Reducer<MainState> { (state, action: MainAction) in
            guard case .set(let value) = action else { return }
            entered.signal()
            proceed.wait()
            state.count = value
        }
        let page = PageStore(global: makeRootStore(), initialState: { _ in MainState() }, reducer: slowReducer)
        let calls = Recorder<Int>()
        page.consumer.add(\.count) { _, new in calls.append(new) }
        let states = Recorder<MainState>()
        let finished = finishesWithoutDeadlock(within: 60) {
            let busy = spawn { page.dispatch(MainAction.set(99)) }
            entered.wait()
            page.close()
            states.append(page.state)
            proceed.signal()
            busy.wait()
            states.append(page.state)
        }
        guard finished else { return }
        #expect(states.values == [MainState(), MainState()])
        #expect(calls.values == [])
    }

    /// A page closed by its own middleware right after the action was reduced keeps the state that
    /// action left: it was reduced before the close.
    @Test func aPageClosedByItsMiddlewareAfterTheReductionKeepsTheReducedState() {
        let page = Slot<PageStore<MainState, RootState>?>(nil)
        let closing: Middleware<MainState> = { _, _ in
            { next in
                { action in
                    next(action)
                    page.value?.close()
                }
            }
        }
        page.value = PageStore(
            global: makeRootStore(),
            initialState: { _ in MainState() },
            reducer: mainReducer,
            middleware: [closing]
        )
        page.value?.dispatch(MainAction.set(42))
        #expect(page.value?.isClosed == true)
        #expect(page.value?.state == MainState(count: 42))
        page.value = nil  // the middleware, which the page keeps, holds the slot
    }

    /// Dispatches a global action on a thread of its own and holds that thread in the first pass
    /// (a closure subscriber's call) until `proceed` is signalled; returns once the pass is held,
    /// with the thread to join and the semaphore that lets it go on.
    private static func holdFirstPass(
        of global: Store<RootState>
    ) -> (busy: DispatchSemaphore, proceed: DispatchSemaphore) {
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let isFirst = Slot(true)
        // Left subscribed: one subscriber of the global store, counted by the callers.
        global.subscribe { _, _ in
            guard isFirst.value else { return }
            isFirst.value = false
            entered.signal()
            proceed.wait()
        }
        let busy = spawn { global.dispatch(LifecycleAction.enterForeground) }
        entered.wait()
        return (busy, proceed)
    }

    /// A thread uses the page's global consumer for the first time while the global store is busy
    /// on a second thread, so its subscription waits in the global store's queue; the page closes
    /// meanwhile: the consumer every thread gets afterwards is never fed, and the page leaves no
    /// subscriber on the global store.
    @Test func aGlobalConsumerMadeWhileThePageClosesIsNeverFedAfterTheClose() {
        let lateCalls = Recorder<Bool>()
        let finished = finishesWithoutDeadlock(within: 60) {
            for _ in 0..<scaled(100, sanitized: 20) {
                let global = makeRootStore()
                let page = PageStore(global: global, initialState: { _ in MainState() }, reducer: mainReducer)
                let (busy, proceed) = Self.holdFirstPass(of: global)
                let maker = spawn {
                    page.globalConsumer.add(\.foreground) { _, new in lateCalls.append(new) }
                }
                spin { global.drain.snapshot.queuedCount == 1 }
                page.close()
                let late = spawn { global.dispatch(LifecycleAction.enterBackground) }
                spin { global.drain.snapshot.queuedCount == 2 }
                proceed.signal()
                busy.wait()
                maker.wait()
                late.wait()
                page.globalConsumer.add(\.auth.user) { _, _ in lateCalls.append(true) }
                global.dispatch(AuthAction.logIn("late"))
                #expect(global.subscriberCount == 1)
            }
        }
        guard finished else { return }
        #expect(lateCalls.values == [])
    }
}
