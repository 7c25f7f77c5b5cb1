import Dispatch
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

/// The `Store` forms of `changes(of:)` beside the key-path one (`ChangeSequenceTests`): a closure
/// selector, `isEqual:` and a `Derived` value; `PageChangeSequenceTests` covers the `PageStore`
/// forms. Tests that assert every element use `.unbounded` buffering; those that let the reader
/// fall behind assert the chain instead.
struct ChangeSequenceFormsTests {
    /// A `Store` form of `changes(of:)` watching `AppState.counter`.
    enum CounterForm: CaseIterable, CustomTestStringConvertible, Sendable {
        case closure
        case isEqual
        case closureIsEqual
        case derived
        case derivedIsEqual

        var testDescription: String {
            switch self {
            case .closure: "changes(of: { $0.counter })"
            case .isEqual: "changes(of: \\.counter, isEqual: ==)"
            case .closureIsEqual: "changes(of: { $0.counter }, isEqual: ==)"
            case .derived: "changes(of: Derived(\\.counter) { $0 })"
            case .derivedIsEqual: "changes(of: Derived(\\.counter) { $0 }, isEqual: ==)"
            }
        }

        func changes(
            of store: Store<AppState>,
            options: ConsumeOptions = .instantly,
            buffering: StreamBuffering = .unbounded
        ) -> StoreStream<Change<Int>> {
            switch self {
            case .closure:
                store.changes(of: { $0.counter }, options: options, buffering: buffering)
            case .isEqual:
                store.changes(of: \.counter, isEqual: ==, options: options, buffering: buffering)
            case .closureIsEqual:
                store.changes(of: { $0.counter }, isEqual: ==, options: options, buffering: buffering)
            case .derived:
                store.changes(of: Derived(\AppState.counter) { $0 }, options: options, buffering: buffering)
            case .derivedIsEqual:
                store.changes(
                    of: Derived(\AppState.counter) { $0 }, isEqual: ==, options: options, buffering: buffering)
            }
        }
    }

    /// A `Store` form of `changes(of:)` watching the optional `AppState.name`.
    enum NameForm: CaseIterable, CustomTestStringConvertible, Sendable {
        case keyPath
        case closure
        case isEqual
        case closureIsEqual
        case derived
        case derivedIsEqual

        var testDescription: String {
            switch self {
            case .keyPath: "changes(of: \\.name)"
            case .closure: "changes(of: { $0.name })"
            case .isEqual: "changes(of: \\.name, isEqual: ==)"
            case .closureIsEqual: "changes(of: { $0.name }, isEqual: ==)"
            case .derived: "changes(of: Derived(\\.name) { $0 })"
            case .derivedIsEqual: "changes(of: Derived(\\.name) { $0 }, isEqual: ==)"
            }
        }

        func changes(of store: Store<AppState>) -> StoreStream<Change<String?>> {
            switch self {
            case .keyPath:
                store.changes(of: \.name, options: .instantly, buffering: .unbounded)
            case .closure:
                store.changes(of: { $0.name }, options: .instantly, buffering: .unbounded)
            case .isEqual:
                store.changes(of: \.name, isEqual: ==, options: .instantly, buffering: .unbounded)
            case .closureIsEqual:
                store.changes(of: { $0.name }, isEqual: ==, options: .instantly, buffering: .unbounded)
            case .derived:
                store.changes(of: Derived(\AppState.name) { $0 }, options: .instantly, buffering: .unbounded)
            case .derivedIsEqual:
                store.changes(
                    of: Derived(\AppState.name) { $0 }, isEqual: ==, options: .instantly, buffering: .unbounded)
            }
        }
    }

    // MARK: - Every form follows the consumer rules

    @Test(arguments: CounterForm.allCases)
    func everyChangeArrivesInOrderAndNothingElse(form: CounterForm) async {
        let store = makeStore(AppState(counter: 3))
        var changes = form.changes(of: store).makeAsyncIterator()
        #expect(await changes.next() == Change(old: 3, new: 3))  // .instantly: the starting value

        await store.send(CounterAction.increment)
        await store.send(CounterAction.rename("Kim"))  // not the counter: no element
        await store.send(CounterAction.set(4))  // the same value: no element
        await store.send(CounterAction.set(9))

        #expect(await take(2, from: &changes) == [Change(old: 3, new: 4), Change(old: 4, new: 9)])
    }

    @Test(arguments: NameForm.allCases)
    func changesToAndFromNilFireButNilToNilDoesNot(form: NameForm) async {
        let store = makeStore()
        var changes = form.changes(of: store).makeAsyncIterator()
        #expect(await changes.next() == Change(old: nil, new: nil))

        for name in [nil, "Kim", "Kim", nil, nil, "Lee"] as [String?] {
            await store.send(CounterAction.rename(name))
        }

        #expect(
            await take(3, from: &changes) == [
                Change(old: nil, new: "Kim"),
                Change(old: "Kim", new: nil),
                Change(old: nil, new: "Lee"),
            ]
        )
    }

    @Test(arguments: CounterForm.allCases)
    func instantlyStartsEachIterationWithTheValueAtThatMoment(form: CounterForm) async {
        let store = makeStore()
        let changes = form.changes(of: store)
        await store.send(CounterAction.set(5))  // after the sequence was made, before it is iterated

        var first = changes.makeAsyncIterator()
        #expect(await first.next() == Change(old: 5, new: 5))
        await store.send(CounterAction.set(6))
        #expect(await first.next() == Change(old: 5, new: 6))

        // Each iteration is a subscription of its own, with its own first element.
        var second = changes.makeAsyncIterator()
        #expect(await second.next() == Change(old: 6, new: 6))
    }

    @Test(arguments: CounterForm.allCases)
    func withoutInstantlyTheFirstElementIsTheFirstChange(form: CounterForm) async {
        let store = makeStore(AppState(counter: 5))
        let start = store.subscriberCount
        let changes = form.changes(of: store, options: [])
        let reader = Task {
            var iterator = changes.makeAsyncIterator()
            return await iterator.next()
        }
        // The iteration subscribes inside its first `next()`; nothing else can tell us it did.
        while store.subscriberCount == start { await Task.yield() }
        await store.send(CounterAction.set(7))
        #expect(await reader.value == Change(old: 5, new: 7))
    }

    @Test(arguments: CounterForm.allCases)
    func aSlowReaderGetsMergedChangesThatKeepTheChain(form: CounterForm) async {
        let store = makeStore()
        let changes = form.changes(of: store, buffering: .coalescing)
        let burst = 20_000
        let (subscribed, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            var previous: Int?
            var isChained = true
            for await change in changes {
                if previous == nil { signal.yield() }
                if let previous, change.old != previous { isChained = false }
                previous = change.new
                if change.new == burst { break }
                await Task.yield()
            }
            return (isChained, previous)
        }
        for await _ in subscribed { break }
        let writer = spawn { for _ in 0..<burst { store.dispatch(CounterAction.increment) } }
        writer.wait()

        let (isChained, last) = await reader.value
        #expect(isChained)  // each element's old is the previous element's new
        #expect(last == store.state.counter)  // the last element's new is the latest value
    }

    @Test(arguments: CounterForm.allCases)
    func cancellingTheReadingTaskRemovesItsSubscription(form: CounterForm) async {
        let store = makeStore()
        let start = store.subscriberCount
        let changes = form.changes(of: store)
        let (subscribed, signal) = AsyncStream<Void>.makeStream()
        let reader = Task {
            var count = 0
            for await _ in changes {
                count += 1
                signal.yield()
            }
            return count
        }
        for await _ in subscribed { break }
        #expect(store.subscriberCount == start + 1)

        reader.cancel()
        #expect(await reader.value == 1)
        #expect(store.subscriberCount == start)
        await store.send(CounterAction.increment)  // the store goes on without it
        #expect(store.state.counter == 1)
    }

    @Test(arguments: CounterForm.allCases)
    func theSequenceFinishesWhenTheStoreIsReleased(form: CounterForm) async {
        var store: Store<AppState>? = makeStore()
        var changes = form.changes(of: store!).makeAsyncIterator()
        #expect(await changes.next() == Change(old: 0, new: 0))
        await store!.send(CounterAction.increment)

        weak let weakStore = store
        store = nil
        #expect(weakStore == nil)
        #expect(await changes.next() == Change(old: 0, new: 1))  // what was buffered, then the end
        #expect(await changes.next() == nil)
    }

    // MARK: - What each form adds

    @Test func aClosureSelectorFiresOnlyWhenItsResultChanges() async {
        let store = makeStore()
        var parity = store.changes(
            of: { $0.counter.isMultiple(of: 2) }, options: .instantly, buffering: .unbounded
        ).makeAsyncIterator()
        #expect(await parity.next() == Change(old: true, new: true))

        for counter in [2, 3, 5, 7, 8] {
            await store.send(CounterAction.set(counter))
        }

        #expect(await take(2, from: &parity) == [Change(old: true, new: false), Change(old: false, new: true)])
    }

    /// The forms of `changes(of:isEqual:)`: a key path, a closure and a derived value.
    enum IsEqualForm: CaseIterable, Sendable {
        case keyPath, closure, derived

        func changes(
            of store: Store<AppState>,
            isEqual: @escaping @Sendable (Int, Int) -> Bool,
            options: ConsumeOptions
        ) -> StoreStream<Change<Int>> {
            switch self {
            case .keyPath:
                store.changes(of: \.counter, isEqual: isEqual, options: options, buffering: .unbounded)
            case .closure:
                store.changes(of: { $0.counter }, isEqual: isEqual, options: options, buffering: .unbounded)
            case .derived:
                store.changes(
                    of: Derived(\AppState.counter) { $0 }, isEqual: isEqual, options: options, buffering: .unbounded)
            }
        }
    }

    @Test(arguments: IsEqualForm.allCases)
    func isEqualReplacesEqualityAndComparesWithTheLastDeliveredValue(form: IsEqualForm) async {
        let store = makeStore()
        var changes = form.changes(of: store, isEqual: { abs($0 - $1) <= 1 }, options: .instantly)
            .makeAsyncIterator()
        #expect(await changes.next() == Change(old: 0, new: 0))

        // 1 is close to 0 (no element); 2 is compared with 0, the last delivered value, not with 1.
        for counter in [1, 2, 3, 5] {
            await store.send(CounterAction.set(counter))
        }

        #expect(await take(2, from: &changes) == [Change(old: 0, new: 2), Change(old: 2, new: 5)])
    }

    @Test(arguments: IsEqualForm.allCases)
    func pulseWinsOverIsEqual(form: IsEqualForm) async {
        let store = makeStore()
        var changes = form.changes(of: store, isEqual: { _, _ in true }, options: [.instantly, .pulse])
            .makeAsyncIterator()
        #expect(await changes.next() == Change(old: 0, new: 0))

        await store.send(CounterAction.rename("Kim"))
        await store.send(CounterAction.increment)

        #expect(await take(2, from: &changes) == [Change(old: 0, new: 0), Change(old: 0, new: 1)])
    }

    @Test func aDerivedValueFiresOnlyWhenItsOutputChanges() async {
        let store = makeStore()
        let calls = Recorder<Int>()
        let label = Derived(\AppState.counter) { counter -> String in
            calls.append(counter)
            return counter < 10 ? "small" : "large"
        }
        var changes = store.changes(of: label, options: .instantly, buffering: .unbounded).makeAsyncIterator()
        #expect(await changes.next() == Change(old: "small", new: "small"))

        await store.send(CounterAction.rename("Kim"))  // the input did not change: not recomputed
        await store.send(CounterAction.set(3))  // recomputed, same output: no element
        await store.send(CounterAction.set(12))

        #expect(await changes.next() == Change(old: "small", new: "large"))
        #expect(calls.values == [0, 3, 12])
    }
}

/// The next `count` elements of `iterator`, fewer if it ends first (shared by the change-sequence
/// suites).
func take<Element>(_ count: Int, from iterator: inout StoreStream<Element>.Iterator) async -> [Element] {
    var elements: [Element] = []
    while elements.count < count, let element = await iterator.next() {
        elements.append(element)
    }
    return elements
}
