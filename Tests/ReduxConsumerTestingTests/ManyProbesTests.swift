import ReduxConsumer
import ReduxConsumerTesting
import Testing

/// `assertFired` with thousands of probes firing in one step: each assertion finds its probe's
/// firing whatever the order, and what is left unasserted is reported in firing order.
struct ManyProbesTests {
    private static let count = 3_000

    /// `count` probes of derived values, probe `i` firing `10_000 × count + i` on every increment.
    private func probes(of store: TestStore<Profile>) -> [TestStore<Profile>.Probe<Int>] {
        (0..<Self.count).map { offset in
            store.probe(Derived(\Profile.count) { $0 * 10_000 + offset }, named: "p\(offset)")
        }
    }

    @Test func everyProbeIsFoundInAnyOrder() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let probes = probes(of: store)

        store.send(ProfileAction.increment) { $0.count = 11 }
        for (offset, probe) in probes.enumerated().reversed() {
            store.assertFired(probe, old: 100_000 + offset, new: 110_000 + offset)
        }
        store.send(ProfileAction.increment) { $0.count = 12 }
        for (offset, probe) in probes.enumerated() where offset % 2 == 0 {
            store.assertFired(probe, old: 110_000 + offset, new: 120_000 + offset)
        }
        for (offset, probe) in probes.enumerated() where offset % 2 == 1 {
            store.assertFired(probe, old: 110_000 + offset, new: 120_000 + offset)
        }
        store.finish()
    }

    @Test func aProbeAssertedTwiceOrWithOtherValuesFailsAsWithFewProbes() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let probes = probes(of: store)

        store.send(ProfileAction.increment) { $0.count = 11 }
        let last = Self.count - 1
        store.assertFired(probes[last], old: 100_000 + last, new: 110_000 + last)
        expectFailure("Expected p\(last) to fire 1 → 2 after send(increment), but it did not fire.") {
            store.assertFired(probes[last], old: 1, new: 2)
        }
        expectFailure("p7 fired 100007 → 110007 after send(increment), expected 1 → 2.") {
            store.assertFired(probes[7], old: 1, new: 2)
        }
        // Every other firing is left unasserted: reported in firing order, without the two taken.
        let lines = (0..<last).filter { $0 != 7 }.map { "  p\($0): \(100_000 + $0) → \(110_000 + $0)" }
        expectFailure(
            "The test did not assert \(last - 1) consumer firings caused by send(increment) before finish():\n"
                + lines.joined(separator: "\n")
        ) {
            store.finish()
        }
    }

    @Test func nonExhaustiveAssertionsMatchOnValuesAmongManyProbes() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        store.exhaustivity = .off
        let probes = probes(of: store)

        store.send(ProfileAction.increment) { $0.count = 11 }
        store.assertFired(probes[42], old: 100_042, new: 110_042)
        expectFailure("Expected p43 to fire 1 → 2 after send(increment), but it fired 100043 → 110043.") {
            store.assertFired(probes[43], old: 1, new: 2)
        }
        for (offset, probe) in probes.enumerated().reversed() where offset != 42 {
            store.assertFired(probe, old: 100_000 + offset, new: 110_000 + offset)
        }
        store.finish()
    }
}
