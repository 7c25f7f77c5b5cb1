import Dispatch
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

        let finished = finishesWithoutDeadlock {
            let busy = spawn { page.dispatch(MainAction.increment) }
            entered.wait()
            page.close()
            busy.wait()
        }
        guard finished else { return }
        #expect(lateGlobalCalls.values.isEmpty)
        #expect(global.subscriberCount == 0)
    }
}
