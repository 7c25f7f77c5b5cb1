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
