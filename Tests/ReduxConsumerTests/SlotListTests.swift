import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// The engine's one slots-with-holes list, alone: random inserts, removals, lookups, clears and
/// iterations checked against a sorted dictionary, the model of what it promises (identifier
/// order, removal that always finds its element, insertions during an iteration held back until
/// the last iteration ends).
struct SlotListTests {
    /// The search under every list's removal, for every length up to 70 and every cut point
    /// (where the predicate stops holding), counting its probes.
    @Test func lowerBoundFindsEveryCutPoint() {
        for count in 0...70 {
            for cut in 0...count {
                var probes = 0
                let found = lowerBound(count: count) { index in
                    #expect((0..<count).contains(index), "probe \(index) outside 0..<\(count)")
                    probes += 1
                    return index < cut
                }
                #expect(found == cut, "count \(count), cut \(cut): found \(found)")
                #expect(probes <= 8, "count \(count): \(probes) probes")
            }
        }
    }

    @Test(arguments: 0..<50)
    func randomOperationsMatchASortedModel(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed) &+ 0x51_07_11)
        var list = SlotList<String>()
        var model: [UInt64: String] = [:]
        var nextIdentifier: UInt64 = 1
        var reserved: [UInt64] = []
        for step in 0..<400 {
            switch random.next() % 10 {
            case 0, 1, 2:
                // Mostly increasing identifiers; some are held back and arrive late (a queued add).
                if !reserved.isEmpty, random.next() % 3 == 0 {
                    let late = reserved.remove(at: Int(random.next() % UInt64(reserved.count)))
                    list.insert("e\(late)", identifier: late)
                    model[late] = "e\(late)"
                } else if random.next() % 4 == 0 {
                    reserved.append(nextIdentifier)
                    nextIdentifier += 1
                } else {
                    list.insert("e\(nextIdentifier)", identifier: nextIdentifier)
                    model[nextIdentifier] = "e\(nextIdentifier)"
                    nextIdentifier += 1
                }
            case 3, 4, 5:
                let identifier = UInt64(random.next() % (nextIdentifier + 2))
                #expect(list.remove(identifier) == model.removeValue(forKey: identifier), "seed \(seed) step \(step)")
            case 6:
                let identifier = UInt64(random.next() % (nextIdentifier + 2))
                #expect(list.element(identifier) == model[identifier], "seed \(seed) step \(step)")
                #expect(list.contains(identifier) == (model[identifier] != nil), "seed \(seed) step \(step)")
            case 7:
                iterate(&list, model: &model, nextIdentifier: &nextIdentifier, random: &random, seed: seed)
            case 8 where random.next() % 20 == 0:
                list.clear()
                model.removeAll()
                reserved.removeAll()
            default:
                break
            }
            #expect(list.count == model.count, "seed \(seed) step \(step)")
            #expect(
                liveElements(of: list) == model.sorted { $0.key < $1.key }.map(\.value), "seed \(seed) step \(step)")
        }
    }

    @Test func anInsertionDuringAnIterationJoinsWhenTheLastIterationEnds() {
        var list = SlotList<Int>()
        list.insert(1, identifier: 1)
        list.insert(3, identifier: 3)
        list.beginIteration()
        list.beginIteration()
        list.insert(2, identifier: 2)
        #expect(list.slotCount == 2, "an iteration must not see an element inserted while it runs")
        #expect(list.count == 3)
        #expect(list.element(2) == 2)
        list.endIteration()
        #expect(list.slotCount == 2)
        list.endIteration()
        #expect(liveElements(of: list) == [1, 2, 3])
    }

    @Test func removalDuringAnIterationLeavesSlotsInPlaceUntilItEnds() {
        var list = SlotList<Int>()
        for identifier in 1...6 { list.insert(Int(identifier), identifier: UInt64(identifier)) }
        list.beginIteration()
        for identifier in 1...5 { #expect(list.remove(UInt64(identifier)) == identifier) }
        #expect(list.slotCount == 6, "slots moved during an iteration")
        #expect(list.liveSlot(from: 0) == 5)
        list.endIteration()
        #expect(list.slotCount == 1, "holes were not squeezed out once the iteration ended")
        #expect(list.identifier(atSlot: 0) == 6)
    }

    /// Members added and removed again inside one pass: each removal finds its element by binary
    /// search and leaves a hole in the pending list, so k of them cost O(k log k), not O(k²) (a
    /// removal used to scan the pending list and shift everything after the element).
    @Test func pendingElementsRemovedInsideOnePassLeaveHolesAndNeverJoin() {
        var list = SlotList<Int>()
        list.insert(0, identifier: 1)
        list.beginIteration()
        for identifier in UInt64(2)...1_001 where identifier != 7 {
            list.insert(Int(identifier), identifier: identifier)
        }
        // Out of order and repeated: a late (queued) add, and an identifier added, removed and
        // added again while the pass runs.
        list.insert(-7, identifier: 7)
        #expect(list.pending.count == 1_000)
        for identifier in UInt64(2)...1_001 where identifier != 500 && identifier != 7 {
            #expect(list.remove(identifier) != nil, "\(identifier)")
        }
        #expect(list.pending.count == 1_000, "a pending element was moved instead of left as a hole")
        #expect(list.count == 3)
        #expect(list.element(7) == -7)
        #expect(list.remove(7) == -7)
        #expect(list.remove(7) == nil)
        list.insert(7, identifier: 7)
        #expect(list.element(7) == 7)
        #expect(list.contains(7) && !list.contains(8))
        #expect(list.identifiers(through: 600) == [1, 7, 500])
        list.endIteration()
        #expect(liveElements(of: list) == [0, 7, 500])
        #expect(list.pending.isEmpty)
        #expect(list.removeAll() == [0, 7, 500])
    }

    @Test func aListEmptiedOneElementAtATimeKeepsNoHoles() {
        var list = SlotList<Void>()
        for identifier in UInt64(1)...100 {
            list.insert((), identifier: identifier)
            #expect(list.remove(identifier) != nil)
            #expect(list.slotCount == 0)
        }
        #expect(list.isEmpty)
    }

    /// Runs one iteration the way a delivery does: walks the slots, removing or inserting as it
    /// goes, and checks that it sees exactly the elements present when it began, minus those
    /// removed before their turn.
    private func iterate(
        _ list: inout SlotList<String>, model: inout [UInt64: String], nextIdentifier: inout UInt64,
        random: inout SplitMix64, seed: Int
    ) {
        let before = model.sorted { $0.key < $1.key }.map(\.key)
        var removedEarly: Set<UInt64> = []
        var seen: [UInt64] = []
        list.beginIteration()
        let end = list.slotCount
        var slot = list.liveSlot(from: 0)
        while slot < end {
            let identifier = list.identifier(atSlot: slot)
            if list[slot: slot] != nil { seen.append(identifier) }
            switch random.next() % 4 {
            case 0:
                // Remove a later element: the iteration must skip it.
                if let later = before.first(where: { $0 > identifier && model[$0] != nil }) {
                    _ = list.remove(later)
                    model.removeValue(forKey: later)
                    removedEarly.insert(later)
                }
            case 1:
                list.insert("e\(nextIdentifier)", identifier: nextIdentifier)
                model[nextIdentifier] = "e\(nextIdentifier)"
                nextIdentifier += 1
            default:
                break
            }
            slot = list.liveSlot(from: slot + 1)
        }
        list.endIteration()
        #expect(seen == before.filter { !removedEarly.contains($0) }, "seed \(seed): the iteration saw \(seen)")
    }

    private func liveElements<Element>(of list: SlotList<Element>) -> [Element] {
        var elements: [Element] = []
        for slot in 0..<list.slotCount {
            if let element = list[slot: slot] { elements.append(element) }
        }
        return elements
    }
}
