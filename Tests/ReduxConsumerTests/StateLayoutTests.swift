import Dispatch
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumer

/// A store that has published often enough learns where its state keeps references
/// (``StateLayout``) and from then on publishes by copying the state's bytes and giving only the
/// changed fields their own copies. These tests check the layout against the struct's key paths,
/// the states it refuses, and, against a model, that such publishes lose no change, free every
/// object the state drops and let other threads read whole states only.
struct StateLayoutTests {
    @Test func theLayoutHasTheFieldsThatHoldReferencesAndNoOther() throws {
        let layout = try #require(StateLayout(of: Mixed.self))
        defer { layout.deallocate() }
        let offsets = Array(layout.fields).map(\.offset)
        let expected: [PartialKeyPath<Mixed>] = [
            \.name, \.numbers, \.nickname, \.nested, \.anything, \.shape, \.object, \.crate, \.deep,
        ]
        #expect(offsets == expected.compactMap { MemoryLayout<Mixed>.offset(of: $0) }.sorted())
        #expect(layout.size == MemoryLayout<Mixed>.size)
        let plainOffsets = [\Mixed.count, \.flag, \.point, \.small].compactMap { MemoryLayout<Mixed>.offset(of: $0) }
        #expect(plainOffsets.allSatisfy { !offsets.contains($0) })
    }

    @Test func aStateOfPlainDataHasALayoutWithoutFields() throws {
        let layout = try #require(StateLayout(of: Point.self))
        defer { layout.deallocate() }
        #expect(layout.fields.isEmpty)
    }

    @Test func statesAPublishCannotCopyFieldByFieldAreCopiedWhole() {
        #expect(StateLayout(of: WithWeak.self) == nil, "a weak field holds a side-table reference")
        #expect(StateLayout(of: WithUnowned.self) == nil)
        #expect(StateLayout(of: WithUnownedUnsafe.self) == nil)
        #expect(StateLayout(of: Shape.self) == nil, "an enum")
        #expect(StateLayout(of: Tracked.self) == nil, "a class")
        #expect(StateLayout(of: (Int, String).self) == nil, "a tuple")
        #expect(StateLayout(of: Int.self) == nil, "a struct without reflected fields: the standard library's")
    }

    /// 3,000 random actions, each changing some of `Mixed`'s fields, past the point where the
    /// store learns the layout: after each, the store's state is the model's, and the objects
    /// alive are exactly those the model holds (a dropped one is freed before `dispatch` returns).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func publishesLoseNoChangeAndFreeWhatTheStateDrops(seed: UInt64) {
        let live = LiveCount()
        var model = Mixed(live: live)
        let store = Store(initialState: model, reducer: Reducer { (state, action: Change) in action.apply(&state) })
        var random = SplitMix64(seed: seed)
        for step in 0..<3_000 {
            do {
                // In a scope of its own: the action holds the objects it brings.
                let change = Change.random(using: &random, step: step, live: live)
                change.apply(&model)
                store.dispatch(change)
            }
            guard store.state == model else {
                Issue.record("seed \(seed), step \(step): the published state differs from the model")
                return
            }
            guard live.count == model.objectCount else {
                Issue.record(
                    "seed \(seed), step \(step): \(live.count) objects alive, the model holds \(model.objectCount)")
                return
            }
        }
        #expect(store.shared.publishesChangedFieldsOnly, "the store never learned its state's layout")
        model = Mixed(live: live)
        store.dispatch(Change(replacement: model))
        #expect(live.count == 1, "the store and the model share the new state's one object")
    }

    /// Readers on two threads see only whole states, never one whose fields come from different
    /// actions, while the store publishes field by field.
    @Test func otherThreadsReadWholeStates() {
        let store = Store(initialState: Agreeing(), reducer: Reducer { (state, _: Step) in state.advance() })
        let actions = scaled(5_000, sanitized: 2_000)
        let finished = finishesWithoutDeadlock(within: 60) {
            let done = Lock(false)
            let torn = Lock(0)
            let readers = (0..<2).map { _ in
                spawn {
                    while !done.withLock({ $0 }) {
                        if !store.state.isConsistent { torn.withLock { $0 += 1 } }
                    }
                }
            }
            for _ in 0..<actions {
                store.dispatch(Step())
            }
            done.withLock { $0 = true }
            for reader in readers { reader.wait() }
            #expect(torn.withLock { $0 } == 0, "a reader saw a state mixing two actions")
        }
        #expect(finished)
        #expect(store.state.number == actions)
        #expect(store.state.isConsistent)
        #expect(store.shared.publishesChangedFieldsOnly)
    }

    /// A page store closed after it learned its layout keeps the state it had at the close.
    @Test func aClosedPageKeepsItsStateAfterItLearnedItsLayout() {
        let global = Store(initialState: Agreeing(), reducer: Reducer { (state, _: Step) in state.advance() })
        let page = PageStore(
            global: global, initialState: { _ in Agreeing() }, reducer: Reducer { (state, _: Step) in state.advance() },
            diagnostics: { _ in })
        for _ in 0..<1_100 {
            page.dispatch(Step())
        }
        #expect(page.store.shared.publishesChangedFieldsOnly)
        page.close()
        page.dispatch(Step())  // ignored, and told to `diagnostics`
        #expect(page.state.number == 1_100)
        #expect(page.state.isConsistent)
    }

    /// Closure subscribers after the store learned its layout: each `old` is the previous `new`.
    @Test func subscribersAfterTheLayoutSeeEveryStateInOrder() {
        let store = Store(initialState: Agreeing(), reducer: Reducer { (state, _: Step) in state.advance() })
        for _ in 0..<1_100 {
            store.dispatch(Step())
        }
        #expect(store.shared.publishesChangedFieldsOnly)
        let seen = Recorder<Int>()
        let subscription = store.subscribe { old, new in
            if old.isConsistent, new.isConsistent, new.number == old.number + 1 { seen.append(new.number) }
        }
        for _ in 0..<100 {
            store.dispatch(Step())
        }
        subscription.cancel()
        #expect(seen.values == Array(1_101...1_200))
    }

    /// A store that learned its layout, released: every object its state held goes with it.
    @Test func aReleasedStoreFreesWhatItsStateHeld() {
        let live = LiveCount()
        do {
            let store = Store(
                initialState: Mixed(live: live), reducer: Reducer { (state, action: Change) in action.apply(&state) })
            var random = SplitMix64(seed: 7)
            for step in 0..<1_500 {
                store.dispatch(Change.random(using: &random, step: step, live: live))
            }
            #expect(store.shared.publishesChangedFieldsOnly)
            #expect(live.count > 0)
        }
        #expect(live.count == 0)
    }

    /// An object the state drops runs its `deinit` while the store releases what its publish set
    /// aside; that `deinit` reads the store and calls a middleware's saved `next`, which must not
    /// publish over the buffers in use: the reduction is queued, and runs right after.
    @Test func aDeinitThatReducesDuringTheReleaseIsQueued() {
        let savedNext = Lock<DispatchFunction?>(nil)
        let storeBox = Lock<Store<Holding>?>(nil)
        let readBack = Recorder<Int>()
        let saveNext: Middleware<Holding> = { _, _ in
            { next in
                savedNext.withLock { $0 = next }
                return next
            }
        }
        let reducer = Reducer<Holding>.combine(
            Reducer { (state, _: Bump) in
                state.bumps += 1
                state.tag = "a tag too long to be stored inline, bump \(state.bumps)"
            },
            Reducer { (state, action: Hold) in
                state.generation = action.generation
                state.held = RunsOnDeinit {
                    readBack.append(storeBox.withLock { $0 }?.state.generation ?? -1)
                    savedNext.withLock { $0 }?(Bump())
                }
            })
        let store = Store(initialState: Holding(), reducer: reducer, middleware: [saveNext])
        storeBox.withLock { $0 = store }
        let finished = finishesWithoutDeadlock {
            for generation in 1...1_200 {
                store.dispatch(Hold(generation: generation))
            }
        }
        #expect(finished)
        #expect(store.shared.publishesChangedFieldsOnly)
        // Each replaced object went when its replacement was published, and its `next` ran.
        #expect(readBack.values == Array(2...1_200))
        #expect(store.state.bumps == 1_199)
        #expect(store.state.generation == 1_200)
        storeBox.withLock { $0 = nil }
    }
}

private struct Holding: Sendable {
    var generation = 0
    var bumps = 0
    var tag = ""
    var held: RunsOnDeinit?
}

private struct Bump: Action {}

private struct Hold: Action {
    let generation: Int
}

/// Counts the ``Tracked`` objects alive.
private final class LiveCount: Sendable {
    private let value = Lock(0)
    var count: Int { value.withLock { $0 } }
    func change(by delta: Int) { value.withLock { $0 += delta } }
}

/// An object a state holds; counts itself alive.
private final class Tracked: Sendable, Equatable {
    let id: Int
    let live: LiveCount

    init(_ id: Int, live: LiveCount) {
        self.id = id
        self.live = live
        live.change(by: 1)
    }

    deinit { live.change(by: -1) }

    static func == (lhs: Tracked, rhs: Tracked) -> Bool { lhs.id == rhs.id }
}

private struct Point: Equatable, Sendable {
    var x = 0
    var y = 0
}

private enum Shape: Equatable, Sendable {
    case none
    case circle(radius: Int)
    case label(String)
}

/// Holds references of its own: copied through its own type when it changes.
private struct Crate: Equatable, Sendable {
    var title = "box"
    var size = 0
    var items: [Tracked] = []
}

/// A state with a field of most kinds: plain data (a nested struct too), strings, arrays,
/// optionals, an existential, an enum with payloads, an object and a nested struct that holds
/// references, in an order that leaves plain data between them.
private struct Mixed: Equatable, Sendable {
    var count = 0
    var name = "start"
    var flag = false
    var numbers: [Int] = []
    var point = Point()
    var nickname: String?
    var nested = Crate()
    var small: Int8 = 0
    var anything: any Sendable = 0
    var shape = Shape.none
    var object: Tracked
    var crate: Crate?
    var deep = [["a"]: [1]]

    init(live: LiveCount) {
        object = Tracked(-1, live: live)
    }

    /// The objects the state holds.
    var objectCount: Int { 1 + nested.items.count + (crate?.items.count ?? 0) + (anything is Tracked ? 1 : 0) }

    static func == (lhs: Mixed, rhs: Mixed) -> Bool {
        lhs.count == rhs.count && lhs.name == rhs.name && lhs.flag == rhs.flag && lhs.numbers == rhs.numbers
            && lhs.point == rhs.point && lhs.nickname == rhs.nickname && lhs.nested == rhs.nested
            && lhs.small == rhs.small && sameValue(lhs.anything, rhs.anything)
            && lhs.shape == rhs.shape && lhs.object === rhs.object && lhs.crate == rhs.crate && lhs.deep == rhs.deep
    }
}

/// Five words: stored out of line in an existential.
private struct Wide: Sendable, CustomStringConvertible {
    var a, b, c, d, e: Int
    var description: String { "Wide(\(a), \(b), \(c), \(d), \(e))" }
}

/// Whether two values of `Mixed.anything` are the same: one object, or equal descriptions.
private func sameValue(_ lhs: any Sendable, _ rhs: any Sendable) -> Bool {
    if let lhs = lhs as? Tracked, let rhs = rhs as? Tracked { return lhs === rhs }
    return String(describing: lhs) == String(describing: rhs)
}

/// Changes some fields of a ``Mixed`` state: the same changes to the store and to the model.
private struct Change: Action {
    var edits: [@Sendable (inout Mixed) -> Void] = []

    init(edits: [@Sendable (inout Mixed) -> Void]) {
        self.edits = edits
    }

    init(replacement: Mixed) {
        edits = [{ $0 = replacement }]
    }

    func apply(_ state: inout Mixed) {
        for edit in edits { edit(&state) }
    }

    static func random(using random: inout SplitMix64, step: Int, live: LiveCount) -> Change {
        var edits: [@Sendable (inout Mixed) -> Void] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0..<14, using: &random) {
            case 0: edits.append { $0.count += 1 }
            case 1:
                edits.append {
                    $0.name = step.isMultiple(of: 2) ? "n\(step)" : "a name too long to be stored inline, \(step)"
                }
            case 2: edits.append { $0.flag.toggle() }
            case 3: edits.append { $0.numbers.append(step) }
            case 4: edits.append { $0.point.x = step }
            case 5: edits.append { $0.nickname = step.isMultiple(of: 2) ? nil : "nick \(step)" }
            case 6:
                let item = Tracked(step, live: live)
                edits.append { $0.nested.items = Array(($0.nested.items + [item]).suffix(3)) }
            case 7: edits.append { $0.small &+= 1 }
            case 8:
                let object = Tracked(step, live: live)
                let value: any Sendable =
                    switch step % 4 {
                    case 0: "a text too long to be stored inline, \(step)"
                    case 1: step
                    case 2: object  // a reference
                    default: Wide(a: step, b: step, c: step, d: step, e: step)  // boxed: too big for inline
                    }
                edits.append { $0.anything = value }
            case 9: edits.append { $0.shape = step.isMultiple(of: 2) ? .circle(radius: step) : .label("l\(step)") }
            case 10:
                let object = Tracked(step, live: live)
                edits.append { $0.object = object }
            case 11:
                let item = Tracked(step, live: live)
                edits.append {
                    $0.crate = step.isMultiple(of: 4) ? nil : Crate(title: "b\(step)", size: step, items: [item])
                }
            case 12: edits.append { $0.deep[["k\(step % 5)"]] = [step] }
            default: edits.append { $0.nested.size = step }
            }
        }
        return Change(edits: edits)
    }
}

/// A state whose fields always agree with one another, so that a reader can tell a torn one.
private struct Agreeing: Sendable {
    var number = 0
    var text = "0"
    var list = [0]
    var flag = true
    var copy = 0

    /// The list changes every eighth action only: most publishes change no reference but the
    /// text, and some none at all once the text is the same length (the publish that shares the
    /// drain's last lock round trip).
    var isConsistent: Bool {
        text == "\(number % 1_000)" && list == [number - number % 8] && flag == number.isMultiple(of: 2)
            && copy == number
    }

    mutating func advance() {
        number += 1
        text = "\(number % 1_000)"
        if number.isMultiple(of: 8) { list = [number] }
        flag = number.isMultiple(of: 2)
        copy = number
    }
}

private struct Step: Action {}

private struct WithWeak: Sendable {
    var number = 0
    nonisolated(unsafe) weak var object: Tracked?
}

private struct WithUnowned: Sendable {
    var number = 0
    unowned let object: Tracked
}

private struct WithUnownedUnsafe: Sendable {
    var number = 0
    unowned(unsafe) let object: Tracked
}
