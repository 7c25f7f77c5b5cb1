extension TestStore {
    /// The probed firings due for assertion, in the order they fired, indexed by probe: finding a
    /// probe's first firing and taking it out cost O(1) amortised however many probes fired (a
    /// linear search of one array, then `remove(at:)` moving the rest, made N assertions of N
    /// firings cost O(N²)).
    ///
    /// A firing taken out leaves an empty slot behind, skipped by everything that reads the
    /// firings in order; the slots go when the last firing does, or with ``removeAll()``.
    struct DueFirings: Sequence {
        /// Every firing added since the firings were last empty, in order; `nil` once taken out.
        private var slots: [DueFiring?] = []
        /// The slot before which every slot is empty.
        private var head = 0
        /// For each probe, the positions of its firings in `slots`, in order, read from a head
        /// before which every position is empty.
        private var positionsByProbe: [Int: (positions: [Int], head: Int)] = [:]
        private var liveCount = 0

        init() {}

        init(_ firings: some Sequence<DueFiring>) {
            self += firings
        }

        static func += (firings: inout Self, added: some Sequence<DueFiring>) {
            for due in added {
                firings.positionsByProbe[due.firing.probeID, default: ([], 0)].positions.append(firings.slots.count)
                firings.slots.append(due)
                firings.liveCount += 1
            }
        }

        /// The position of the first firing of `probeID` that `isMatch` accepts, or `nil`.
        ///
        /// - Complexity: O(1) for the first firing of the probe; otherwise O(*k*), *k* being the
        ///   number of the probe's firings.
        func firstPosition(ofProbe probeID: Int, where isMatch: (DueFiring) -> Bool = { _ in true }) -> Int? {
            guard let entry = positionsByProbe[probeID] else { return nil }
            for position in entry.positions[entry.head...] {
                if let due = slots[position], isMatch(due) { return position }
            }
            return nil
        }

        /// The firings of `probeID` still due, in order.
        func firings(ofProbe probeID: Int) -> [DueFiring] {
            guard let entry = positionsByProbe[probeID] else { return [] }
            return entry.positions[entry.head...].compactMap { slots[$0] }
        }

        /// Takes out the firing at `position` (from ``firstPosition(ofProbe:where:)``).
        ///
        /// - Complexity: O(1) amortised.
        mutating func remove(at position: Int) -> DueFiring {
            guard let due = slots[position] else { preconditionFailure("a due firing taken out twice") }
            slots[position] = nil
            liveCount -= 1
            if liveCount == 0 {
                removeAll()
                return due
            }
            let probeID = due.firing.probeID
            if var entry = positionsByProbe[probeID] {
                positionsByProbe[probeID] = nil  // no copy of `positions` while it changes
                while entry.head < entry.positions.count, slots[entry.positions[entry.head]] == nil {
                    entry.head += 1
                }
                if entry.head < entry.positions.count {
                    positionsByProbe[probeID] = entry
                }
            }
            while head < slots.count, slots[head] == nil {
                head += 1
            }
            return due
        }

        mutating func removeAll() {
            slots.removeAll(keepingCapacity: true)
            positionsByProbe.removeAll()
            head = 0
            liveCount = 0
        }

        func makeIterator() -> Iterator {
            Iterator(slots: slots[head...])
        }

        /// Reads the firings still due, in order, skipping the empty slots.
        struct Iterator: IteratorProtocol {
            var slots: ArraySlice<DueFiring?>

            mutating func next() -> DueFiring? {
                while let slot = slots.popFirst() {
                    if let due = slot { return due }
                }
                return nil
            }
        }
    }
}
