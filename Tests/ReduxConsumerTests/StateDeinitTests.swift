import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 4 for what a state holds: an object in the state whose `deinit` runs when the store
/// replaces it is user code too, and runs with no library lock held (it may read the store).
struct StateDeinitTests {
    @Test func aReplacedObjectsDeinitMayReadTheStore() {
        let storeBox = Lock<Store<HolderState>?>(nil)
        let readBack = Recorder<Int>()
        let reducer = Reducer<HolderState>.combine(
            Reducer { (state, _: Note) in state.notes += 1 },
            Reducer { (state, action: Replace) in
                state.generation = action.generation
                state.held = RunsOnDeinit {
                    let store = storeBox.withLock { $0 }
                    readBack.append(store?.state.generation ?? -1)
                    store?.dispatch(Note())  // and may dispatch: queued behind the current action
                    // Another thread reads the store meanwhile and is waited for: it would wait
                    // forever for a lock held around this deinit.
                    spawn { _ = store?.state }.wait()
                }
            })
        let store = Store(initialState: HolderState(), reducer: reducer)
        storeBox.withLock { $0 = store }
        let finished = finishesWithoutDeadlock {
            for generation in 1...3 {
                store.dispatch(Replace(generation: generation))
            }
        }
        #expect(finished, "a deinit that reads the store ran under the store's lock")
        // The objects replaced by actions 2 and 3 went when their replacement was published.
        #expect(readBack.values == [2, 3])
        #expect(store.state.notes == 2)
        storeBox.withLock { $0 = nil }
    }
}

private struct HolderState: Sendable {
    var generation = 0
    var notes = 0
    var held: RunsOnDeinit?
}

private struct Note: Action {}

private struct Replace: Action {
    let generation: Int
}
