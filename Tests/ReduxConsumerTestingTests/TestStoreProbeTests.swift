import ReduxConsumer
import ReduxConsumerTesting
import Testing

/// Probes with the consumer options a screen uses (`.instantly`, `.pulse`, `isEqual`), and probes
/// on derived values.
struct TestStoreProbeTests {
    // MARK: Derived values

    @Test func aDerivedProbeFiresWhenTheDerivedValueChanges() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let tagCount = Derived(\Profile.tags) { $0.count }
        let probe = store.probe(tagCount, named: "tag count")
        store.send(ProfileAction.tag("a")) { $0.tags = ["a"] }
        store.assertFired(probe, old: 0, new: 1)
        // An input of nothing the derived value reads: the exhaustive store fails if it fires.
        store.send(ProfileAction.increment) { $0.count = 11 }
        store.finish()
    }

    @Test func aDerivedProbeThatFiresUnassertedFails() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        _ = store.probe(Derived(\Profile.tags) { $0.count }, named: "tag count")
        store.send(ProfileAction.tag("a")) { $0.tags = ["a"] }
        expectFailure(
            "The test did not assert 1 consumer firing caused by send(tag(\"a\")) before finish():\n  tag count: 0 → 1"
        ) {
            store.finish()
        }
    }

    @Test func aDerivedProbeIsNamedAfterItsTypesByDefault() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let probe = store.probe(Derived(\Profile.tags) { $0.count })
        #expect(probe.name == "Derived<Profile, Int>")
        store.finish()
    }

    @Test func aDerivedValueIsComputedOnceForAllItsProbesAndConsumers() {
        let calls = Lock(0)
        let summary = Derived(\Profile.user.name, \.count) { name, count in
            calls.withLock { $0 += 1 }
            return "\(name): \(count)"
        }
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let label = store.probe(summary, named: "label")
        let title = store.probe(summary, named: "title")
        store.consumer.add(summary) { _, _ in }
        #expect(calls.withLock { $0 } == 1)

        store.send(ProfileAction.increment) { $0.count = 11 }
        store.assertFired(label, old: "Kim: 10", new: "Kim: 11")
        store.assertFired(title, old: "Kim: 10", new: "Kim: 11")
        store.send(ProfileAction.tag("a")) { $0.tags = ["a"] }
        store.send(ProfileAction.rename("Lee")) { $0.user.name = "Lee" }
        store.assertFired(label, old: "Kim: 11", new: "Lee: 11")
        store.assertFired(title, old: "Kim: 11", new: "Lee: 11")
        #expect(calls.withLock { $0 } == 3, "once at first, then once per change of an input")
        store.finish()
    }

    @Test func aDerivedProbeComparesWithTheGivenEquality() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let tagCount = Derived(\Profile.tags) { $0.count }
        // "Has tags" is what the screen shows: only going from none to some (or back) counts.
        let hasTags = store.probe(tagCount, named: "has tags", isEqual: { ($0 > 0) == ($1 > 0) })
        store.send(ProfileAction.tag("a")) { $0.tags = ["a"] }
        store.assertFired(hasTags, old: 0, new: 1)
        store.send(ProfileAction.tag("b")) { $0.tags = ["a", "b"] }
        store.finish()
    }

    // MARK: Options

    @Test func anInstantlyProbeFiresAsItIsAddedAndMustBeAsserted() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let count = store.probe(\.count, named: "count label", options: .instantly)
        store.assertFired(count, old: 10, new: 10)
        store.send(ProfileAction.increment) { $0.count = 11 }
        store.assertFired(count, old: 10, new: 11)

        _ = store.probe(Derived(\Profile.tags) { $0.count }, named: "tag count", options: .instantly)
        let expected = """
            The test did not assert 1 consumer firing caused by probe(tag count) before send(increment):
              tag count: 0 → 0
            """
        expectFailure(expected) {
            store.send(ProfileAction.increment) { $0.count = 12 }
        }
        store.assertFired(count, old: 11, new: 12)
        store.finish()
    }

    @Test func aPulseProbeFiresForEveryStateEvenUnchanged() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let count = store.probe(\.count, named: "count label", options: .pulse)
        store.send(ProfileAction.tag("a")) { $0.tags = ["a"] }
        store.assertFired(count, old: 10, new: 10)
        store.send(ProfileAction.increment) { $0.count = 11 }
        store.assertFired(count, old: 10, new: 11)
        store.finish()
    }

    @Test func aKeyPathProbeComparesWithTheGivenEquality() {
        let store = TestStore(initialState: Profile(count: 18), reducer: profileReducer)
        let decade = store.probe(\.count, named: "decade", isEqual: { $0 / 10 == $1 / 10 })
        store.send(ProfileAction.increment) { $0.count = 19 }
        store.send(ProfileAction.increment) { $0.count = 20 }
        store.assertFired(decade, old: 18, new: 20)
        store.finish()
    }
}
