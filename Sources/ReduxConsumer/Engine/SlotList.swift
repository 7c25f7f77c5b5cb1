import ReduxConsumerAtomics

/// Elements kept in increasing identifier order, with O(log n) removal by identifier and iteration
/// that survives removals and insertions made while it runs.
///
/// A removed element leaves a hole (`nil`) that iteration skips; holes are squeezed out once they
/// outnumber the live elements, but never while an iteration runs (slot numbers must stay put
/// then). An element inserted while an iteration runs waits in `pending` and joins when the last
/// iteration ends, so an iteration never sees it: members added during a pass start with the next
/// state. Identifiers need not arrive in order: an insertion goes to its sorted place, so removal
/// by binary search always finds its element.
///
/// Used for every ordered list of the engine: a consumer group's members, a store's closure
/// subscribers and its action listeners.
@usableFromInline
struct SlotList<Element> {
    /// The slots, identifiers strictly increasing; `element` is `nil` for a removed one. One
    /// array, not two parallel ones: a list holding one element (a consumer's only member on a
    /// selection, the common case) is one allocation, and a delivery reads one buffer.
    @usableFromInline var entries: [Entry] = []
    /// Inserted during an iteration, in identifier order like `entries` (`nil` once removed again
    /// before it joined); merged when the last iteration ends.
    @usableFromInline var pending: [Entry] = []
    @usableFromInline var holes = 0
    @usableFromInline var iterationDepth: Int32 = 0
    /// The live elements in `pending`, kept where unspecialised code reads it without the array's type metadata
    /// (a lookup costs more than a removal); two 32-bit counters share one word.
    @usableFromInline var pendingCount: Int32 = 0

    /// One slot: an identifier and its element (`nil` once removed).
    @usableFromInline
    struct Entry {
        @usableFromInline let identifier: UInt64
        @usableFromInline var element: Element?

        @inlinable
        init(identifier: UInt64, element: Element?) {
            self.identifier = identifier
            self.element = element
        }
    }

    @inlinable
    init() {}

    /// The number of live elements, pending ones included.
    @inlinable
    var count: Int { entries.count - holes + Int(pendingCount) }

    @inlinable
    var isEmpty: Bool { count == 0 }

    /// The number of slots an iteration walks (holes included, pending ones excluded).
    @inlinable
    var slotCount: Int { entries.count }

    /// The live element in `slot`, or `nil` for a hole.
    @inlinable
    subscript(slot slot: Int) -> Element? {
        entries[slot].element
    }

    /// The identifier of the element in `slot` (a hole keeps the identifier it had).
    @inlinable
    func identifier(atSlot slot: Int) -> UInt64 {
        entries[slot].identifier
    }

    /// The first live slot at or after `slot`, or `slotCount`.
    @inlinable
    func liveSlot(from slot: Int) -> Int {
        var slot = slot
        while slot < entries.count, entries[slot].element == nil {
            slot += 1
        }
        return slot
    }

    /// The last live slot, or -1 when there is none.
    @inlinable
    func lastLiveSlot() -> Int {
        var slot = entries.count - 1
        while slot >= 0, entries[slot].element == nil {
            slot -= 1
        }
        return slot
    }

    /// Inserts `element` at its place in identifier order (or, during an iteration, once the
    /// iteration is over).
    ///
    /// - Complexity: O(1) when `identifier` is the largest so far (the usual case), O(n) otherwise.
    @inlinable
    mutating func insert(_ element: Element, identifier: UInt64) {
        guard iterationDepth == 0 else {
            // Kept sorted too, so that a member added and removed again inside one pass is found
            // by binary search (k such members cost O(k log k), not O(k²)).
            if !pending.isEmpty, pending[pending.count &- 1].identifier >= identifier {
                let low = lowerBound(count: pending.count) { pending[$0].identifier < identifier }
                pending.insert(Entry(identifier: identifier, element: element), at: low)
            } else {
                pending.append(Entry(identifier: identifier, element: element))
            }
            pendingCount += 1
            return
        }
        place(element, identifier: identifier)
    }

    /// Removes and returns the element with `identifier`, or `nil` if there is none.
    ///
    /// - Complexity: O(log n), plus an occasional compaction outside iterations.
    @inlinable
    @discardableResult
    mutating func remove(_ identifier: UInt64) -> Element? {
        if let slot = slot(of: identifier), let element = entries[slot].element.take() {
            holes += 1
            compactIfWorthIt()
            return element
        }
        if pendingCount > 0, let index = pendingIndex(of: identifier),
            let element = pending[index].element.take()
        {
            // Left as a hole in `pending`: the merge skips it, and nothing moves.
            pendingCount -= 1
            return element
        }
        return nil
    }

    /// The index in `pending` of the live element with `identifier`, by binary search.
    @inlinable
    func pendingIndex(of identifier: UInt64) -> Int? {
        var index = lowerBound(count: pending.count) { pending[$0].identifier < identifier }
        // The same identifier may be here twice (added, removed, added again in one pass): the
        // live one, if any, is among the equal run.
        while index < pending.count, pending[index].identifier == identifier {
            if pending[index].element != nil { return index }
            index += 1
        }
        return nil
    }

    /// Removes every element and returns them, in order.
    @inlinable
    mutating func removeAll() -> [Element] {
        var removed: [Element] = []
        removed.reserveCapacity(count)
        for slot in entries.indices {
            if let element = entries[slot].element {
                removed.append(element)
                entries[slot].element = nil
                holes += 1
            }
        }
        if !pending.isEmpty {
            removed += pending.compactMap(\.element)
            pending.removeAll()
            pendingCount = 0
        }
        compactIfWorthIt()
        return removed
    }

    /// The identifiers of the live elements up to `last` (pending ones included).
    func identifiers(through last: UInt64) -> [UInt64] {
        var identifiers: [UInt64] = []
        for entry in entries where entry.element != nil && entry.identifier <= last {
            identifiers.append(entry.identifier)
        }
        for entry in pending where entry.element != nil && entry.identifier <= last {
            identifiers.append(entry.identifier)
        }
        return identifiers
    }

    /// The live element with `identifier`, if there is one (pending ones included).
    @inlinable
    func element(_ identifier: UInt64) -> Element? {
        if let slot = slot(of: identifier), let element = entries[slot].element {
            return element
        }
        guard pendingCount > 0, let index = pendingIndex(of: identifier) else { return nil }
        return pending[index].element
    }

    /// Drops every element at once, returning nothing (for lists never iterated, whose elements
    /// need no release outside the caller's work).
    @inlinable
    mutating func clear() {
        assert(iterationDepth == 0, "SlotList cleared during an iteration")
        entries = []
        pending = []
        holes = 0
        pendingCount = 0
    }

    /// Whether an element with `identifier` is here.
    @inlinable
    func contains(_ identifier: UInt64) -> Bool {
        if let slot = slot(of: identifier), entries[slot].element != nil {
            return true
        }
        return pendingCount > 0 && pendingIndex(of: identifier) != nil
    }

    /// Starts an iteration over `0..<slotCount`: slots stay put until the matching
    /// ``endIteration()``.
    @inlinable
    mutating func beginIteration() {
        iterationDepth += 1
    }

    /// Ends an iteration; the last one to end merges pending insertions and compacts.
    @inlinable
    mutating func endIteration() {
        iterationDepth -= 1
        guard iterationDepth == 0 else { return }
        if !pending.isEmpty {
            let arrivals = pending
            pending.removeAll()
            pendingCount = 0
            for arrival in arrivals {
                if let element = arrival.element {
                    place(element, identifier: arrival.identifier)
                }
            }
        }
        if holes > 0 {
            compactIfWorthIt()
        }
    }

    /// The slot holding `identifier` (live or a hole), by binary search.
    @inlinable
    func slot(of identifier: UInt64) -> Int? {
        // The search reads each entry's identifier through the buffer: `identifier` is an entry's
        // first stored property (checked in debug builds), entries are `stride` bytes apart, and
        // the buffer lives through the closure.
        assert(MemoryLayout<Entry>.offset(of: \Entry.identifier) == 0, "an entry's identifier moved")
        let last = entries.count &- 1
        guard last >= 0 else { return nil }
        // The newest first: an add checks that its member, the last one in, is still there.
        let lastIdentifier = entries[last].identifier
        if lastIdentifier == identifier {
            return last
        }
        let firstIdentifier = entries[0].identifier
        guard identifier >= firstIdentifier, identifier < lastIdentifier else { return nil }
        // Identifiers strictly increase, so the one sought is at most `identifier - first` slots
        // after the first and at least `last - identifier` slots before the last: a list without
        // gaps (members added one after another, before any compaction) leaves one slot to read.
        let high = Int(truncatingIfNeeded: Swift.min(identifier &- firstIdentifier, UInt64(last)))
        let low = last &- Int(truncatingIfNeeded: Swift.min(lastIdentifier &- identifier, UInt64(last)))
        guard low <= high else { return nil }
        let found = entries.withUnsafeBytes { bytes in
            low
                &+ Int(
                    rc_lower_bound_u64(
                        bytes.baseAddress! + low &* MemoryLayout<Entry>.stride, MemoryLayout<Entry>.stride,
                        high &- low &+ 1, identifier))
        }
        return found <= high && entries[found].identifier == identifier ? found : nil
    }

    @inlinable
    mutating func place(_ element: Element, identifier: UInt64) {
        // The last identifier read in place: `entries.last` would copy the element (a retain and
        // a release of a callback's context).
        if !entries.isEmpty, entries[entries.count &- 1].identifier >= identifier {
            let low = lowerBound(count: entries.count) { entries[$0].identifier < identifier }
            precondition(entries[low].identifier != identifier, "SlotList: identifier \(identifier) inserted twice")
            entries.insert(Entry(identifier: identifier, element: element), at: low)
        } else {
            entries.append(Entry(identifier: identifier, element: element))
        }
    }

    /// Squeezes out holes once they outnumber the live elements, unless an iteration runs.
    @inlinable
    mutating func compactIfWorthIt() {
        guard iterationDepth == 0, holes > 0, holes * 2 >= entries.count else { return }
        if holes == entries.count {
            // Nothing left (a list that holds one element at a time, often): keep a small buffer.
            entries.removeAll(keepingCapacity: holes <= 16)
            holes = 0
            return
        }
        var kept = 0
        // The buffer pointer does not outlive the closure, and nothing else runs inside it (no user
        // code, no other access to `entries`); `SlotListTests` checks the order and the contents.
        entries.withUnsafeMutableBufferPointer { entries in
            for slot in entries.indices where entries[slot].element != nil {
                // Swapped with the hole at `kept`: moves, no retain or release.
                entries.swapAt(kept, slot)
                kept += 1
            }
        }
        entries.removeLast(entries.count - kept)
        holes = 0
    }
}
