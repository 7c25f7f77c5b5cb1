import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct AsyncHunt2Tests {
    /// `EffectContext`: "once the store is gone (or the page closed), sends are ignored and
    /// `state` is `nil`". An effect of a page that goes on after the page closed (its operation
    /// does not stop at cancellation) must not read the closed page's state.
    @Test func anEffectOfAClosedPageReadsNoState() async {
        let started = Signal()
        let seen = Slot<[Int?]>([])
        let effect = Effect<PageCount>.on(PageStep.self, when: { $0 == .start }) { _, context in
            seen.value.append(context.state?.count)
            started.fire()
            await Signal().wait()  // returns once the effect is cancelled
            seen.value.append(context.state?.count)
            await context.send(PageStep.bump)
        }
        await finishesWithoutDeadlock(within: 60) {
            let page = PageStore(
                global: makeStore(), initialState: { _ in PageCount() }, reducer: pageCountReducer, effects: [effect])
            await page.send(PageStep.start)
            await started.wait()
            page.close()
            await page.effectsIdle()
            #expect(seen.value == [1, nil], "the effect read the closed page's state")
            #expect(page.state.count == 1)
        }
    }
}

// MARK: - The effect of a closed page

private struct PageCount: Equatable, Sendable {
    var count = 0
}

private enum PageStep: Action, Equatable {
    case start
    case bump
}

private let pageCountReducer = Reducer<PageCount> { (state, action: PageStep) in
    switch action {
    case .start: state.count = 1
    case .bump: state.count += 1
    }
}
