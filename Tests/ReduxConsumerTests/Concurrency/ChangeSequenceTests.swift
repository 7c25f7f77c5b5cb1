import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct ChangeSequenceTests {
    @Test func changesFollowTheConsumerRules() async {
        let store = makeStore()
        let changes = store.changes(of: \.counter, options: .instantly)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == Change(old: 0, new: 0))  // .instantly: the starting value
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.rename("Kim"))  // not the counter: no element
        await store.send(CounterAction.set(5))
        #expect(await iterator.next() == Change(old: 0, new: 5))  // merged: the reader was behind
    }

    @Test func unboundedBufferingDeliversEveryChange() async {
        let store = makeStore()
        var iterator = store.changes(of: \.counter, options: .instantly, buffering: .unbounded).makeAsyncIterator()
        _ = await iterator.next()
        for _ in 0..<1_000 { store.dispatch(CounterAction.increment) }
        for expected in 1...1_000 {
            #expect(await iterator.next() == Change(old: expected - 1, new: expected))
        }
    }

    @Test func aSlowReaderOfABurstGetsMergedChangesThatKeepTheChain() async {
        let store = makeStore()
        let changes = store.changes(of: \.counter, options: .instantly)
        let burst = 200_000
        let reader = Task {
            var last = 0
            var count = 0
            for await change in changes {
                if change.old != last { return (false, count) }
                last = change.new
                count += 1
                if last == burst { break }
                await Task.yield()
            }
            return (true, count)
        }
        let outcome = Lock<(chained: Bool, count: Int)?>(nil)
        // The reader ends only once it was given the last state, so awaiting it (not joining the
        // writer) tells that the burst is over, and keeps the pool free.
        let finished = await finishesWithoutDeadlock(within: 60) {
            // Let the reader subscribe (its first element is the starting value).
            while store.subscriberCount == 0 { await Task.yield() }
            _ = spawn { for _ in 0..<burst { store.dispatch(CounterAction.increment) } }
            let result = await reader.value
            outcome.withLock { $0 = result }
        }
        guard finished, let (chained, count) = outcome.withLock({ $0 }) else { return }
        #expect(chained)
        #expect(count <= burst + 1)
    }

    @Test func cancellingTheReadingTaskRemovesItsSubscription() async {
        let store = makeStore()
        let started = DispatchSemaphore(value: 0)
        let reader = Task {
            var count = 0
            for await _ in store.changes(of: \.counter, options: .instantly) {
                count += 1
                if count == 1 { started.signal() }
            }
            return count
        }
        await withCheckedContinuation { done in
            DispatchQueue.global().async {
                started.wait()
                done.resume()
            }
        }
        #expect(store.subscriberCount == 1)
        reader.cancel()
        _ = await reader.value
        #expect(store.subscriberCount == 0)
    }

    @Test func cancellingAReaderThatNeverWaitsEndsItsIteration() async {
        let store = makeStore()
        let isReading = Lock(true)
        // Dispatches while the reader reads (bounded: a reader that never ends fails, not hangs),
        // so that a change is always pending and the reader never has to wait for one.
        let writer = spawn {
            for _ in 0..<1_000_000 where isReading.withLock({ $0 }) {
                store.dispatch(CounterAction.increment)
            }
        }
        let reader = Task {
            var afterCancel = 0
            var isCancelled = false
            for await _ in store.changes(of: \.counter, options: .instantly) {
                if isCancelled {
                    afterCancel += 1
                } else {
                    withUnsafeCurrentTask { $0?.cancel() }
                    isCancelled = true
                }
            }
            isReading.withLock { $0 = false }
            return afterCancel
        }
        // At most the change pending when the cancellation was seen.
        #expect(await reader.value <= 1)
        await withCheckedContinuation { done in
            DispatchQueue.global().async {
                writer.wait()
                done.resume()
            }
        }
        #expect(store.subscriberCount == 0)
    }

    @Test func theSequenceFinishesWhenTheStoreIsReleased() async {
        var store: Store<AppState>? = makeStore()
        let changes = store!.changes(of: \.counter, options: .instantly)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == Change(old: 0, new: 0))
        weak let weakStore = store
        store = nil
        #expect(weakStore == nil)
        #expect(await iterator.next() == nil)
    }

    @Test func statesAndActionsStreamTheirElementsInOrder() async {
        let store = makeStore()
        var states = store.states(buffering: .unbounded).makeAsyncIterator()
        var actions = store.actions.makeAsyncIterator()
        // Subscribe both before acting: an iteration subscribes on its first `next()`.
        async let firstState = states.next()
        async let firstAction = actions.next()
        while store.subscriberCount < 2 { await Task.yield() }
        await store.send(CounterAction.increment)
        #expect(await firstState?.new.counter == 1)
        #expect(await firstAction.map { "\($0)" } == "increment")
    }
}
