import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

struct StreamHuntTests {
    /// Guarantee 3 for merged streams under churn: tasks send while others iterate
    /// `changes(of:)` (coalescing) and stop at once; every element's `old` is the previous
    /// element's `new`, values only grow, and a reader that stays sees the final value.
    @Test func coalescedChangesStayMonotonicWhileReadersComeAndGo() async {
        let senders = 4
        let perSender = scaled(500, sanitized: 100)
        let total = senders * perSender
        let broken = Slot<String?>(nil)
        await finishesWithoutDeadlock(within: 120) {
            let store = makeStore()
            await withTaskGroup(of: Void.self) { group in
                for reader in 0..<4 {
                    group.addTask {
                        var round = 0
                        while store.state.counter < total {
                            round += 1
                            let stopAfter = (reader + round) % 5 + 1
                            var previous: Int?
                            var seen = 0
                            for await change in store.changes(of: \.counter, options: .instantly) {
                                if let previous, change.old != previous || change.new <= change.old {
                                    broken.value = "reader \(reader): \(previous) then \(change.old) → \(change.new)"
                                }
                                previous = change.new
                                seen += 1
                                if seen == stopAfter || change.new == total { break }
                            }
                        }
                    }
                }
                let finalReader = Task { () -> Int? in
                    for await change in store.changes(of: \.counter, options: .instantly) where change.new == total {
                        return change.new
                    }
                    return nil
                }
                while store.subscriberCount == 0 { await Task.yield() }
                for _ in 0..<senders {
                    group.addTask {
                        for _ in 0..<perSender { await store.send(CounterAction.increment) }
                    }
                }
                await group.waitForAll()
                #expect(await finalReader.value == total)
            }
        }
        #expect(broken.value == nil)
    }
}
