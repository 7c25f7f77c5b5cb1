/// A value computed from parts of the state — "the visible todos, sorted", "the total of the open
/// orders" — once per change of its inputs, however many consumers watch it (the idea of
/// reselect's selectors).
///
/// Build one from key paths of the state or from other derived values, and a pure function of
/// them; keep it (a `let` on the screen's or the feature's type) and watch it like a key path:
///
/// ```swift
/// let visibleTodos = Derived(\AppState.todos, \.filter) { todos, filter in
///     todos.filter(filter.matches).sorted(by: \.title)
/// }
/// consumer.add(visibleTodos) { old, new in tableView.reload(new) }
/// ```
///
/// ## When it computes
/// In each store it is used with, a derived value keeps its last inputs and its last output. On
/// every new state it reads its inputs and compares them with `==`; only when one changed does it
/// call the function again. Every consumer of a store watching the same derived value (consumers
/// of `StateConsumer`, pages' consumers, async sequences of changes) shares that one computation,
/// and its output is compared once (with `==`, or the `isEqual` a consumer gives) before any of
/// them fires. A derived value built on other derived values recomputes only down the branch whose
/// input changed.
///
/// Identity matters: two `Derived` values built separately are two selectors, each computed on its
/// own, even with the same inputs and function. Copies of one value share its identity.
///
/// `transform` must be a pure function of its inputs: it runs on whatever thread processes the
/// store, outside any lock, at most once per state.
public struct Derived<State: Sendable, Value: Sendable>: Sendable {
    @usableFromInline let definition: Definition

    /// The shared part of a derived value: how to read it, and its identity.
    @usableFromInline
    final class Definition: @unchecked Sendable {
        // @unchecked: immutable after `init`; the key paths it holds were given as `Sendable`.
        /// Set for a derived value that is a key path of the state: read directly, never memoised.
        @usableFromInline let selection: Selection<State, Value>?
        /// Computes the value with its memo (a ``DerivedMemo``), for a derived value with inputs.
        @usableFromInline let compute:
            (@Sendable (_ state: UnsafeMutablePointer<State>, _ cache: DerivationCache, _ memo: AnyObject) -> Value)?
        /// Makes an empty memo of the right type.
        @usableFromInline let makeMemo: @Sendable () -> AnyObject

        @inlinable
        init(selection: Selection<State, Value>) {
            self.selection = selection
            compute = nil
            makeMemo = { DerivedMemo<Void, Void>(inputCount: 0) }
        }

        @inlinable
        init(
            makeMemo: @escaping @Sendable () -> AnyObject,
            compute: @escaping @Sendable (UnsafeMutablePointer<State>, DerivationCache, AnyObject) -> Value
        ) {
            selection = nil
            self.compute = compute
            self.makeMemo = makeMemo
        }
    }

    /// A derived value that is the value at `keyPath`: a building block for derived values that
    /// mix key paths and other derived values.
    ///
    /// - Parameter keyPath: The property.
    @inlinable
    public init(_ keyPath: any KeyPath<State, Value> & Sendable) {
        definition = Definition(selection: Selection(keyPath))
    }

    /// A value computed by `transform` from the value of `input`, recomputed only when it changed
    /// (compared with `==`).
    ///
    /// - Parameters:
    ///   - input: Another derived value (use ``init(_:)`` for a key path).
    ///   - transform: A pure function of the input's value.
    @inlinable
    public init<A: Equatable & Sendable>(
        _ input: Derived<State, A>,
        transform: @escaping @Sendable (A) -> Value
    ) {
        self.init(
            inputs: 1,
            read: { state, cache, memos in input.read(state, cache: cache, memo: &memos[0]) },
            equal: ==,
            transform: transform
        )
    }

    /// A value computed by `transform` from the values of two inputs, recomputed only when one of
    /// them changed (compared with `==`).
    ///
    /// ```swift
    /// let openTotal = Derived(Derived(\AppState.orders), taxRate) { orders, rate in
    ///     orders.filter(\.isOpen).map(\.amount).reduce(0, +) * (1 + rate)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - a: The first input: another derived value (use ``init(_:)`` for a key path).
    ///   - b: The second input.
    ///   - transform: A pure function of the inputs' values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable>(
        _ a: Derived<State, A>,
        _ b: Derived<State, B>,
        transform: @escaping @Sendable (A, B) -> Value
    ) {
        let read: @Sendable (UnsafeMutablePointer<State>, DerivationCache, inout [AnyObject?]) -> (A, B) = {
            state, cache, memos in
            let first = a.read(state, cache: cache, memo: &memos[0])
            return (first, b.read(state, cache: cache, memo: &memos[1]))
        }
        let equal: @Sendable ((A, B), (A, B)) -> Bool = { lhs, rhs in lhs.0 == rhs.0 && lhs.1 == rhs.1 }
        self.init(inputs: 2, read: read, equal: equal) { transform($0.0, $0.1) }
    }

    /// A value computed by `transform` from the values of three inputs, recomputed only when one
    /// of them changed (compared with `==`).
    ///
    /// - Parameters:
    ///   - a: The first input: another derived value (use ``init(_:)`` for a key path).
    ///   - b: The second input.
    ///   - c: The third input.
    ///   - transform: A pure function of the inputs' values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable, C: Equatable & Sendable>(
        _ a: Derived<State, A>,
        _ b: Derived<State, B>,
        _ c: Derived<State, C>,
        transform: @escaping @Sendable (A, B, C) -> Value
    ) {
        let read: @Sendable (UnsafeMutablePointer<State>, DerivationCache, inout [AnyObject?]) -> (A, B, C) = {
            state, cache, memos in
            let first = a.read(state, cache: cache, memo: &memos[0])
            let second = b.read(state, cache: cache, memo: &memos[1])
            return (first, second, c.read(state, cache: cache, memo: &memos[2]))
        }
        let equal: @Sendable ((A, B, C), (A, B, C)) -> Bool = { lhs, rhs in
            lhs.0 == rhs.0 && lhs.1 == rhs.1 && lhs.2 == rhs.2
        }
        self.init(inputs: 3, read: read, equal: equal) { transform($0.0, $0.1, $0.2) }
    }

    /// A value computed by `transform` from the values of four inputs, recomputed only when one of
    /// them changed (compared with `==`).
    ///
    /// - Parameters:
    ///   - a: The first input: another derived value (use ``init(_:)`` for a key path).
    ///   - b: The second input.
    ///   - c: The third input.
    ///   - d: The fourth input.
    ///   - transform: A pure function of the inputs' values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable, C: Equatable & Sendable, D: Equatable & Sendable>(
        _ a: Derived<State, A>,
        _ b: Derived<State, B>,
        _ c: Derived<State, C>,
        _ d: Derived<State, D>,
        transform: @escaping @Sendable (A, B, C, D) -> Value
    ) {
        let read: @Sendable (UnsafeMutablePointer<State>, DerivationCache, inout [AnyObject?]) -> (A, B, C, D) = {
            state, cache, memos in
            let first = a.read(state, cache: cache, memo: &memos[0])
            let second = b.read(state, cache: cache, memo: &memos[1])
            let third = c.read(state, cache: cache, memo: &memos[2])
            return (first, second, third, d.read(state, cache: cache, memo: &memos[3]))
        }
        let equal: @Sendable ((A, B, C, D), (A, B, C, D)) -> Bool = { lhs, rhs in
            lhs.0 == rhs.0 && lhs.1 == rhs.1 && lhs.2 == rhs.2 && lhs.3 == rhs.3
        }
        self.init(inputs: 4, read: read, equal: equal) { transform($0.0, $0.1, $0.2, $0.3) }
    }

    /// A value computed by `transform` from the value at `keyPath`, recomputed only when it changed.
    ///
    /// - Parameters:
    ///   - keyPath: A property of the state.
    ///   - transform: A pure function of its value.
    @inlinable
    public init<A: Equatable & Sendable>(
        _ keyPath: any KeyPath<State, A> & Sendable,
        transform: @escaping @Sendable (A) -> Value
    ) {
        self.init(Derived<State, A>(keyPath), transform: transform)
    }

    /// A value computed by `transform` from the values at two key paths, recomputed only when one
    /// of them changed.
    ///
    /// ```swift
    /// let visibleTodos = Derived(\AppState.todos, \.filter) { todos, filter in
    ///     todos.filter(filter.matches)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - a: The first property.
    ///   - b: The second property.
    ///   - transform: A pure function of their values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable>(
        _ a: any KeyPath<State, A> & Sendable,
        _ b: any KeyPath<State, B> & Sendable,
        transform: @escaping @Sendable (A, B) -> Value
    ) {
        self.init(Derived<State, A>(a), Derived<State, B>(b), transform: transform)
    }

    /// A value computed by `transform` from the values at three key paths, recomputed only when
    /// one of them changed.
    ///
    /// - Parameters:
    ///   - a: The first property.
    ///   - b: The second property.
    ///   - c: The third property.
    ///   - transform: A pure function of their values.
    @inlinable
    public init<A: Equatable & Sendable, B: Equatable & Sendable, C: Equatable & Sendable>(
        _ a: any KeyPath<State, A> & Sendable,
        _ b: any KeyPath<State, B> & Sendable,
        _ c: any KeyPath<State, C> & Sendable,
        transform: @escaping @Sendable (A, B, C) -> Value
    ) {
        self.init(Derived<State, A>(a), Derived<State, B>(b), Derived<State, C>(c), transform: transform)
    }

    /// The one place a derived value with inputs computes: reuse the memo's output within a pass,
    /// recompute only when an input changed.
    @inlinable
    init<Inputs>(
        inputs: Int,
        read: @escaping @Sendable (UnsafeMutablePointer<State>, DerivationCache, inout [AnyObject?]) -> Inputs,
        equal: @escaping @Sendable (Inputs, Inputs) -> Bool,
        transform: @escaping @Sendable (Inputs) -> Value
    ) {
        definition = Definition(makeMemo: { DerivedMemo<Inputs, Value>(inputCount: inputs) }) {
            state, cache, memoObject in
            let memo = unsafeDowncast(memoObject, to: DerivedMemo<Inputs, Value>.self)
            if memo.pass == cache.pass, let output = memo.output {
                return output
            }
            memo.pass = cache.pass
            let values = read(state, cache, &memo.inputMemos)
            if let last = memo.inputs, let output = memo.output, equal(last, values) {
                return output
            }
            let output = transform(values)
            memo.inputs = values
            memo.output = output
            return output
        }
    }

    /// The value for the state at `state`, computed at most once per pass of `cache`.
    ///
    /// - Parameter memo: The memo this read used last time, kept by the caller so it is looked up
    ///   once.
    @inlinable
    func read(_ state: UnsafeMutablePointer<State>, cache: DerivationCache, memo: inout AnyObject?) -> Value {
        if let selection = definition.selection {
            return selection.read(state)
        }
        let found = memo ?? cache.memo(for: definition, make: definition.makeMemo)
        memo = found
        // Non-nil whenever `selection` is nil (see `Definition`'s initialisers).
        return definition.compute.unsafelyUnwrapped(state, cache, found)
    }
}
