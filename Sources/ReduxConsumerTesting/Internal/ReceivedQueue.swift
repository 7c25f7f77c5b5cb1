/// The actions a test store received and the test has not asserted yet, oldest first: an array
/// read from a moving head, so that a `receive` takes the oldest in constant time (removing the
/// first element of an array moves all the others: N receives of N waiting actions cost O(N²)).
///
/// Indices are offsets from the oldest action not yet taken, as in an array.
struct ReceivedQueue<Element>: RandomAccessCollection {
    private var storage: [Element] = []
    private var head = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count - head }

    subscript(position: Int) -> Element {
        storage[head + position]
    }

    mutating func append(_ element: Element) {
        storage.append(element)
    }

    static func += (queue: inout Self, elements: some Sequence<Element>) {
        queue.storage.append(contentsOf: elements)
    }

    /// Takes out the first `count` elements.
    ///
    /// - Complexity: Amortised O(`count`): the elements taken stay in the storage (their states
    ///   alive) until they are half of it, then go at once.
    mutating func removeFirst(_ count: Int) {
        precondition(count >= 0 && count <= self.count, "removing more received actions than there are")
        head += count
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > storage.count / 2 {
            storage.removeFirst(head)
            head = 0
        }
    }

    mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}
