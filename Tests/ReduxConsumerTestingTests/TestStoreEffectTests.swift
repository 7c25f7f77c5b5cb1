import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import ReduxConsumerTesting
import Testing

/// A test store with effects, in async tests: `await receive` for what effects send, `finish()`
/// for what they leave running.
struct TestStoreEffectTests {
    /// A test store for the search page's state alone (no page), its effect asking `backend`.
    static func makeStore(backend: @escaping SearchBackend) -> TestStore<SearchState> {
        TestStore(initialState: SearchState(), reducer: searchReducer, effects: [searchEffect(backend: backend)])
    }

    /// A backend that answers once the gate opens (and never, if the search is cancelled first).
    static func backend(answeringAfter gate: Gate) -> SearchBackend {
        { query in
            guard await gate.wait() else { throw CancellationError() }
            return [query.uppercased()]
        }
    }

    // MARK: Receiving what effects send

    /// A synchronous test that received an effect's last action may call the synchronous `finish()`
    /// at once: the effect, winding down on its own thread, is waited for (up to 1 s) instead of
    /// being reported as still running. (Found by a red-team run: up to 16 rounds in 200 failed
    /// while another thread kept a processor busy.)
    @Test func aSynchronousFinishRightAfterAnEffectsLastActionWaitsForItToEnd() async {
        enum Step: Action, Equatable { case start, done }
        let reducer = Reducer<Int> { (state, action: Step) in
            if action == .done { state += 1 }
        }
        let isLoading = Lock(true)
        let load = spawn { while isLoading.withLock({ $0 }) {} }
        defer {
            isLoading.withLock { $0 = false }
            load.wait()
        }
        // The synchronous API, driven from a thread of its own: blocked in a test's task, it would
        // hold a thread of the cooperative pool its effects need.
        await onAThreadOfItsOwn {
            for _ in 0..<200 {
                let store = TestStore(
                    initialState: 0, reducer: reducer,
                    effects: [
                        Effect.on(Step.self, when: { $0 == .start }) { _, context in await context.send(Step.done) }
                    ]
                )
                store.send(Step.start)
                store.receive(Step.done, timeout: patience) { $0 = 1 }
                store.finish()
            }
        }
    }

    @Test func anActionAnEffectSendsLaterIsReceived() async {
        let gate = Gate()
        let store = Self.makeStore(backend: Self.backend(answeringAfter: gate))
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        gate.open()
        await store.receive(SearchAction.results(["SWIFT"]), timeout: patience) {
            $0.isSearching = false
            $0.results = ["SWIFT"]
        }
        await store.finish()
    }

    @Test func anEffectsErrorIsReceivedThroughItsHandler() async {
        struct Offline: Error, CustomStringConvertible {
            var description: String { "offline" }
        }
        let store = Self.makeStore(backend: { _ in throw Offline() })
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        await store.receive(
            SearchAction.self, where: { if case .failed = $0 { true } else { false } }, timeout: patience
        ) {
            $0.isSearching = false
            $0.error = "offline"
        }
        await store.finish()
    }

    @Test func aMissingActionFailsAfterTheTimeoutNamingIt() async {
        let gate = Gate()
        let store = Self.makeStore(backend: Self.backend(answeringAfter: gate))
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        let line = #line + 4
        await expectFailure(
            "Expected to receive results([\"SWIFT\"]) within 0.05 seconds, but nothing was received.", atLine: line
        ) {
            await store.receive(SearchAction.results(["SWIFT"]), timeout: 0.05)
        }
        gate.open()
        await store.receive(SearchAction.results(["SWIFT"]), timeout: patience) {
            $0.isSearching = false
            $0.results = ["SWIFT"]
        }
        await store.finish()
    }

    @Test func aWrongActionFromAnEffectFails() async {
        let store = Self.makeStore(backend: { query in [query] })
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        await expectFailure("Expected to receive results([\"SWIFT\"]), but received results([\"swift\"]) first.") {
            await store.receive(SearchAction.results(["SWIFT"]), timeout: patience)
        }
        await store.finish()
    }

    @Test func nonExhaustiveReceiveSkipsToTheMatchingAction() async {
        let store = Self.makeStore(backend: { query in [query] })
        store.exhaustivity = .off
        await store.send(SearchAction.search("a"))
        await store.receive(SearchAction.results(["a"]), timeout: patience)
        await store.send(SearchAction.search("b"))
        await store.receive(SearchAction.results(["b"]), timeout: patience) { $0.results = ["b"] }
        await store.finish()
    }

    // MARK: Effects left running

    @Test func finishFailsWhenAnEffectIsStillRunningNamingIt() async {
        let store = Self.makeStore(backend: Self.backend(answeringAfter: Gate()))
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        let line = #line + 2
        expectFailure("1 effect was still running at finish(), started by:\n  search(\"swift\")", atLine: line) {
            store.finish(timeout: 0)  // the effect waits for a gate that never opens: no use waiting
        }
    }

    @Test func asyncFinishWaitsForTheEffectsThenFailsNamingThoseStillRunning() async {
        let store = Self.makeStore(backend: Self.backend(answeringAfter: Gate()))
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        let expected = """
            1 effect was still running at finish() after waiting 0.05 seconds, started by:
              search("swift")
            """
        await expectFailure(expected) {
            await store.finish(timeout: 0.05)
        }
    }

    @Test func asyncFinishWaitsForAnEffectToEnd() async {
        let gate = Gate()
        let ended = Flag()
        let effect = Effect<SearchState>.on(SearchAction.self) { _, _ in
            await gate.wait()
            ended.set()
        }
        let store = TestStore(initialState: SearchState(), reducer: searchReducer, effects: [effect])
        await store.send(SearchAction.failed("x")) { $0.error = "x" }
        Task { gate.open() }
        await store.finish(timeout: patience)
        #expect(ended.isSet)
    }

    @Test func asyncFinishReportsTheActionsTheEffectsSentWhileItWaited() async {
        let gate = Gate()
        let store = Self.makeStore(backend: Self.backend(answeringAfter: gate))
        await store.send(SearchAction.search("swift")) {
            $0.query = "swift"
            $0.isSearching = true
        }
        Task { gate.open() }
        await expectFailure("The test did not assert 1 received action before finish():\n  results([\"SWIFT\"])") {
            await store.finish(timeout: patience)
        }
    }

    @Test func nonExhaustiveFinishIgnoresRunningEffects() async {
        let store = Self.makeStore(backend: Self.backend(answeringAfter: Gate()))
        store.exhaustivity = .off
        await store.send(SearchAction.search("swift"))
        // The synchronous `finish()` (in an async function, `store.finish()` is the async one).
        let finish: () -> Void = { store.finish() }
        finish()

        let asyncStore = Self.makeStore(backend: Self.backend(answeringAfter: Gate()))
        asyncStore.exhaustivity = .off
        await asyncStore.send(SearchAction.search("swift"))
        await asyncStore.finish(timeout: patience)
    }

    @Test func aStoreReleasedWithAnEffectRunningReportsItWhereItWasCreated() async {
        let gate = Gate()
        let message = """
            1 effect was still running when the TestStore was released without finish(), started by:
              search("swift")
            """
        let line = #line + 2
        await expectFailure(message, atLine: line) {
            let store = TestStore(
                initialState: SearchState(), reducer: searchReducer,
                effects: [searchEffect(backend: Self.backend(answeringAfter: gate))])
            await store.send(SearchAction.search("swift")) {
                $0.query = "swift"
                $0.isSearching = true
            }
        }
    }

    @Test func aLatestWinsEffectLeavesOnlyTheLastOneRunning() async {
        let gates = ["s": Gate(), "sw": Gate()]
        let store = Self.makeStore(backend: { query in
            guard await gates[query]?.wait() == true else { throw CancellationError() }
            return [query]
        })
        await store.send(SearchAction.search("s")) {
            $0.query = "s"
            $0.isSearching = true
        }
        await store.send(SearchAction.search("sw")) { $0.query = "sw" }
        gates["sw"]?.open()
        await store.receive(SearchAction.results(["sw"]), timeout: patience) {
            $0.isSearching = false
            $0.results = ["sw"]
        }
        await store.finish(timeout: patience)
    }

    // MARK: Threads

    /// 4× the cooperative pool's width of test stores wait in `await receive` for an action that
    /// an effect sends only after an unrelated task, which needs a pool thread, has run. A receive
    /// that blocked its thread would take the pool and deadlock until the receives time out, after
    /// the watchdog has given up (and the receives fail then too).
    ///
    /// The async watchdog waits on a thread of its own and counts only time in which the pool was
    /// free to run the stores: the rest of the run queues ahead of them on a two-thread pool.
    @Test func awaitingReceiveNeverBlocksTheCooperativePool() async {
        let count = 4 * max(2, ProcessInfo.processInfo.activeProcessorCount)
        await finishesWithoutDeadlock(within: Int(patience / 2)) {
            await Self.storesWaitingForOneTask(count: count)
        }
    }

    private static func storesWaitingForOneTask(count: Int) async {
        let gate = Gate()
        let (waiting, arrival) = AsyncStream.makeStream(of: Void.self)
        let opener = Task {
            var arrived = 0
            for await _ in waiting {
                arrived += 1
                if arrived == count { break }
            }
            gate.open()
        }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    let store = makeStore(backend: backend(answeringAfter: gate))
                    await store.send(SearchAction.search("q\(index)")) {
                        $0.query = "q\(index)"
                        $0.isSearching = true
                    }
                    arrival.yield()
                    await store.receive(SearchAction.results(["Q\(index)"]), timeout: patience) {
                        $0.isSearching = false
                        $0.results = ["Q\(index)"]
                    }
                    await store.finish(timeout: patience)
                }
            }
        }
        await opener.value
    }
}
