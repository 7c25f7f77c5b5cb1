/// Insertion-ordered storage with O(1) append and O(1) amortised removal by identifier.
///
/// Removal leaves a hole (`nil`) that iteration skips; holes are squeezed out once they outnumber
/// the live elements, but never while a pass is iterating (slot numbers must stay put then).
/// This replaces the `Set` the peers use: order is the order of insertion, always.
struct OrderedSlots<Element> {
    private(set) var slots: [Element?] = []
    private var identifiers: [UInt64] = []
    private var slotByIdentifier: [UInt64: Int] = [:]
    private var holes = 0
    /// How many passes are iterating right now; compaction waits until none is.
    var iterationDepth = 0

    /// The number of live elements.
    var count: Int { slots.count - holes }

    var isEmpty: Bool { count == 0 }

    /// The number of slots, holes included: iterate `0..<slotCount` and skip `nil`.
    var slotCount: Int { slots.count }

    subscript(slot slot: Int) -> Element? {
        slots[slot]
    }

    func contains(_ identifier: UInt64) -> Bool {
        slotByIdentifier[identifier] != nil
    }

    subscript(identifier identifier: UInt64) -> Element? {
        guard let slot = slotByIdentifier[identifier] else { return nil }
        return slots[slot]
    }

    /// The identifier stored in `slot` (holes keep theirs until compaction).
    func identifier(atSlot slot: Int) -> UInt64 {
        identifiers[slot]
    }

    /// Appends `element`; identifiers must increase from one append to the next.
    mutating func append(_ element: Element, identifier: UInt64) {
        slotByIdentifier[identifier] = slots.count
        slots.append(element)
        identifiers.append(identifier)
    }

    /// Removes and returns the element stored under `identifier`, if any.
    @discardableResult
    mutating func remove(_ identifier: UInt64) -> Element? {
        guard let slot = slotByIdentifier.removeValue(forKey: identifier) else { return nil }
        let element = slots[slot]
        slots[slot] = nil
        holes += 1
        compactIfWorthIt()
        return element
    }

    /// Removes every element.
    mutating func removeAll() {
        if iterationDepth > 0 {
            for slot in slots.indices where slots[slot] != nil {
                slots[slot] = nil
                holes += 1
            }
            slotByIdentifier.removeAll()
        } else {
            slots.removeAll()
            identifiers.removeAll()
            slotByIdentifier.removeAll()
            holes = 0
        }
    }

    /// Squeezes out holes if there are many and nobody is iterating.
    mutating func compactIfWorthIt() {
        guard iterationDepth == 0, holes > 16, holes * 2 > slots.count else { return }
        var kept = 0
        for slot in slots.indices {
            guard let element = slots[slot] else { continue }
            slots[kept] = element
            identifiers[kept] = identifiers[slot]
            slotByIdentifier[identifiers[kept]] = kept
            kept += 1
        }
        slots.removeLast(slots.count - kept)
        identifiers.removeLast(identifiers.count - kept)
        holes = 0
    }
}
