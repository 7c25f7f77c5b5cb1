import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumerTesting

/// The queue of received actions a test store has not asserted: taking the oldest is constant time
/// (it was `removeFirst` on an array, so N receives of N waiting actions cost O(N²): 338 µs a
/// receive with 10,000 waiting), and it reads as the array it replaces, whatever was taken.
struct ReceivedQueueTests {
    @Test func itReadsAsTheArrayOfWhatIsLeftThroughAppendsAndRemovals() {
        var queue = ReceivedQueue<Int>()
        var model: [Int] = []
        var generator = SplitMix64(seed: 0x5EED)
        var next = 0
        for _ in 0..<2_000 {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                queue.append(next)
                model.append(next)
                next += 1
            case 1:
                let batch = (next..<(next + Int.random(in: 0..<5, using: &generator))).map { $0 }
                queue += batch
                model += batch
                next += batch.count
            default:
                let count = Int.random(in: 0...min(3, model.count), using: &generator)
                queue.removeFirst(count)
                model.removeFirst(count)
            }
            #expect(Array(queue) == model)
            #expect(queue.first == model.first && queue.last == model.last)
            #expect(queue.firstIndex { $0.isMultiple(of: 7) } == model.firstIndex { $0.isMultiple(of: 7) })
        }
        queue.removeAll()
        #expect(queue.isEmpty)
    }
}
