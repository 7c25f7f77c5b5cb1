import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// A selector that subscribes and cancels consumers while a pass evaluates changes the engine's
/// list of selections under the walk: the walk goes on over the list as it found it (debug builds
/// check each cell it reads against that list's nodes), consumers removed meanwhile are not
/// called, and those added hear the states that follow.
@Suite struct NodeListChangeDuringEvaluationTests {
    /// Many selections made (the list outgrows its buffer) and several dropped (each drop moves
    /// the last selection into its place) by the first selection the pass evaluates.
    @Test func selectionsMadeAndDroppedByASelectorLeaveThePassInStep() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let changed = Box(false)
        let newcomers = (0..<40).map { index in
            let consumer = StateConsumer<FleetState>()
            consumer.add({ $0.first &* 1_000 &+ index }) { old, new in seen.append("n\(index) \(old)→\(new)") }
            return consumer
        }
        let late = Box<[Subscription]>([])
        let leavers = (0..<6).map { index in
            let consumer = StateConsumer<FleetState>()
            consumer.add({ $0.first &* 100 &+ index }) { old, new in seen.append("l\(index) \(old)→\(new)") }
            return consumer
        }
        let leaving = Box<[Subscription]>([])
        let watcher = StateConsumer<FleetState>()
        // Subscribed first: its selection is the first the pass evaluates.
        watcher.add({ state -> Int in
            if state.first == 1, !changed.value {
                changed.value = true
                late.value = newcomers.map { store.subscribe($0) }
                for subscription in leaving.value { subscription.cancel() }
            }
            return 0
        }) { _, _ in }
        var subscriptions = [store.subscribe(watcher)]
        let stayers = (0..<10).map { index in
            let consumer = StateConsumer<FleetState>()
            consumer.add({ $0.first &+ index }) { old, new in seen.append("s\(index) \(old)→\(new)") }
            return consumer
        }
        // Interleaved: removing a leaver moves a stayer's selection into its place.
        for (index, stayer) in stayers.enumerated() {
            subscriptions.append(store.subscribe(stayer))
            if index < leavers.count {
                leaving.value.append(store.subscribe(leavers[index]))
            }
        }

        store.dispatch(FleetAction.first(1))
        #expect(changed.value)
        #expect(seen.values == (0..<10).map { "s\($0) \($0)→\(1 + $0)" }, "the stayers, once each; no leaver")

        let before = seen.count
        store.dispatch(FleetAction.first(2))
        let values = Array(seen.values.dropFirst(before))
        #expect(values.filter { $0.hasPrefix("s") } == (0..<10).map { "s\($0) \(1 + $0)→\(2 + $0)" })
        #expect(!values.contains { $0.hasPrefix("l") }, "a cancelled consumer is never called again")
        for index in newcomers.indices {
            let calls = values.filter { $0.hasPrefix("n\(index) ") }
            #expect(calls == ["n\(index) \(1_000 + index)→\(2_000 + index)"], "newcomer \(index)")
        }

        for subscription in subscriptions + late.value { subscription.cancel() }
    }

    /// The same change made on every pass for a while: each pass walks a list that its own
    /// evaluation replaces, and every selection still fires exactly when its value changes.
    @Test func aSelectorThatChangesTheListOnEveryPassKeepsEveryConsumerInStep() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let churn = Box<[Subscription]>([])
        let watcher = StateConsumer<FleetState>()
        watcher.add({ state -> Int in
            // Drops the consumers the last pass made, makes three more.
            for subscription in churn.value { subscription.cancel() }
            churn.value = (0..<3).map { index in
                let consumer = StateConsumer<FleetState>()
                consumer.add({ $0.second &+ index }) { _, _ in }
                return store.subscribe(consumer)
            }
            return state.first
        }) { old, new in seen.append("w \(old)→\(new)") }
        let counter = StateConsumer<FleetState>()
        counter.add(\.first) { old, new in seen.append("c \(old)→\(new)") }
        let subscriptions = [store.subscribe(watcher), store.subscribe(counter)]
        for value in 1...20 {
            store.dispatch(FleetAction.first(value))
        }
        let expected = (1...20).flatMap { ["w \($0 - 1)→\($0)", "c \($0 - 1)→\($0)"] }
        #expect(seen.values == expected)
        for subscription in subscriptions + churn.value { subscription.cancel() }
    }
}
