import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// Random programs of derived values and consumer options (`.instantly`, `.pulse`, `isEqual:`,
/// `owner:`, a `deliveringOn:` consumer whose queue is held for a while) run against the library
/// and against a small model of the README's rules: each consumer's calls, in order, with their
/// values; and each derived value computed only when its inputs changed.
///
/// `DERIVED_MODEL_SEED=N` replays one program (a failure prints its seed and trace);
/// `DERIVED_MODEL_BASE=N` and `DERIVED_MODEL_PROGRAMS=N` explore other or more programs.
struct DerivedModelHuntTests {
    struct ModelState: Equatable, Sendable {
        var a = 0
        var b = 0
        var c = 0
    }

    enum Edit: Sendable, CustomStringConvertible {
        case a(Int)
        case b(Int)
        case c(Int)

        var description: String {
            switch self {
            case .a(let value): "a = \(value)"
            case .b(let value): "b = \(value)"
            case .c(let value): "c = \(value)"
            }
        }
    }

    struct EditAction: Action {
        let edit: Edit
    }

    static let reducer = Reducer<ModelState> { (state, action: EditAction) in
        switch action.edit {
        case .a(let value): state.a = value
        case .b(let value): state.b = value
        case .c(let value): state.c = value
        }
    }

    /// The derived values' inputs, as the model computes them.
    static func inputs(_ index: Int, _ state: ModelState) -> [Int] {
        switch index {
        case 0: [state.a]
        case 1: [state.a, state.b]
        case 2: [state.a + state.b, state.c]
        case 3: [state.a % 3]
        default: [state.a, state.b, state.c]
        }
    }

    /// The derived values' outputs, as the model computes them.
    static func value(_ index: Int, _ state: ModelState) -> Int {
        switch index {
        case 0: state.a % 3
        case 1: state.a + state.b
        case 2: (state.a + state.b) * 10 + state.c % 2
        case 3: state.a % 3 == 0 ? 1 : 0
        default: max(state.a, state.b, state.c)
        }
    }

    static let derivedCount = 5

    /// The library's derived values, built once per program; each records the inputs it is
    /// computed from.
    static func makeDerived(recording evaluations: Recorder<(Int, [Int])>) -> [Derived<ModelState, Int>] {
        let d0 = Derived(\ModelState.a) { a in
            evaluations.append((0, [a]))
            return a % 3
        }
        let d1 = Derived(\ModelState.a, \.b) { a, b in
            evaluations.append((1, [a, b]))
            return a + b
        }
        let d2 = Derived(d1, Derived(\ModelState.c)) { sum, c in
            evaluations.append((2, [sum, c]))
            return sum * 10 + c % 2
        }
        let d3 = Derived(d0) { rest in
            evaluations.append((3, [rest]))
            return rest == 0 ? 1 : 0
        }
        let d4 = Derived(\ModelState.a, \.b, \.c) { a, b, c in
            evaluations.append((4, [a, b, c]))
            return max(a, b, c)
        }
        return [d0, d1, d2, d3, d4]
    }

    /// An equivalence (so that comparing with any value of a class gives the same answer): values
    /// in the same pair `2k, 2k + 1` are the same.
    @Sendable static func sameClass(_ x: Int, _ y: Int) -> Bool { x / 2 == y / 2 }

    enum Kind: CaseIterable, Sendable {
        case plain
        case instantly
        case pulse
        case isEqual
        case isEqualInstantly
        case pulseIsEqual
        case owner
        case ownerInstantly

        var options: ConsumeOptions {
            switch self {
            case .instantly, .isEqualInstantly, .ownerInstantly: .instantly
            case .pulse, .pulseIsEqual: .pulse
            default: []
            }
        }
        var isPulse: Bool { options.contains(.pulse) }
        var isInstant: Bool { options.contains(.instantly) }
        var usesIsEqual: Bool { self == .isEqual || self == .isEqualInstantly }
        var hasOwner: Bool { self == .owner || self == .ownerInstantly }

        /// Whether the member counts `old` and `new` as the same.
        func same(_ old: Int, _ new: Int) -> Bool {
            usesIsEqual ? DerivedModelHuntTests.sameClass(old, new) : old == new
        }
    }

    struct Call: Equatable, Sendable, CustomStringConvertible {
        let consumer: Int
        let member: Int
        let old: Int
        let new: Int
        var description: String { "c\(consumer).m\(member)(\(old) → \(new))" }
    }

    final class Owner: Sendable {}

    // MARK: The model

    struct MemberModel {
        let id: Int
        let derived: Int
        let kind: Kind
        /// What the engine compares with; `nil` while the member waits for its first state.
        var seen: Int?
        var isInert = false
    }

    struct PendingModel {
        var old: Int
        var new: Int
        let compares: Bool
        var isMerged: Bool
    }

    enum HookStep {
        case add(consumer: Int, id: Int, derived: Int, kind: Kind)
        case remove(consumer: Int, id: Int)
    }

    struct ConsumerModel {
        let isQueued: Bool
        var isSubscribed = false
        var members: [MemberModel] = []
        var pending: [Int: PendingModel] = [:]
        var order: [Int] = []
        var carried: [Int: Int] = [:]
        var withdrawn: [Int: Int] = [:]
        var isHeld = false
    }

    struct Model {
        var state = ModelState()
        var consumers: [ConsumerModel]
        var log: [[Call]]
        /// The in-place consumers' calls, in the order they are made.
        var inPlaceLog: [Call] = []
        /// Consumers in the order the store calls them.
        var subscribed: [Int] = []
        /// Adds and removals made by a subscriber called first in the next action's pass.
        var hook: [HookStep] = []

        init(queued: [Bool]) {
            consumers = queued.map { ConsumerModel(isQueued: $0) }
            log = queued.map { _ in [] }
        }

        mutating func call(_ consumer: Int, _ member: Int, old: Int, new: Int, instant: Bool, kind: Kind) {
            guard consumers[consumer].isQueued else {
                let call = Call(consumer: consumer, member: member, old: old, new: new)
                log[consumer].append(call)
                inPlaceLog.append(call)
                return
            }
            var model = consumers[consumer]
            if var pending = model.pending[member] {
                pending.new = new
                pending.isMerged = true
                model.pending[member] = pending
            } else {
                var pending = PendingModel(old: old, new: new, compares: !instant && !kind.isPulse, isMerged: false)
                if let carried = model.carried.removeValue(forKey: member) {
                    pending.old = carried
                    pending.isMerged = true
                }
                model.pending[member] = pending
                model.order.append(member)
            }
            consumers[consumer] = model
        }

        /// Delivers a queued consumer's pending calls (its queue is not held): one batch, in the
        /// order the members were added.
        mutating func drain(_ consumer: Int) {
            var model = consumers[consumer]
            guard model.isQueued, !model.isHeld else { return }
            // `members` lists them in the order the library added them (a member added by a hook
            // comes when its pass runs, after members added directly meanwhile).
            let place = { (member: Int) in model.members.firstIndex { $0.id == member } ?? Int.max }
            for member in model.order.sorted(by: { place($0) < place($1) }) {
                guard let pending = model.pending.removeValue(forKey: member) else { continue }
                let kind = model.members.first { $0.id == member }?.kind ?? .plain
                if pending.isMerged, pending.compares, kind.same(pending.old, pending.new) {
                    model.carried[member] = pending.old
                    continue
                }
                if model.members.first(where: { $0.id == member })?.isInert == true { continue }
                log[consumer].append(Call(consumer: consumer, member: member, old: pending.old, new: pending.new))
            }
            model.order.removeAll()
            consumers[consumer] = model
        }

        /// A state reaches `consumer`: its members compare (in the order added), then those waiting
        /// for a first state start from it.
        mutating func feed(_ consumer: Int, skipping added: Set<Int> = []) {
            for index in consumers[consumer].members.indices {
                var member = consumers[consumer].members[index]
                guard let seen = member.seen, !added.contains(member.id) else { continue }
                let value = DerivedModelHuntTests.value(member.derived, state)
                let fires = member.kind.isPulse || !member.kind.same(seen, value)
                if fires {
                    member.seen = value
                    if !member.isInert {
                        call(consumer, member.id, old: seen, new: value, instant: false, kind: member.kind)
                    }
                }
                consumers[consumer].members[index] = member
            }
            for index in consumers[consumer].members.indices where consumers[consumer].members[index].seen == nil {
                let member = consumers[consumer].members[index]
                let value = DerivedModelHuntTests.value(member.derived, state)
                consumers[consumer].members[index].seen = value
                if member.kind.isInstant, !member.isInert {
                    call(consumer, member.id, old: value, new: value, instant: true, kind: member.kind)
                }
            }
        }

        mutating func dispatch(_ edit: Edit) {
            switch edit {
            case .a(let value): state.a = value
            case .b(let value): state.b = value
            case .c(let value): state.c = value
            }
            // Members added inside the pass start with its state; their `.instantly` calls come at
            // its end, in the order they were added.
            var instant: [(consumer: Int, id: Int, value: Int, kind: Kind)] = []
            for step in hook {
                switch step {
                case .add(let consumer, let id, let derived, let kind):
                    var member = MemberModel(id: id, derived: derived, kind: kind)
                    if consumers[consumer].isSubscribed {
                        let value = DerivedModelHuntTests.value(derived, state)
                        member.seen = value
                        if kind.isInstant { instant.append((consumer, id, value, kind)) }
                    }
                    consumers[consumer].members.append(member)
                case .remove(let consumer, let id):
                    remove(consumer, member: id)
                    instant.removeAll { $0.id == id }
                }
            }
            let added = Set(
                hook.compactMap { step -> Int? in
                    if case .add(_, let id, _, _) = step { return id }
                    return nil
                })
            hook.removeAll()
            for consumer in subscribed {
                feed(consumer, skipping: added)
            }
            for call in instant where consumers[call.consumer].members.contains(where: { $0.id == call.id }) {
                self.call(call.consumer, call.id, old: call.value, new: call.value, instant: true, kind: call.kind)
            }
        }

        mutating func add(_ consumer: Int, id: Int, derived: Int, kind: Kind) {
            var member = MemberModel(id: id, derived: derived, kind: kind)
            if consumers[consumer].isSubscribed {
                let value = DerivedModelHuntTests.value(derived, state)
                member.seen = value
                consumers[consumer].members.append(member)
                if kind.isInstant {
                    call(consumer, id, old: value, new: value, instant: true, kind: kind)
                }
            } else {
                consumers[consumer].members.append(member)
            }
        }

        mutating func remove(_ consumer: Int, member: Int) {
            consumers[consumer].members.removeAll { $0.id == member }
            consumers[consumer].pending.removeValue(forKey: member)
            consumers[consumer].carried.removeValue(forKey: member)
            consumers[consumer].withdrawn.removeValue(forKey: member)
            consumers[consumer].order.removeAll { $0 == member }
        }

        mutating func subscribe(_ consumer: Int) {
            consumers[consumer].isSubscribed = true
            subscribed.append(consumer)
            // Calls dropped as it left: each member heard last what they started from.
            for index in consumers[consumer].members.indices {
                let id = consumers[consumer].members[index].id
                if let heard = consumers[consumer].withdrawn.removeValue(forKey: id) {
                    consumers[consumer].members[index].seen = heard
                }
            }
            consumers[consumer].withdrawn.removeAll()
            feed(consumer)
        }

        mutating func unsubscribe(_ consumer: Int) {
            consumers[consumer].isSubscribed = false
            subscribed.removeAll { $0 == consumer }
            var model = consumers[consumer]
            for (member, pending) in model.pending where model.withdrawn[member] == nil {
                model.withdrawn[member] = pending.old
            }
            model.pending.removeAll()
            model.order.removeAll()
            consumers[consumer] = model
        }
    }

    // MARK: Programs

    @Test func randomProgramsOfDerivedValuesAndOptionsFollowTheModel() {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["DERIVED_MODEL_SEED"].flatMap({ UInt64($0) }) {
            run(seed: seed)
            return
        }
        let base = environment["DERIVED_MODEL_BASE"].flatMap { UInt64($0) } ?? 0xD371_7ED0
        let programs = environment["DERIVED_MODEL_PROGRAMS"].flatMap { Int($0) } ?? scaled(300, sanitized: 40)
        var seeds = SplitMix64(seed: base)
        for _ in 0..<programs {
            if !run(seed: seeds.next()) { return }
        }
    }

    /// Runs one program; returns `false` when it failed (reported once).
    @discardableResult
    func run(seed: UInt64) -> Bool {
        var random = SplitMix64(seed: seed)
        let queues = (0..<3).map { DispatchQueue(label: "derived-model.\(seed).\($0)") }
        let queued = [false, false, true]
        let store = Store(initialState: ModelState(), reducer: Self.reducer)
        let evaluations = Recorder<(Int, [Int])>()
        let derived = Self.makeDerived(recording: evaluations)
        // A keeper watches every derived value for the whole program, so each is computed from
        // the first state on, and only when its inputs change.
        let keeper = StateConsumer<ModelState>()
        for value in derived { keeper.add(value) { _, _ in } }
        let keeperSubscription = store.subscribe(keeper)
        var states = [store.state]

        let logs = (0..<3).map { _ in Recorder<Call>() }
        let inPlace = Recorder<Call>()
        let consumers = (0..<3).map { StateConsumer<ModelState>(deliveringOn: queued[$0] ? queues[$0] : nil) }
        var model = Model(queued: queued)
        var subscriptions: [Int: Subscription] = [:]
        let tokens = Slot<[(consumer: Int, member: Int, token: ConsumerToken)]>([])
        let owners = Slot<[Int: Owner]>([:])
        // Called first in every pass: runs the adds and removals the program made for it.
        let hook = Slot<[@Sendable () -> Void]>([])
        let hookSubscription = store.subscribe { _, _ in
            let steps = hook.value
            hook.value = []
            for step in steps { step() }
        }
        let add: @Sendable (Int, Int, Kind, Int) -> Void = { consumer, index, kind, member in
            let log = logs[consumer]
            let isQueued = queued[consumer]
            let record: @Sendable (Int, Int) -> Void = { old, new in
                let call = Call(consumer: consumer, member: member, old: old, new: new)
                log.append(call)
                if !isQueued { inPlace.append(call) }
            }
            let token: ConsumerToken
            switch kind {
            case .isEqual, .isEqualInstantly, .pulseIsEqual:
                token = consumers[consumer].add(derived[index], isEqual: Self.sameClass, options: kind.options, record)
            case .owner, .ownerInstantly:
                let owner = Owner()
                owners.value[member] = owner
                token = consumers[consumer].add(derived[index], owner: owner, options: kind.options) {
                    _, old, new in record(old, new)
                }
            default:
                token = consumers[consumer].add(derived[index], options: kind.options, record)
            }
            tokens.value.append((consumer, member, token))
        }
        var release: (() -> Void)?
        var nextMember = 0
        var trace: [String] = []

        func flush() {
            for index in 0..<3 where queued[index] && release == nil {
                queues[index].sync {}
            }
        }

        for _ in 0..<60 {
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<35:
                let value = Int.random(in: 0..<5, using: &random)
                let edit: Edit =
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: .a(value)
                    case 1: .b(value)
                    default: .c(value)
                    }
                trace.append("dispatch(\(edit))")
                store.dispatch(EditAction(edit: edit))
                states.append(store.state)
                model.dispatch(edit)
            case 35..<60:
                let consumer = Int.random(in: 0..<3, using: &random)
                let index = Int.random(in: 0..<Self.derivedCount, using: &random)
                let kind = Kind.allCases.randomElement(using: &random)!
                nextMember += 1
                let member = nextMember
                if Bool.random(using: &random) {
                    trace.append("c\(consumer).add(d\(index), \(kind)) → m\(member)")
                    add(consumer, index, kind, member)
                    model.add(consumer, id: member, derived: index, kind: kind)
                } else {
                    trace.append("in the next pass: c\(consumer).add(d\(index), \(kind)) → m\(member)")
                    hook.value.append { add(consumer, index, kind, member) }
                    model.hook.append(.add(consumer: consumer, id: member, derived: index, kind: kind))
                }
            case 60..<70:
                guard !tokens.value.isEmpty else { continue }
                let (consumer, member, token) = tokens.value.remove(
                    at: Int.random(in: 0..<tokens.value.count, using: &random))
                if Bool.random(using: &random) {
                    trace.append("m\(member).cancel()")
                    token.cancel()
                    model.remove(consumer, member: member)
                } else {
                    trace.append("in the next pass: m\(member).cancel()")
                    hook.value.append { token.cancel() }
                    model.hook.append(.remove(consumer: consumer, id: member))
                }
            case 70..<75:
                guard let member = owners.value.keys.sorted().randomElement(using: &random) else { continue }
                trace.append("release owner of m\(member)")
                owners.value.removeValue(forKey: member)
                for consumer in 0..<3 {
                    for index in model.consumers[consumer].members.indices
                    where model.consumers[consumer].members[index].id == member {
                        model.consumers[consumer].members[index].isInert = true
                    }
                }
            case 75..<87:
                let consumer = Int.random(in: 0..<3, using: &random)
                if let subscription = subscriptions.removeValue(forKey: consumer) {
                    trace.append("c\(consumer) subscription.cancel()")
                    subscription.cancel()
                    model.unsubscribe(consumer)
                } else {
                    trace.append("subscribe(c\(consumer))")
                    subscriptions[consumer] = store.subscribe(consumers[consumer])
                    model.subscribe(consumer)
                }
            case 87..<94:
                if let hold = release {
                    trace.append("release queue")
                    hold()
                    release = nil
                    model.consumers[2].isHeld = false
                } else {
                    trace.append("hold queue")
                    let started = DispatchSemaphore(value: 0)
                    let gate = DispatchSemaphore(value: 0)
                    queues[2].async {
                        started.signal()
                        gate.wait()
                    }
                    started.wait()
                    release = { gate.signal() }
                    model.consumers[2].isHeld = true
                }
            default:
                let consumer = Int.random(in: 0..<3, using: &random)
                trace.append("c\(consumer).removeAll()")
                consumers[consumer].removeAll()
                for member in model.consumers[consumer].members.map(\.id) {
                    model.remove(consumer, member: member)
                }
                tokens.value.removeAll { $0.consumer == consumer }
            }
            model.drain(2)
            flush()
        }
        release?()
        release = nil
        model.consumers[2].isHeld = false
        model.drain(2)
        flush()

        var failed = false
        func fail(_ message: String) {
            guard !failed else { return }
            failed = true
            let steps = trace.joined(separator: "\n  ")
            Issue.record("seed \(seed) (DERIVED_MODEL_SEED=\(seed)): \(message)\n  \(steps)")
        }
        for consumer in 0..<3 where logs[consumer].values != model.log[consumer] {
            fail("consumer \(consumer): library \(logs[consumer].values), model \(model.log[consumer])")
        }
        if inPlace.values != model.inPlaceLog {
            fail("in-place order: library \(inPlace.values), model \(model.inPlaceLog)")
        }
        // Each derived value is computed at the first state, then once per state whose inputs changed.
        let computed = evaluations.values
        for index in 0..<Self.derivedCount {
            let library = computed.filter { $0.0 == index }.map(\.1)
            var expected = [Self.inputs(index, states[0])]
            for state in states.dropFirst() where Self.inputs(index, state) != expected.last {
                expected.append(Self.inputs(index, state))
            }
            if library != expected {
                fail("d\(index) computed from \(library), expected \(expected)")
            }
        }
        keeperSubscription.cancel()
        hookSubscription.cancel()
        for subscription in subscriptions.values { subscription.cancel() }
        return !failed
    }
}
