import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// `ConditionLock`'s trailing words share its allocation with the value and the pthread
/// primitives: they start at zero, and writing every one of them disturbs neither the value nor
/// the mutex and condition (which would hang or corrupt the count if the words overlapped them).
struct ConditionLockTests {
    @Test func trailingWordsStartAtZeroAndLeaveTheValueAndThePrimitivesAlone() {
        let words = 18
        let lock = ConditionLock(0, trailingWords: words)
        let trailing = lock.trailingWords
        #expect((0..<words).allSatisfy { trailing[$0] == 0 })
        for index in 0..<words { trailing[index] = .max }
        #expect(lock.withLock { $0 } == 0)
        let threads = 4
        let increments = scaled(20_000, sanitized: 2_000)
        let finished = finishesWithoutDeadlock(within: 60) {
            let workers = (0..<threads).map { _ in
                spawn {
                    for _ in 0..<increments {
                        lock.withLock { $0 += 1 }
                    }
                    lock.broadcast()
                }
            }
            // Woken by the workers' broadcasts: the condition variable works beside the words.
            lock.withLock(waitingUntil: { $0 == threads * increments }) { _ in }
            for worker in workers { worker.wait() }
        }
        guard finished else { return }
        #expect(lock.withLock { $0 } == threads * increments)
        #expect((0..<words).allSatisfy { trailing[$0] == .max })
    }
}
