import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Review of d0acc9a (vacancies in a shared node's lists): order, G1 (a removed consumer is never
/// called again) and each consumer's own `old`, across vacancies left, filled and dropped, inside
/// and outside passes, with closures, queues, actors, `.instantly` members and page stores.
struct VacancyReviewTests {
    /// A consumer whose only member on a shared key path is removed (its group leaves a vacancy)
    /// and who adds one again (it fills the vacancy: same order) is called at its own place, from
    /// the value its new member was added at.
    @Test func aMemberRemovedAndAddedAgainKeepsItsConsumersPlace() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<6).map { _ in StateConsumer<FleetState>() }
        var tokens = consumers.indices.map { index in
            consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") }
        }
        let subscriptions = consumers.map { store.subscribe($0) }
        store.dispatch(FleetAction.first(1))
        tokens[2].cancel()  // vacancy at 2 (5 live)
        tokens[4].cancel()  // vacancy at 4 (4 live, 2 vacant)
        store.dispatch(FleetAction.first(2))
        tokens[2] = consumers[2].add(\.first) { old, new in seen.append("2' \(old)→\(new)") }  // fills
        store.dispatch(FleetAction.first(3))
        tokens[4] = consumers[4].add(\.first) { old, new in seen.append("4' \(old)→\(new)") }  // fills
        store.dispatch(FleetAction.first(4))
        #expect(
            seen.values == [
                "0 0→1", "1 0→1", "2 0→1", "3 0→1", "4 0→1", "5 0→1",
                "0 1→2", "1 1→2", "3 1→2", "5 1→2",
                "0 2→3", "1 2→3", "2' 2→3", "3 2→3", "5 2→3",
                "0 3→4", "1 3→4", "2' 3→4", "3 3→4", "4' 3→4", "5 3→4",
            ])
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// The same, from inside a pass: a consumer's callback removes a later consumer's only member
    /// and adds one back (leaving and filling a vacancy while the pass reads the node). The later
    /// consumer's old member is not called again (G1), its new member waits for the next state,
    /// and from then on it is called at its place.
    @Test func aVacancyFilledDuringAPassIsCalledFromTheNextStateAtItsPlace() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<6).map { _ in StateConsumer<FleetState>() }
        let tokens = Box<[ConsumerToken]>([])
        for index in consumers.indices {
            tokens.value.append(
                consumers[index].add(\.first) { old, new in
                    seen.append("\(index) \(old)→\(new)")
                    guard index == 1, new == 1 else { return }
                    tokens.value[3].cancel()
                    tokens.value[3] = consumers[3].add(\.first) { old, new in seen.append("3' \(old)→\(new)") }
                    tokens.value[0].cancel()
                    tokens.value[0] = consumers[0].add(\.first) { old, new in seen.append("0' \(old)→\(new)") }
                })
        }
        let subscriptions = consumers.map { store.subscribe($0) }
        store.dispatch(FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        #expect(
            seen.values == [
                "0 0→1", "1 0→1", "2 0→1", "4 0→1", "5 0→1",
                "0' 1→2", "1 1→2", "2 1→2", "3' 1→2", "4 1→2", "5 1→2",
            ])
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// A callback that cancels itself, consumers before it and consumers after it (leaving
    /// vacancies, then dropping them): none that left is called again, in this pass or later.
    @Test(arguments: [0, 1, 5, 9, 11])
    func aCallbackCancellingAroundItselfKeepsG1(caller: Int) {
        let count = 12
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<count).map { _ in StateConsumer<FleetState>() }
        let subscriptions = Box<[Subscription]>([])
        let cancelled = [caller] + Array(stride(from: (caller + 1) % 2, to: count, by: 2)).filter { $0 != caller }
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in
                seen.append("\(index) \(old)→\(new)")
                guard index == caller, new == 1 else { return }
                for other in cancelled { subscriptions.value[other].cancel() }
            }
        }
        subscriptions.value = consumers.map { store.subscribe($0) }
        store.dispatch(FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        store.dispatch(FleetAction.first(3))
        let firstPass = (0..<count).filter { $0 <= caller || !cancelled.contains($0) }.map { "\($0) 0→1" }
        let later = (0..<count).filter { !cancelled.contains($0) }
        #expect(seen.values == firstPass + later.map { "\($0) 1→2" } + later.map { "\($0) 2→3" })
        for subscription in subscriptions.value { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// A callback that cancels a later consumer and subscribes it again in the same pass: the
    /// consumer leaves a vacancy, comes back last with a new order, and hears the change once (as
    /// it comes back), never at its old place.
    @Test func aConsumerResubscribedDuringAPassHearsTheChangeOnceAndComesLast() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<6).map { _ in StateConsumer<FleetState>() }
        let subscriptions = Box<[Subscription]>([])
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in
                seen.append("\(index) \(old)→\(new)")
                guard index == 1, new == 1 else { return }
                subscriptions.value[3].cancel()
                subscriptions.value[4].cancel()
                subscriptions.value[3] = store.subscribe(consumers[3])
            }
        }
        subscriptions.value = consumers.map { store.subscribe($0) }
        store.dispatch(FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        let firstPass = seen.values.prefix(while: { !$0.hasSuffix("1→2") })
        #expect(firstPass.filter { $0.hasPrefix("3 ") } == ["3 0→1"])
        #expect(firstPass.filter { !$0.hasPrefix("3 ") } == ["0 0→1", "1 0→1", "2 0→1", "5 0→1"])
        #expect(Array(seen.values.dropFirst(firstPass.count)) == ["0 1→2", "1 1→2", "2 1→2", "5 1→2", "3 1→2"])
        for subscription in subscriptions.value { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// Closure subscribers between consumers whose places are vacant, with cancellations (of
    /// consumers and closures) made inside the pass: the store calls both in subscription order.
    @Test(arguments: [CancelOrder.oldestFirst, .newestFirst, .random(seed: 5), .random(seed: 99)])
    func closuresInterleaveWithVacanciesAsConsumersLeave(order: CancelOrder) {
        let count = 16
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<count).map { _ in StateConsumer<FleetState>() }
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in seen.append("c\(index) \(old)→\(new)") }
        }
        var subscriptions: [Subscription] = []
        var closures: [Subscription] = []
        for index in consumers.indices {
            subscriptions.append(store.subscribe(consumers[index]))
            if index % 3 == 1 {
                let name = "k\(index)"
                closures.append(store.subscribe { old, new in seen.append("\(name) \(old.first)→\(new.first)") })
            }
        }
        var live = Array(0..<count)
        var value = 0
        for index in order.indices(count) {
            subscriptions[index].cancel()
            live.removeAll { $0 == index }
            let before = seen.values.count
            value += 1
            store.dispatch(FleetAction.first(value))
            var expected: [String] = []
            for consumer in 0..<count {
                if live.contains(consumer) { expected.append("c\(consumer) \(value - 1)→\(value)") }
                if consumer % 3 == 1 { expected.append("k\(consumer) \(value - 1)→\(value)") }
            }
            #expect(Array(seen.values[before...]) == expected)
        }
        for subscription in closures { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// Consumers watching two key paths (passes that fire two nodes, both with vacancies, and
    /// passes that fire one): each consumer's members in member order, consumers in order.
    @Test func passesFiringSeveralNodesWithVacanciesCallConsumersInOrder() {
        let count = 10
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<count).map { _ in StateConsumer<FleetState>() }
        for index in consumers.indices {
            if index % 2 == 0 {
                consumers[index].add(\.first) { old, new in seen.append("\(index)f \(old)→\(new)") }
                consumers[index].add(\.second) { old, new in seen.append("\(index)s \(old)→\(new)") }
            } else {
                consumers[index].add(\.second) { old, new in seen.append("\(index)s \(old)→\(new)") }
                consumers[index].add(\.first) { old, new in seen.append("\(index)f \(old)→\(new)") }
            }
        }
        var subscriptions = consumers.map { store.subscribe($0) }
        var live = Array(0..<count)
        var value = 0
        for index in [0, 1, 2, 3, 5, 7] {
            subscriptions[index].cancel()
            live.removeAll { $0 == index }
            var before = seen.values.count
            value += 1
            store.dispatch(FleetAction.both(value))
            #expect(
                Array(seen.values[before...])
                    == live.flatMap { consumer in
                        (consumer % 2 == 0 ? ["f", "s"] : ["s", "f"]).map { "\(consumer)\($0) \(value - 1)→\(value)" }
                    })
            before = seen.values.count
            store.dispatch(FleetAction.first(value + 100))
            store.dispatch(FleetAction.first(value))
            #expect(
                Array(seen.values[before...])
                    == live.map { "\($0)f \(value)→\(value + 100)" } + live.map { "\($0)f \(value + 100)→\(value)" })
        }
        subscriptions = subscriptions.enumerated().filter { live.contains($0.offset) }.map(\.element)
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// Consumers delivering on queues and on an actor among consumers called in place on one key
    /// path, cancelled in various orders: the in-place ones are called in order, the others each
    /// hear a chain of changes (each `old` the previous `new`) that ends at the last value, and no
    /// one that left hears a value set after it left.
    @Test(arguments: [CancelOrder.oldestFirst, .newestFirst, .random(seed: 17)])
    func queuedAndIsolatedConsumersAmongVacancies(order: CancelOrder) async {
        actor Sink {
            var log: [Int: [String]] = [:]
            func append(_ index: Int, _ entry: String) { log[index, default: []].append(entry) }
        }
        let count = 12
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let queue = DispatchQueue(label: "VacancyReviewTests")
        let sink = Sink()
        let seen = Recorder<String>()
        let queued = Recorder<String>()
        let consumers = (0..<count).map { index in
            index % 4 == 1 ? StateConsumer<FleetState>(deliveringOn: queue) : StateConsumer<FleetState>()
        }
        for index in consumers.indices {
            switch index % 4 {
            case 1:
                consumers[index].add(\.first) { old, new in queued.append("\(index) \(old)→\(new)") }
            case 3:
                consumers[index].add(\.first, on: sink) { old, new in
                    Task { await sink.append(index, "\(old)→\(new)") }
                }
            default:
                consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") }
            }
        }
        var subscriptions = consumers.map { store.subscribe($0) }
        var live = Array(0..<count)
        var value = 0
        var leftAt: [Int: Int] = [:]
        for index in order.indices(count) {
            subscriptions[index].cancel()
            leftAt[index] = value
            live.removeAll { $0 == index }
            let before = seen.values.count
            value += 1
            store.dispatch(FleetAction.first(value))
            #expect(
                Array(seen.values[before...])
                    == live.filter { $0 % 4 == 0 || $0 % 4 == 2 }.map { "\($0) \(value - 1)→\(value)" })
        }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        // Each queued consumer: a chain from 0, ending at or before the value it left at.
        for index in consumers.indices where index % 4 == 1 {
            let calls = queued.values.filter { $0.hasPrefix("\(index) ") }.map { $0.dropFirst("\(index) ".count) }
            var last = 0
            for call in calls {
                let parts = call.split(separator: "→").compactMap { Int($0) }
                #expect(parts.count == 2 && parts[0] == last, "consumer \(index): \(calls)")
                last = parts.last ?? -1
            }
            #expect(
                last <= leftAt[index] ?? -1, "consumer \(index) heard \(last) after leaving at \(leftAt[index] ?? -1)")
        }
        subscriptions.removeAll()
        for consumer in consumers { consumer.removeAll() }
    }

    /// `.instantly` members added to consumers whose places are vacant, outside and inside a
    /// pass: each fires once with the current value, and later changes reach it at its place.
    @Test func instantMembersFillingVacanciesFireOnceAndKeepTheirPlace() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<6).map { _ in StateConsumer<FleetState>() }
        let tokens = Box<[ConsumerToken]>([])
        for index in consumers.indices {
            tokens.value.append(
                consumers[index].add(\.first) { old, new in
                    seen.append("\(index) \(old)→\(new)")
                    guard index == 0, new == 2 else { return }
                    // Inside the pass: 4's place goes vacant and is filled by an instant member.
                    tokens.value[4].cancel()
                    tokens.value[4] = consumers[4].add(\.first, options: .instantly) { old, new in
                        seen.append("4i \(old)→\(new)")
                    }
                })
        }
        let subscriptions = consumers.map { store.subscribe($0) }
        store.dispatch(FleetAction.first(1))
        tokens.value[2].cancel()
        let before = seen.values.count
        tokens.value[2] = consumers[2].add(\.first, options: .instantly) { old, new in seen.append("2i \(old)→\(new)") }
        #expect(Array(seen.values[before...]) == ["2i 1→1"])
        store.dispatch(FleetAction.first(2))
        store.dispatch(FleetAction.first(3))
        #expect(
            Array(seen.values[(before + 1)...]) == [
                "0 1→2", "1 1→2", "2i 1→2", "3 1→2", "5 1→2", "4i 2→2",
                "0 2→3", "1 2→3", "2i 2→3", "3 2→3", "4i 2→3", "5 2→3",
            ])
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// Page stores whose global consumers watch one global key path, closed in various orders
    /// (oldest first leaves vacancies; a close from inside a global callback too): after each
    /// close, a global change reaches exactly the open pages, in the order they began, from the
    /// value each heard last.
    @Test(arguments: [CancelOrder.oldestFirst, .newestFirst, .random(seed: 3), .random(seed: 2027)])
    func pagesClosedInAnyOrderKeepTheRestInOrder(order: CancelOrder) {
        let count = 24
        let global = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let pageReducer = Reducer<Int> { (_, _: FleetAction) in }
        let pages = (0..<count).map { _ in
            PageStore(global: global, initialState: { _ in 0 }, reducer: pageReducer)
        }
        let closeFromInside = Box<Int?>(nil)
        for index in pages.indices {
            pages[index].globalConsumer.add(\.first) { old, new in
                seen.append("\(index) \(old)→\(new)")
                if index == 0, let other = closeFromInside.value {
                    closeFromInside.value = nil
                    pages[other].close()
                }
            }
        }
        var open = Array(0..<count)
        var value = 0
        for index in order.indices(count) {
            pages[index].close()
            open.removeAll { $0 == index }
            var before = seen.values.count
            value += 1
            global.dispatch(FleetAction.first(value))
            #expect(Array(seen.values[before...]) == open.map { "\($0) \(value - 1)→\(value)" })
            // Page 0 closes an open later page from inside its callback, now and then.
            if open.count > 3, open.first == 0, value % 3 == 0 {
                let victim = open[open.count / 2]
                closeFromInside.value = victim
                before = seen.values.count
                value += 1
                global.dispatch(FleetAction.first(value))
                open.removeAll { $0 == victim }
                #expect(Array(seen.values[before...]) == open.map { "\($0) \(value - 1)→\(value)" })
            }
        }
        for page in pages { page.close() }
    }

    /// Removing one member of a consumer with two members on the shared key path (its group stays)
    /// next to vacancies, then its other member (its group leaves): rows refreshed by order find
    /// the right row, and calls follow.
    @Test func rowRefreshesBesideVacanciesFindTheirOwnRow() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<8).map { _ in StateConsumer<FleetState>() }
        var tokens: [[ConsumerToken]] = []
        for index in consumers.indices {
            tokens.append([
                consumers[index].add(\.first) { old, new in seen.append("\(index)a \(old)→\(new)") },
                consumers[index].add(\.first) { old, new in seen.append("\(index)b \(old)→\(new)") },
            ])
        }
        let subscriptions = consumers.map { store.subscribe($0) }
        for index in [1, 3] { for token in tokens[index] { token.cancel() } }  // vacancies
        tokens[4][0].cancel()  // 4 now has a lone member: its row is refreshed by order
        tokens[2][1].cancel()
        store.dispatch(FleetAction.first(1))
        tokens[4][1].cancel()  // vacancy (3 vacancies, 5 live)
        tokens[5][0].cancel()
        store.dispatch(FleetAction.first(2))
        #expect(
            seen.values == [
                "0a 0→1", "0b 0→1", "2a 0→1", "4b 0→1", "5a 0→1", "5b 0→1", "6a 0→1", "6b 0→1", "7a 0→1",
                "7b 0→1",
                "0a 1→2", "0b 1→2", "2a 1→2", "5b 1→2", "6a 1→2", "6b 1→2", "7a 1→2", "7b 1→2",
            ])
        for subscription in subscriptions { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
    }

    /// A consumer's callback that removes its own only member and adds one again (its group
    /// leaves a vacancy and the new one fills it, while the pass is calling it), on a node with
    /// vacancies already: the new member waits for the next state and is called at the
    /// consumer's place from then on.
    @Test func aCallbackReplacingItsOwnMemberKeepsItsPlace() {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let consumers = (0..<7).map { _ in StateConsumer<FleetState>() }
        let tokens = Box<[ConsumerToken]>([])
        for index in consumers.indices {
            tokens.value.append(
                consumers[index].add(\.first) { old, new in
                    seen.append("\(index) \(old)→\(new)")
                    guard index == 3, new == 1 else { return }
                    tokens.value[3].cancel()
                    tokens.value[3] = consumers[3].add(\.first) { old, new in seen.append("3' \(old)→\(new)") }
                })
        }
        var subscriptions = consumers.map { store.subscribe($0) }
        subscriptions[1].cancel()
        subscriptions[5].cancel()
        store.dispatch(FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        #expect(
            seen.values == [
                "0 0→1", "2 0→1", "3 0→1", "4 0→1", "6 0→1",
                "0 1→2", "2 1→2", "3' 1→2", "4 1→2", "6 1→2",
            ])
        subscriptions.removeAll()
        for consumer in consumers { consumer.removeAll() }
    }

    /// Pages opened and closed on four threads while two others dispatch to the global store:
    /// no page's global consumer is called once its close returned (G1), and each one's calls
    /// chain (`old` is the previous call's `new`).
    @Test(arguments: [false, true])
    func pagesClosedOnManyThreadsAreNeverCalledAfterClose(onQueues: Bool) {
        final class Page: @unchecked Sendable {
            // @unchecked: `closed` and `last` under `lock`.
            let lock = Lock<(closed: Bool, last: Int?, violations: [String])>((false, nil, []))
        }
        let global = Store(initialState: FleetState(), reducer: fleetReducer)
        let pageReducer = Reducer<Int> { (_, _: FleetAction) in }
        let steady = (0..<8).map { _ in PageStore(global: global, initialState: { _ in 0 }, reducer: pageReducer) }
        for page in steady { page.globalConsumer.add(\.first) { _, _ in } }
        let violations = Recorder<String>()
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            if worker < 2 {
                for value in 1...3_000 { global.dispatch(FleetAction.first(value * 2 + worker)) }
                return
            }
            var random = SplitMix64(seed: UInt64(worker))
            for _ in 0..<60 {
                let pages = (0..<12).map { index in
                    (
                        PageStore(
                            global: global, initialState: { _ in 0 }, reducer: pageReducer,
                            deliveringOn: onQueues && index % 2 == 0 ? DispatchQueue(label: "page \(index)") : nil),
                        Page()
                    )
                }
                for (page, record) in pages {
                    page.globalConsumer.add(\.first) { old, new in
                        record.lock.withLock { state in
                            if state.closed { state.violations.append("called after close: \(old)→\(new)") }
                            if let last = state.last, last != old {
                                state.violations.append("old \(old) after \(last)")
                            }
                            state.last = new
                        }
                    }
                }
                var order = Array(pages.indices)
                for index in order.indices.reversed() where index > 0 {
                    order.swapAt(index, Int(random.next() % UInt64(index + 1)))
                }
                if worker % 2 == 0 { order.sort() }
                for index in order {
                    pages[index].0.close()
                    pages[index].1.lock.withLock { $0.closed = true }
                }
                for (_, record) in pages {
                    for violation in record.lock.withLock({ $0.violations }) { violations.append(violation) }
                }
            }
        }
        #expect(violations.values.isEmpty)
        for page in steady { page.close() }
    }

    /// Randomized differential with closure subscribers among the consumers and callbacks that
    /// toggle subscriptions and replace members (vacancies left and filled inside passes, places
    /// dropped): key-path consumers hear exactly what closure-selector consumers hear, and the
    /// closure subscribers are called at the same points.
    @Test(arguments: [5, 1_234, 8_675_309] as [UInt64])
    func twinsWithClosuresAndReplacementsInsidePasses(seed: UInt64) {
        let count = 40
        let script: @Sendable (Int, Int) -> UInt64 = { label, new in
            var mix = SplitMix64(seed: seed &* 31 &+ UInt64(label) &* 1_000_003 &+ UInt64(new))
            return mix.next()
        }
        let shared = Twin(usesKeyPaths: true, consumers: count, script: script)
        let alone = Twin(usesKeyPaths: false, consumers: count, script: script)
        var random = SplitMix64(seed: seed)
        for index in 0..<count * 2 {
            shared.add(to: index % count)
            alone.add(to: index % count)
        }
        var value = 0
        for _ in 0..<1_500 {
            let roll = random.next()
            let target = Int((roll >> 8) % UInt64(count))
            switch roll % 10 {
            case 0, 1:
                shared.toggle(target)
                alone.toggle(target)
            case 2:
                shared.replace(target)
                alone.replace(target)
            case 3:
                // Oldest first: a run of consumers leave, with an action after each.
                for consumer in 0..<min(count, 1 + target / 3) {
                    shared.toggle(consumer)
                    alone.toggle(consumer)
                    value += 1
                    shared.store.dispatch(FleetAction.first(value % 7))
                    alone.store.dispatch(FleetAction.first(value % 7))
                }
            case 4, 5:
                value += 1
                shared.store.dispatch(FleetAction.both(value % 5))
                alone.store.dispatch(FleetAction.both(value % 5))
            default:
                value += 1
                shared.store.dispatch(FleetAction.first(value % 7))
                alone.store.dispatch(FleetAction.first(value % 7))
            }
        }
        #expect(shared.log.count > 1_000)
        #expect(firstLogMismatch(shared.log, alone.log) == nil)
        #expect(shared.consumers.map(\.count) == alone.consumers.map(\.count))
        shared.tearDown()
        alone.tearDown()
    }

    /// A selector that cancels consumers of a shared key path while the pass evaluates (leaving
    /// vacancies, then dropping them, before the pass reads the node), alone or with a second node
    /// firing: none of them is called, and the rest are, in order.
    @Test(arguments: [false, true])
    func aSelectorCancellingSharedConsumersDuringEvaluation(secondNodeFires: Bool) {
        let store = Store(initialState: FleetState(), reducer: fleetReducer)
        let seen = Recorder<String>()
        let meddled = Box(false)
        let subscriptions = Box<[Subscription]>([])
        let watcher = StateConsumer<FleetState>()
        let cancelled = [0, 2, 3, 5, 6, 7, 8]
        watcher.add({ state -> Int in
            if state.first == 1, !meddled.value {
                meddled.value = true
                for index in cancelled { subscriptions.value[index].cancel() }
            }
            return state.second
        }) { old, new in seen.append("w \(old)→\(new)") }
        let watching = store.subscribe(watcher)
        let consumers = (0..<12).map { _ in StateConsumer<FleetState>() }
        for index in consumers.indices {
            consumers[index].add(\.first) { old, new in seen.append("\(index) \(old)→\(new)") }
        }
        subscriptions.value = consumers.map { store.subscribe($0) }
        store.dispatch(secondNodeFires ? FleetAction.both(1) : FleetAction.first(1))
        store.dispatch(FleetAction.first(2))
        let left = consumers.indices.filter { !cancelled.contains($0) }
        #expect(
            seen.values
                == (secondNodeFires ? ["w 0→1"] : []) + left.map { "\($0) 0→1" } + left.map { "\($0) 1→2" })
        watching.cancel()
        for subscription in subscriptions.value { subscription.cancel() }
        for consumer in consumers + [watcher] { consumer.removeAll() }
    }

    /// Randomized differential (the ``Fleet`` harness): many consumers on one key path, leaving
    /// oldest first in waves, removing and re-adding all their members (vacancies left and
    /// filled), with callbacks that toggle subscriptions and remove members mid-pass.
    @Test(arguments: [1, 42, 90_001] as [UInt64])
    func wavesOfLeavingAndFillingHearWhatUnsharedConsumersHear(seed: UInt64) {
        let consumerCount = 64
        let shared = Fleet(usesKeyPaths: true, consumers: consumerCount)
        let alone = Fleet(usesKeyPaths: false, consumers: consumerCount)
        var random = SplitMix64(seed: seed)
        var nextLabel = 0
        var labelsOf: [Int: [Int]] = [:]
        func addToBoth(consumer: Int? = nil) {
            var plan = FleetPlan.random(label: nextLabel, consumers: consumerCount, using: &random)
            if let consumer {
                plan = FleetPlan(
                    label: plan.label, consumer: consumer, field: plan.field, options: plan.options, effect: plan.effect
                )
            }
            nextLabel += 1
            labelsOf[plan.consumer, default: []].append(plan.label)
            shared.add(plan)
            alone.add(plan)
        }
        for _ in 0..<consumerCount * 2 { addToBoth() }
        var wave = 0
        for _ in 0..<800 {
            switch random.next() % 12 {
            case 0:
                addToBoth()
            case 1:
                // A wave: the oldest third toggle, one by one, an action after each.
                for consumer
                    in (wave % 2 == 0 ? Array(0..<consumerCount / 3) : Array(consumerCount / 3..<consumerCount))
                where random.next() % 2 == 0 {
                    shared.toggleSubscription(of: consumer)
                    alone.toggleSubscription(of: consumer)
                    let action = FleetAction.random(using: &random)
                    shared.store.dispatch(action)
                    alone.store.dispatch(action)
                }
                wave += 1
            case 2, 3:
                let consumer = Int(random.next() % UInt64(consumerCount))
                shared.toggleSubscription(of: consumer)
                alone.toggleSubscription(of: consumer)
            case 4:
                // Every member of a consumer goes (its groups leave places), then one comes back.
                let consumer = Int(random.next() % UInt64(consumerCount))
                for label in labelsOf[consumer] ?? [] {
                    shared.remove(label)
                    alone.remove(label)
                }
                labelsOf[consumer] = []
                addToBoth(consumer: consumer)
            case 5:
                let label = Int(random.next() % UInt64(max(nextLabel, 1)))
                shared.remove(label)
                alone.remove(label)
            default:
                let action = FleetAction.random(using: &random)
                shared.store.dispatch(action)
                alone.store.dispatch(action)
            }
        }
        #expect(shared.log.count > 1_000)
        #expect(firstLogMismatch(shared.log, alone.log) == nil)
        #expect(shared.counts == alone.counts)
        shared.tearDown()
        alone.tearDown()
    }
}

/// One side of ``VacancyReviewTests/twinsWithClosuresAndReplacementsInsidePasses(seed:)``: a
/// store whose consumers watch `first` with key paths (one shared node, vacancies) or with
/// closures (a node each), closure subscribers among them, and callbacks whose effects (toggle a
/// subscription, replace every member of a consumer, remove a member) are decided by a script
/// both sides share. Single-threaded.
final class Twin: @unchecked Sendable {
    // @unchecked: touched only from the test's thread (the store calls back synchronously).
    let store = Store(initialState: FleetState(), reducer: fleetReducer)
    let usesKeyPaths: Bool
    let consumers: [StateConsumer<FleetState>]
    var subscriptions: [Subscription?]
    var closures: [Subscription] = []
    var tokens: [Int: (consumer: Int, token: ConsumerToken)] = [:]
    var log: [String] = []
    var nextLabel = 0
    var effects = 0
    /// What a member's callback does, by its label and the value it hears.
    let script: @Sendable (_ label: Int, _ new: Int) -> UInt64

    init(usesKeyPaths: Bool, consumers count: Int, script: @escaping @Sendable (Int, Int) -> UInt64) {
        self.usesKeyPaths = usesKeyPaths
        self.script = script
        consumers = (0..<count).map { _ in StateConsumer<FleetState>() }
        subscriptions = []
        for index in 0..<count {
            subscriptions.append(store.subscribe(consumers[index]))
            if index % 5 == 2 {
                closures.append(
                    store.subscribe { [self] old, new in
                        if old.first != new.first { log.append("k\(index) \(old.first)→\(new.first)") }
                    })
            }
        }
    }

    func add(to consumer: Int, options: ConsumeOptions = []) {
        let label = nextLabel
        nextLabel += 1
        let callback: @Sendable (Int, Int) -> Void = { [self] old, new in
            log.append("c\(consumer) m\(label) \(old)→\(new)")
            effect(script(label, new))
        }
        // Every fourth member watches `second`: actions that change both fire two nodes.
        let token: ConsumerToken
        switch (label % 4 == 3, usesKeyPaths) {
        case (false, true): token = consumers[consumer].add(\.first, options: options, callback)
        case (false, false): token = consumers[consumer].add({ $0.first }, options: options, callback)
        case (true, true): token = consumers[consumer].add(\.second, options: options, callback)
        case (true, false): token = consumers[consumer].add({ $0.second }, options: options, callback)
        }
        tokens[label] = (consumer, token)
    }

    func toggle(_ consumer: Int) {
        if let subscription = subscriptions[consumer] {
            subscription.cancel()
            subscriptions[consumer] = nil
        } else {
            subscriptions[consumer] = store.subscribe(consumers[consumer])
        }
    }

    /// Every member of `consumer` goes, one comes (its group leaves its place, and a new one
    /// takes it back at once).
    func replace(_ consumer: Int, options: ConsumeOptions = []) {
        for (label, entry) in tokens.sorted(by: { $0.key < $1.key }) where entry.consumer == consumer {
            entry.token.cancel()
            tokens[label] = nil
        }
        add(to: consumer, options: options)
    }

    func remove(label: Int) {
        tokens.removeValue(forKey: label)?.token.cancel()
    }

    private func effect(_ code: UInt64) {
        guard effects < 400 else { return }
        let target = Int((code >> 8) % UInt64(consumers.count))
        switch code % 16 {
        case 0, 1:
            effects += 1
            toggle(target)
        case 2, 3:
            effects += 1
            replace(target)
        case 4:
            effects += 1
            replace(target, options: .instantly)
        case 5:
            effects += 1
            remove(label: Int((code >> 16) % UInt64(max(nextLabel, 1))))
        case 6:
            effects += 1
            add(to: target)
        default: break
        }
    }

    func tearDown() {
        for subscription in subscriptions { subscription?.cancel() }
        for subscription in closures { subscription.cancel() }
        for consumer in consumers { consumer.removeAll() }
        tokens.removeAll()
    }
}

/// The first entry where two logs differ, with its index, or `nil` when they are equal.
private func firstLogMismatch(_ shared: [String], _ alone: [String]) -> String? {
    guard
        let index = (0..<max(shared.count, alone.count)).first(where: {
            $0 >= shared.count || $0 >= alone.count || shared[$0] != alone[$0]
        })
    else { return nil }
    let left = index < shared.count ? shared[index] : "(end)"
    let right = index < alone.count ? alone[index] : "(end)"
    return "#\(index): shared \(left), alone \(right)"
}
