import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A page reduces the actions it forwards in the order the global store reduced them, whichever
/// threads ran the global store: a forward made on the thread that is running the page waits
/// behind the forwards other threads queued for it before.
@Suite struct ForwardOrderTests {
    private struct Global: Sendable {
        var ticks: [Int] = []
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

    @Test func aForwardMadeWhileThePageRunsHereFollowsTheForwardsQueuedBeforeIt() {
        let global = Store(
            initialState: Global(),
            reducer: Reducer<Global> { (state, tick: Tick) in
                if case .number(let number) = tick { state.ticks.append(number) }
            })
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
}
