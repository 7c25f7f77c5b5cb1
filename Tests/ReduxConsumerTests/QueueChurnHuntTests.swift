import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Guarantee 3 for `deliveringOn:` members while members are added, removed and the subscription
/// renewed on other threads: each member's calls form one chain, from its `.instantly` call to the
/// last state.
struct QueueChurnHuntTests {
    private struct Call: Equatable, Sendable {
        let old: Int
        let new: Int
    }

    @Test func queuedMembersHearOneChainWhileOthersChurn() {
        let queue = DispatchQueue(label: "queue-churn-hunt")
        let store = makeStore()
        let consumer = StateConsumer<AppState>(deliveringOn: queue)
        let subscription = Slot<Subscription?>(store.subscribe(consumer))
        let logs = Slot<[Int: Recorder<Call>]>([:])
        let removed = Slot<Set<Int>>([])
        let dispatches = scaled(3_000, sanitized: 300)
        let finished = finishesWithoutDeadlock(within: 60) {
            let dispatching = spawn {
                for _ in 0..<dispatches { store.dispatch(CounterAction.increment) }
            }
            let churning = spawn {
                var ids: [Int] = []
                for round in 0..<scaled(600, sanitized: 60) {
                    let log = Recorder<Call>()
                    logs.value[round] = log
                    consumer.add(\.counter, options: .instantly) { old, new in log.append(Call(old: old, new: new)) }
                    ids.append(round)
                    if round % 7 == 6 {
                        consumer.removeAll()
                        removed.value.formUnion(ids)
                        ids.removeAll()
                    }
                    if round % 11 == 10 {
                        subscription.value?.cancel()
                        subscription.value = store.subscribe(consumer)
                    }
                }
            }
            dispatching.wait()
            churning.wait()
            queue.sync {}
        }
        guard finished else { return }
        let final = store.state.counter
        for (id, log) in logs.value.sorted(by: { $0.key < $1.key }) {
            let calls = log.values
            let isRemoved = removed.value.contains(id)
            // The first call is the `.instantly` one, or it merged with the changes after it.
            #expect(isRemoved || !calls.isEmpty, "m\(id) was never called")
            #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.new == $1.old }, "m\(id): \(calls)")
            #expect(calls.dropFirst().allSatisfy { $0.old < $0.new }, "m\(id): \(calls)")
            if !isRemoved {
                #expect(calls.last?.new == final, "m\(id): \(calls.suffix(3)), counter \(final)")
            }
        }
        subscription.value?.cancel()
    }
}
