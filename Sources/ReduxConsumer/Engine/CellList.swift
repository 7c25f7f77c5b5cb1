/// The cells a pass evaluates, one per node at the node's index, in a buffer the list allocates
/// and frees itself: a pass reads it with plain loads, where walking an array kept by the engine
/// retains and releases the array's buffer (two atomic operations on every dispatch).
///
/// A walk (``beginWalk()`` to ``endWalk()``) reads the buffer as it was when the walk began. A
/// change during the walk (a selector that adds or removes consumers) first moves the list to a
/// copy, and the walked buffer is freed when the walk ends.
struct CellList: ~Copyable {
    typealias Element = Unmanaged<EvaluatedCell>

    // Unretained cells: the engine's list of nodes holds each node, and each node its `cell`;
    // a walk that outlives a change reads cells that the engine's copy of the old list holds
    // (see ``SelectionEngine/nodesAsWalked``). Debug passes check each walked cell against it.
    private var base: UnsafeMutablePointer<Element>?
    private var capacity = 0
    /// The number of cells.
    private(set) var count = 0
    /// The buffer of the walk in progress, if one is: a change copies the list out of it first.
    private var walked: UnsafeMutablePointer<Element>?
    /// Whether a walk is in progress.
    private(set) var isWalking = false

    init() {}

    deinit {
        assert(!isWalking, "a list of cells dropped during a walk")
        base?.deallocate()
    }

    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "a cell index out of range")
            return base.unsafelyUnwrapped[index]
        }
        set {
            precondition(index >= 0 && index < count, "a cell index out of range")
            leaveWalkedBuffer(capacity: capacity)
            base.unsafelyUnwrapped[index] = newValue
        }
    }

    mutating func append(_ cell: Element) {
        if count == capacity {
            moveToNewBuffer(capacity: Swift.max(8, capacity * 2))
        } else {
            leaveWalkedBuffer(capacity: capacity)
        }
        (base.unsafelyUnwrapped + count).initialize(to: cell)
        count += 1
    }

    mutating func removeLast() -> Element {
        precondition(count > 0, "the last cell removed from an empty list")
        leaveWalkedBuffer(capacity: capacity)
        count -= 1
        return base.unsafelyUnwrapped[count]
    }

    /// Starts a walk: the cells as they are now, valid until ``endWalk()`` whatever changes the
    /// list meanwhile.
    mutating func beginWalk() -> UnsafeBufferPointer<Element> {
        precondition(!isWalking, "a walk of the cells began inside another")
        isWalking = true
        walked = base
        return UnsafeBufferPointer(start: base, count: count)
    }

    /// Ends the walk begun by ``beginWalk()``, freeing its buffer if the list moved out of it.
    mutating func endWalk() {
        assert(isWalking, "a walk of the cells ended before it began")
        isWalking = false
        if let walked, walked != base {
            walked.deallocate()
        }
        walked = nil
    }

    /// Before a change during a walk: copies the list out of the walked buffer.
    private mutating func leaveWalkedBuffer(capacity: Int) {
        guard _slowPath(isWalking), base == walked, base != nil else { return }
        moveToNewBuffer(capacity: capacity)
    }

    /// Copies the cells to a new buffer of `capacity`, freeing the old one unless a walk reads it.
    private mutating func moveToNewBuffer(capacity newCapacity: Int) {
        let new = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let base {
            new.initialize(from: base, count: count)
            if base != walked {
                base.deallocate()
            }
        }
        base = new
        capacity = newCapacity
    }
}
