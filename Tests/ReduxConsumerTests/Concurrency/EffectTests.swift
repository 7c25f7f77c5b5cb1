import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

private enum SearchAction: Action, Equatable {
    case query(String)
    case results(String)
    case failed(String)
}

private struct SearchState: Equatable, Sendable {
    var results: [String] = []
    var errors: [String] = []
}

private let searchReducer = Reducer<SearchState> { (state, action: SearchAction) in
    switch action {
    case .query: break
    case .results(let text): state.results.append(text)
    case .failed(let message): state.errors.append(message)
    }
}

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

struct EffectTests {
    @Test func anEffectSendsItsResultsInOrderAfterItsActionWasReduced() async {
        let effect = Effect<SearchState>.on(SearchAction.self, when: { if case .query = $0 { true } else { false } }) {
            action, context in
            guard case .query(let text) = action else { return }
            for suffix in ["1", "2", "3"] {
                await context.send(SearchAction.results(text + suffix))
            }
        }
        let store = Store(initialState: SearchState(), reducer: searchReducer, effects: [effect])
        await store.send(SearchAction.query("a"))
        await store.effectsIdle()
        #expect(store.state.results == ["a1", "a2", "a3"])
    }

    @Test func startingAnEffectWithTheSameIdCancelsTheRunningOne() async {
        let firstCancelled = Lock(false)
        let gate = Signal()
        let effect = Effect<SearchState>.on(
            SearchAction.self,
            when: { if case .query = $0 { true } else { false } },
            id: { _ in "search" }
        ) { action, context in
            guard case .query(let text) = action else { return }
            if text == "slow" {
                await withTaskCancellationHandler {
                    await gate.wait()
                } onCancel: {
                    firstCancelled.withLock { $0 = true }
                    gate.fire()
                }
            }
            await context.send(SearchAction.results(text))
        }
        let store = Store(initialState: SearchState(), reducer: searchReducer, effects: [effect])
        await store.send(SearchAction.query("slow"))
        await store.send(SearchAction.query("fast"))
        await store.effectsIdle()
        #expect(firstCancelled.withLock { $0 })
        #expect(store.state.results == ["fast"])
    }

    @Test func cancelEffectsByIdStopsTheRunningEffect() async {
        let cancelled = Lock(false)
        let started = Signal()
        let effect = Effect<SearchState>.on(SearchAction.self, id: { _ in "poll" }) { _, _ in
            await withTaskCancellationHandler {
                started.fire()
                await Signal().wait()
            } onCancel: {
                cancelled.withLock { $0 = true }
            }
        }
        let store = Store(initialState: SearchState(), reducer: searchReducer, effects: [effect])
        await store.send(SearchAction.query("x"))
        await started.wait()
        #expect(store.runningEffects == ["query(\"x\")"])
        store.cancelEffects(id: "poll")
        #expect(cancelled.withLock { $0 })
    }

    @Test func aThrowingEffectReachesItsHandlerAndTheStoreKeepsWorking() async {
        let effect = Effect<SearchState>.on(
            SearchAction.self,
            when: { $0 == .query("bad") },
            operation: { _, _ in throw Boom() },
            catch: { error in SearchAction.failed("\(error)") }
        )
        let store = Store(initialState: SearchState(), reducer: searchReducer, effects: [effect])
        await store.send(SearchAction.query("bad"))
        await store.effectsIdle()
        await store.send(SearchAction.results("still here"))
        #expect(store.state == SearchState(results: ["still here"], errors: ["boom"]))
    }

    @Test func aThrowingEffectWithoutAHandlerIsReportedToTheDiagnostics() async {
        let messages = Recorder<String>()
        let effect = Effect<SearchState>.on(SearchAction.self, operation: { _, _ in throw Boom() })
        let store = Store(
            initialState: SearchState(), reducer: searchReducer, effects: [effect],
            diagnostics: { messages.append($0) })
        await store.send(SearchAction.query("bad"))
        await store.effectsIdle()
        #expect(messages.values.count == 1)
        #expect(messages.values.first?.contains("query(\"bad\")") == true)
        #expect(messages.values.first?.contains("threw boom") == true)
    }

    @Test func effectsIdleReturnsOnlyWhenEveryEffectIsDone() async {
        let gate = Signal()
        let finished = Lock(0)
        let effect = Effect<SearchState>.on(SearchAction.self, when: { if case .query = $0 { true } else { false } }) {
            _, _ in
            await gate.wait()
            finished.withLock { $0 += 1 }
        }
        let store = Store(initialState: SearchState(), reducer: searchReducer, effects: [effect])
        await store.send(SearchAction.query("a"))
        let idle = Task {
            await store.effectsIdle()
            return finished.withLock { $0 }
        }
        gate.fire()
        #expect(await idle.value == 1)
    }

    @Test func aClosedPageCancelsItsRunningEffect() async {
        let cancelled = Lock(false)
        let started = Signal()
        let effect = Effect<SearchState>.on(SearchAction.self) { _, _ in
            await withTaskCancellationHandler {
                started.fire()
                await Signal().wait()
            } onCancel: {
                cancelled.withLock { $0 = true }
            }
        }
        let global = makeStore()
        var page: PageStore<SearchState, AppState>? = PageStore(
            global: global, initialState: { _ in SearchState() }, reducer: searchReducer, effects: [effect])
        await page?.send(SearchAction.query("x"))
        await started.wait()
        page = nil  // released: closed
        #expect(cancelled.withLock { $0 })
        #expect(global.subscriberCount == 0)
    }
}
